"""The graph map's queries on a real index: neighbourhoods, hub capping, the overview, the
tools that carry them (app_graph_map, kg_graph_image) and `kbtui graph`."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from kbtui.cli import main
from kbtui.config import Settings
from kbtui.graphmap.model import Neighbourhood, hood_from_dict
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.tools.graph.map import group_map, neighbourhood, overview
from tests.kg_kit import fails, indexed_kb

SOFIA = "person:sofia_marquez"


@pytest.fixture
def kb(settings: Settings) -> Iterator[KnowledgeBase]:
    yield from indexed_kb(settings)


def neighbour_ids(kb: KnowledgeBase, entity_id: str) -> set[str]:
    """One hop, as kg_get_neighbors lists it (an independent path through the store)."""
    answer = kb.call("kg_get_neighbors", {"entityId": entity_id, "limit": 100})
    return {e["id"] for e in answer["entities"]}


def test_depth_one_is_the_centre_and_its_neighbours(kb: KnowledgeBase) -> None:
    hood = neighbourhood(kb.store, SOFIA, depth=1)
    ids = {n.id for n in hood.nodes}
    assert hood.centre == SOFIA and ids == {SOFIA} | neighbour_ids(kb, SOFIA)
    assert hood.edges and all({e.source, e.target} <= ids for e in hood.edges)
    pairs = [frozenset((e.source, e.target)) for e in hood.edges]
    assert len(pairs) == len(set(pairs))  # one edge a pair, whatever the direction
    sofia = hood.node(SOFIA)
    assert sofia is not None and sofia.label == "Sofia Marquez" and sofia.type == "person"


def test_deeper_maps_grow_and_types_filter(kb: KnowledgeBase) -> None:
    one = {n.id for n in neighbourhood(kb.store, SOFIA, depth=1, max_nodes=300).nodes}
    two = neighbourhood(kb.store, SOFIA, depth=2, max_nodes=300)
    second_ring = set().union(*(neighbour_ids(kb, i) for i in one))
    assert {n.id for n in two.nodes} == one | second_ring
    projects = neighbourhood(kb.store, SOFIA, depth=2, types=["project"], max_nodes=300)
    kinds = Counter(n.type for n in projects.nodes if n.id != SOFIA)
    assert set(kinds) == {"project"} and kinds["project"] >= 2


def test_a_capped_map_keeps_the_centre_and_says_how_many_are_left_out(kb: KnowledgeBase) -> None:
    full = neighbourhood(kb.store, SOFIA, depth=2, max_nodes=300)
    capped = neighbourhood(kb.store, SOFIA, depth=2, max_nodes=15)
    assert len(capped.nodes) <= 15 and capped.nodes[0].id == SOFIA
    more = [n for n in capped.nodes if n.more]
    shown = {n.id for n in capped.nodes if not n.more}
    assert more and shown < {n.id for n in full.nodes}
    for node in more:  # "+N more" hangs off its parent and counts what that parent lost
        parent = node.id.removeprefix("more:")
        lost = neighbour_ids(kb, parent) - shown
        assert node.more == len(lost) > 0 and node.label == f"+{len(lost)} more"
        assert any(e.source == parent and e.target == node.id for e in capped.edges)


def write_hub_vault(vault: Path) -> None:
    """A hub linked by 300 notes; five of them also link to Partner, which the hub links to."""
    vault.mkdir()
    (vault / "Hub.md").write_text("---\ntype: project\n---\nSee [[Partner]].\n")
    (vault / "Partner.md").write_text("---\ntype: organization\n---\nPartner.\n")
    for i in range(300):
        extra = " and [[Partner]]" if i % 60 == 7 else ""
        (vault / f"Leaf {i:03d}.md").write_text(f"---\ntype: note\n---\nAbout [[Hub]]{extra}.\n")


def test_a_hub_shows_its_strongest_neighbours_and_one_more_node(tmp_path: Path) -> None:
    write_hub_vault(tmp_path / "hub")
    for kb in indexed_kb(Settings.for_vault(tmp_path / "hub")):
        for _ in range(3):  # used: Q-value rises above the untouched leaves
            kb.call("kg_get_entity", {"entityId": "note:leaf_150"})
        hood = neighbourhood(kb.store, "project:hub", depth=1, max_nodes=12)
        ids = [n.id for n in hood.nodes if not n.more]
        assert len(hood.nodes) == 12 and ids[0] == "project:hub"
        linked_twice = {f"note:leaf_{i:03d}" for i in range(300) if i % 60 == 7}
        assert linked_twice | {"organization:partner", "note:leaf_150"} <= set(ids)
        (more,) = [n for n in hood.nodes if n.more]
        assert more.more == 301 - (len(ids) - 1) and more.id == "more:project:hub"


def test_overview_groups_by_type_weighted_by_notes(kb: KnowledgeBase) -> None:
    view = overview(kb.store)
    assert view.centre is None
    for node in view.nodes:
        kind = node.id.removeprefix("type:")
        listed = kb.call("app_list_entities", {"type": kind, "limit": 1})["total"]
        assert node.type == kind and node.weight == listed and node.label == f"{kind} ({listed})"
    pair = {frozenset((e.source, e.target)): int(e.label) for e in view.edges}
    assert pair[frozenset(("type:person", "type:project"))] > 0
    two = overview(kb.store, ["person", "project"])
    assert {n.id for n in two.nodes} == {"type:person", "type:project"}
    assert {frozenset((e.source, e.target)): int(e.label) for e in two.edges} == {
        frozenset(("type:person", "type:project")): pair[frozenset(("type:person", "type:project"))]
    }
    people = group_map(kb.store, "type:person", max_nodes=5)
    assert [n.type for n in people.nodes[:4]] == ["person"] * 4
    total = kb.call("app_list_entities", {"type": "person", "limit": 1})["total"]
    assert people.nodes[-1].more == total - 4


def test_the_tools_carry_the_map_and_refuse_bad_input(kb: KnowledgeBase) -> None:
    answer = kb.call("app_graph_map", {"centre": SOFIA, "depth": 2, "maxNodes": 40})
    hood = hood_from_dict(answer["map"])
    assert isinstance(hood, Neighbourhood) and hood == neighbourhood(
        kb.store, SOFIA, depth=2, max_nodes=40
    )
    drilled = hood_from_dict(kb.call("app_graph_map", {"group": "type:person"})["map"])
    assert {n.type for n in drilled.nodes} == {"person"}
    assert hood_from_dict(kb.call("app_graph_map", {})["map"]).centre is None
    fails(kb.call("app_graph_map", {"centre": "person:nobody"}), "NotFoundError", map=None)
    fails(kb.call("kg_graph_image", {"entityId": SOFIA, "depth": 4}), "ValidationError", svg=None)
    fails(kb.call("kg_graph_image", {"entityId": "Sofia"}), "ValidationError", svg=None)
    fails(kb.call("app_graph_map", {"group": "person"}), "ValidationError", map=None)
    fails(kb.call("app_graph_map", {"group": "type:unicorn"}), "NotFoundError", map=None)
    image = kb.call("kg_graph_image", {"entityId": SOFIA, "type": "project"})
    root = ET.fromstring(image["svg"])
    names = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    assert "Sofia Marquez (person)" in names and image["nodeCount"] >= 3


def run(vault: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    return result.exit_code, result.output


def test_kbtui_graph_writes_an_svg_and_draws_in_the_terminal(tui_vault: Path) -> None:
    out = tui_vault.parent / "sofia.svg"
    code, output = run(tui_vault, "graph", "Sofia Marquez", "--depth", "2", "--svg", str(out))
    assert code == 0 and str(out) in output
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert "Sofia Marquez" in (root.findtext("{http://www.w3.org/2000/svg}title") or "")
    code, output = run(tui_vault, "graph", "Sofia Marquez")
    assert code == 0 and "Sofia Marquez" in output and "Priya Raman" in output
    code, output = run(tui_vault, "graph")
    assert code == 0 and "person (14)" in output
    png = tui_vault.parent / "sofia.png"
    code, output = run(tui_vault, "graph", "Sofia Marquez", "--png", str(png))
    assert code == 0 and png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(png) as picture:  # the SVG's own size, rendered
        width = float(ET.fromstring(out.read_text(encoding="utf-8")).get("width", 0))
        assert picture.size[0] > 500 and width > 500
        colours = picture.convert("RGB").getcolors(1 << 20) or []
        assert len(colours) > 50  # boxes, lines and anti-aliased text, not a blank page
    before = out.read_bytes()
    code, output = run(tui_vault, "graph", "Nobody At All", "--svg", str(out))
    assert code == 1 and "no entity named" in output
    assert out.read_bytes() == before  # a failed call leaves the file as it was
