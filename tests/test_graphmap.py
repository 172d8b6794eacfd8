"""The graph map's engine (kbtui.graphmap), no index: layout, the character canvas, the SVG.

Labels must never overlap, at 80x24 and 200x60 and in the SVG; every node of the SVG has its
label and a <title>; moving the selection goes the way the arrow points.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
import xml.etree.ElementTree as ET

import pytest
from rich.cells import get_character_cell_size
from rich.text import Text

from kbtui.graphmap.canvas import Frame, draw, label_of, nearest, shorten
from kbtui.graphmap.colours import hood_palette, legend
from kbtui.graphmap.layout import clear_cache, layout
from kbtui.graphmap.model import (
    Layout,
    MapEdge,
    MapNode,
    Neighbourhood,
    hood_from_dict,
    hood_to_dict,
)
from kbtui.graphmap.svg import CHAR, to_svg
from tests.graphmap_kit import made_up

SVG = "{http://www.w3.org/2000/svg}"
SIZES = [(80, 24), (200, 60)]


def overlapping(boxes: dict[str, tuple[int, int, int]]) -> list[tuple[str, str]]:
    """Pairs of labels that share a cell or touch on one row (they would read as one)."""
    bad = []
    for (a, (ca, ra, la)), (b, (cb, rb, lb)) in itertools.combinations(boxes.items(), 2):
        if ra == rb and ca < cb + lb + 1 and cb < ca + la + 1:
            bad.append((a, b))
    return bad


def cells(line: str, col: int, size: int) -> str:
    """The characters in terminal cells col .. col + size - 1 (a CJK character is two cells)."""
    out, at = "", 0
    for char in line:
        if col <= at < col + size or (get_character_cell_size(char) == 0 and out):
            out += char
        at += get_character_cell_size(char)
    return out


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("n", [12, 60, 200])
def test_terminal_labels_never_overlap(width: int, height: int, n: int) -> None:
    hood = made_up(n, seed=n, more=37)
    frame = draw(layout(hood), width, height, selected="n:5")
    assert len(frame.lines) == height
    assert all(line.cell_len == width for line in frame.lines)
    assert overlapping(frame.boxes) == []
    assert "n:0" in frame.boxes and "n:5" in frame.boxes  # the centre and the selection
    for key, (col, row, size) in frame.boxes.items():  # each label is there, whole, no edge on it
        assert col >= 0 and col + size <= width and 0 <= row < height
        shown = cells(frame.lines[row].plain, col, size)
        node = hood.node(key)
        assert node is not None and shown == shorten(label_of(node), size)
    if n <= 60 and width == 200:
        assert len(frame.boxes) == len(hood.nodes)  # room for every label
    if n == 12:
        assert len(frame.boxes) == len(hood.nodes)


def test_a_crowded_small_terminal_shortens_labels_before_leaving_any_out() -> None:
    hood = made_up(60, seed=3)
    frame = draw(layout(hood), 80, 24)
    assert len(frame.boxes) >= 55
    assert any(cells(frame.lines[r].plain, c, s).endswith("…") for c, r, s in frame.boxes.values())


def test_labels_are_coloured_by_type_and_the_selection_stands_out() -> None:
    hood = made_up(12, seed=1)
    frame = draw(layout(hood), 200, 60, selected="n:3")
    colours = hood_palette(hood)
    for key, (col, row, _) in frame.boxes.items():
        style = frame.lines[row].get_style_at_offset(_console(), col)
        node = hood.node(key)
        assert node is not None and style.color is not None
        assert style.color.triplet is not None and style.color.triplet.hex == colours[node.type]
        assert bool(style.reverse) is (key == "n:3")


def test_no_two_types_of_a_map_share_a_colour() -> None:
    kinds = ["template", "category", "reference", "clipping", "attachment", "note", "daily"]
    kinds += ["recipe", "book", "place", "podcast", "game", "company", "person", "project"]
    hood = Neighbourhood(
        "a0", tuple(MapNode(f"a{i}", kind, kind) for i, kind in enumerate(kinds)), ()
    )
    colours = [colour for _, colour in legend(hood)]
    assert len(colours) == len(kinds) == len(set(colours))
    assert dict(legend(hood)) == hood_palette(hood)


def _console() -> object:
    from rich.console import Console

    return Console(width=200)


def test_edges_are_drawn_between_labels_and_edge_labels_only_on_request() -> None:
    hood = made_up(8, seed=2)
    plain = draw(layout(hood), 120, 40)
    braille = sum(1 for line in plain.lines for ch in line.plain if 0x2800 < ord(ch) <= 0x28FF)
    assert braille > 20
    assert "works_on" not in "".join(line.plain for line in plain.lines)
    labelled = draw(layout(hood), 120, 40, edge_labels=True)
    assert "works_on" in "".join(line.plain for line in labelled.lines)
    assert overlapping(labelled.boxes) == []


def test_layout_is_deterministic_in_the_unit_square_and_cached() -> None:
    hood = made_up(60, seed=4)
    first = layout(hood)
    assert layout(hood) is first  # cached per neighbourhood
    again = layout(Neighbourhood(hood.centre, hood.nodes, hood.edges), seed=0)
    assert again.pos == first.pos
    assert set(first.pos) == {n.id for n in hood.nodes}
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in first.pos.values())
    assert layout(hood, seed=1).pos != first.pos


def test_an_edited_map_keeps_its_shape_from_the_previous_layout() -> None:
    """A note saved while the map is open: one node more, the others come back in another
    order (their ranking moved). From the previous layout they stay put; laid out afresh
    they would be shuffled."""
    hood = made_up(60, seed=10)
    before = layout(hood)
    nodes = (*hood.nodes[:1], *hood.nodes[1:][::-1], MapNode("new", "New note", "person"))
    edited = Neighbourhood(hood.centre, nodes, (*hood.edges, MapEdge("n:1", "new")))

    def moved(after: Layout) -> float:
        return statistics.median(math.dist(after.pos[k], before.pos[k]) for k in before.pos)

    kept = layout(edited, previous=before)
    assert layout(edited) is kept and "new" in kept.pos
    clear_cache()
    assert moved(kept) < 0.08 and moved(layout(edited)) > 3 * moved(kept)


def test_layout_of_200_nodes_is_quick() -> None:
    """The goal is <= 150 ms (bench/graph_layout.py measures it); the test bounds this
    thread's CPU time, which a loaded machine does not stretch as it does wall time."""
    hood = made_up(200, seed=5)
    started = time.thread_time()
    layout(hood, seed=99)
    assert time.thread_time() - started < 1.5


def test_a_full_small_terminal_draws_quickly() -> None:
    """200 labels cannot all fit in 80x24: the ones left over must not search for long (this
    took 3.4 s before labels were placed row by row; ~40 ms now). CPU time, not wall time."""
    placed = layout(made_up(200, seed=9))
    started = time.thread_time()
    frame = draw(placed, 80, 24)
    assert time.thread_time() - started < 1.0 and 60 < len(frame.boxes) < 200


def test_nearest_goes_the_way_the_arrow_points() -> None:
    frame = Frame(
        [Text(" " * 40) for _ in range(10)],
        {"mid": (18, 5, 4), "right": (30, 5, 4), "far_right": (36, 5, 3), "up": (17, 1, 5),
         "down_left": (2, 9, 4)},
    )  # fmt: skip
    assert nearest(frame, "mid", "right") == "right"
    assert nearest(frame, "mid", "up") == "up"
    assert nearest(frame, "mid", "down") == "down_left"  # the only one below
    assert nearest(frame, "mid", "left") == "down_left"
    assert nearest(frame, "right", "right") == "far_right"
    assert nearest(frame, "far_right", "right") is None
    assert nearest(frame, "gone", "left") is None
    real = draw(layout(made_up(60, seed=6)), 200, 60)
    for key, (col, row, size) in real.boxes.items():
        for way in ("left", "right", "up", "down"):
            found = nearest(real, key, way)  # type: ignore[arg-type]
            if found is None:
                continue
            c, r, s = real.boxes[found]
            dx, dy = (c + s / 2) - (col + size / 2), r - row
            assert {"left": dx < 0, "right": dx > 0, "up": dy < 0, "down": dy > 0}[way]


def is_node(group: ET.Element) -> bool:
    return "node" in (group.get("class") or "").split()


def svg_boxes(root: ET.Element) -> dict[str, tuple[float, float, float, float]]:
    out = {}
    for group in root.iter(f"{SVG}g"):
        if is_node(group):
            rect = group.find(f"{SVG}rect")
            assert rect is not None
            out[group.get("data-id", "")] = tuple(
                float(rect.get(k, "")) for k in ("x", "y", "width", "height")
            )
    return out  # type: ignore[return-value]


@pytest.mark.parametrize("n", [3, 12, 200])
def test_svg_parses_names_every_node_and_no_two_labels_overlap(n: int) -> None:
    hood = made_up(n, seed=7, more=12)
    root = ET.fromstring(to_svg(layout(hood), title="Map of <n:0> & co"))
    assert root.tag == f"{SVG}svg" and root.findtext(f"{SVG}title") == "Map of <n:0> & co"
    nodes = [g for g in root.iter(f"{SVG}g") if is_node(g)]
    assert {g.get("data-id") for g in nodes} == {node.id for node in hood.nodes}
    for group in nodes:
        node = hood.node(group.get("data-id", ""))
        assert node is not None
        title, text = group.findtext(f"{SVG}title") or "", group.findtext(f"{SVG}text") or ""
        assert title.startswith(label_of(node) if node.more else node.label)
        assert text and (text == node.label or text.endswith("…") or node.more)
    boxes = svg_boxes(root)
    for (a, (xa, ya, wa, ha)), (b, (xb, yb, wb, hb)) in itertools.combinations(boxes.items(), 2):
        assert not (xa < xb + wb and xb < xa + wa and ya < yb + hb and yb < ya + ha), (a, b)
    assert float(root.get("font-size", "0")) >= 12  # readable at 200 nodes: the page grows
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    listed = {t.text for t in legend.iter(f"{SVG}text")}
    assert {node.type for node in hood.nodes} <= listed
    swatches = [r.get("fill") for r in legend.iter(f"{SVG}rect")]
    kinds = [t.text for t in legend.iter(f"{SVG}text")][1:]  # after "Types:"
    style = root.findtext(f"{SVG}style") or ""
    for group in nodes:  # each box is in its type's colour, the one the legend shows
        node = hood.node(group.get("data-id", ""))
        (number,) = [c[1:] for c in (group.get("class") or "").split() if c[:1] == "k"]
        assert node is not None and kinds[int(number)] == ("more" if node.more else node.type)
        assert f".k{number} rect{{fill:{swatches[int(number)]};" in style
    page = float(root.get("width", "0"))
    ends = [
        float(t.get("x", "0")) + 20 + len(t.text or "") * CHAR for t in legend.iter(f"{SVG}text")
    ]
    assert max(ends) <= page  # the legend's page margin is 20


def test_hood_round_trips_through_json() -> None:
    import json

    hood = made_up(20, seed=8, more=5)
    assert hood_from_dict(json.loads(json.dumps(hood_to_dict(hood)))) == hood
