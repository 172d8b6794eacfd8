"""The map as a picture reads (issue 42, item 9): whole names where there is room, the whole
legend, no empty boxes for emoji in the PNG, a centre with room round it, and the cross links
faded behind the edges that say how each node is reached. Pure: no index, no TUI."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.cells import cell_len

from kbtui.graphmap.canvas import (
    EDGE_STYLE,
    FAINT_EDGE_STYLE,
    HOT_EDGE_STYLE,
    MAX_LABEL,
    draw,
)
from kbtui.graphmap.layout import layout
from kbtui.graphmap.model import MapEdge, MapNode, Neighbourhood, spine
from kbtui.graphmap.place import Rows
from kbtui.graphmap.png import (
    FIRST,
    _cmap,
    drawable,
    font_files,
    is_symbol,
    missing,
    system_fonts,
    to_png,
)
from kbtui.graphmap.svg import CHAR, to_svg
from tests.graphmap_kit import made_up

SVG = "{http://www.w3.org/2000/svg}"
LONG = "2021-09-04 View transclusions in edit mode & an end to early bird pricing"


def hub(long: str = LONG) -> Neighbourhood:
    """obsidian-hub's shape: a centre, 25 weekly notes all linked together, 30 plugins."""
    nodes = [MapNode("c", "dataview", "community_expansions")]
    nodes += [MapNode(f"w{i}", f"{long} {i}", "community") for i in range(25)]
    nodes += [MapNode(f"p{i}", f"plugin {i}", "showcases_templates") for i in range(30)]
    edges = [MapEdge("c", n.id) for n in nodes[1:]]
    edges += [MapEdge(f"w{i}", f"w{j}") for i in range(25) for j in range(i + 1, 25)]
    return Neighbourhood("c", tuple(nodes), tuple(edges))


def few(long: str = LONG) -> Neighbourhood:
    nodes = (MapNode("c", "Steph Ango", "reference"), MapNode("m", long, "meeting"))
    nodes += tuple(MapNode(f"n{i}", f"note {i}", "note") for i in range(4))
    return Neighbourhood("c", nodes, tuple(MapEdge("c", n.id) for n in nodes[1:]))


def test_a_terminal_label_is_whole_where_the_row_has_room() -> None:
    """kepano's map on 160 columns cut "2023-09-12 Meeting with…" with half the row empty."""
    assert cell_len(LONG) > MAX_LABEL
    frame = draw(layout(few()), 160, 48, selected="c")
    _, row, size = frame.boxes["m"]
    assert size == cell_len(LONG)
    assert LONG in frame.lines[row].plain
    small = draw(layout(few()), 40, 12)  # no room: shortened, never over a neighbour
    assert "…" in "".join(line.plain for line in small.lines)


def test_widened_labels_keep_clear_of_their_neighbours() -> None:
    rows = Rows(100.0, 1, 1.0)
    for x, size in ((10.0, 10.0), (30.0, 5.0), (60.0, 10.0)):
        rows.take(x, 0, size)
    left, size = rows.widen(0, 30.0, 5.0, 80.0, True, spare=1.0)
    assert (left, size) == (22.0, 36.0)  # 20 + gap + spare .. 60 - gap - spare
    assert rows.taken[0] == [(10.0, 20.0), (22.0, 58.0), (60.0, 70.0)]
    assert rows.widen(0, 60.0, 10.0, 12.0, False) == (59.0, 12.0)  # centre kept


def svg_root(hood: Neighbourhood) -> ET.Element:
    return ET.fromstring(to_svg(layout(hood), title="map"))


def test_an_svg_label_is_whole_where_the_row_has_room() -> None:
    texts = {
        g.get("data-id"): g.findtext(f"{SVG}text")
        for g in svg_root(few()).iter(f"{SVG}g")
        if "node" in (g.get("class") or "").split()
    }
    assert texts["m"] == LONG  # was cut at 32 characters


def test_no_legend_entry_is_cut_or_overlaps_the_next() -> None:
    root = svg_root(hub())
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    texts = list(legend.iter(f"{SVG}text"))[1:]  # after "Types:"
    assert {t.text for t in texts} == {"community", "community_expansions", "showcases_templates"}
    spans = [
        (float(t.get("y", "0")), float(t.get("x", "0")), len(t.text or "") * CHAR) for t in texts
    ]
    for (ya, xa, wa), (yb, xb, wb) in itertools.combinations(spans, 2):
        assert ya != yb or xa + wa < xb - 20 or xb + wb < xa - 20  # a swatch fits between
    page = float(root.get("width", "0"))
    assert all(x + w + 20 <= page for _, x, w in spans)


def test_an_emoji_in_a_title_is_drawn_by_a_bundled_font() -> None:
    """obsidian-hub's `🗂️ hub` showed an empty box: DejaVu Sans Mono has no emoji."""
    files = font_files()
    assert files, "the manimgx-fonts wheel (a dependency) is missing"
    svg = to_svg(layout(few("🗂️ 02.04 Auxiliary Tools ⭐ by Category")), title="map")
    for text in ET.fromstring(drawable(svg, files)).iter(f"{SVG}text"):
        for char in text.text or "":
            assert not is_symbol(char) or any(ord(char) in _cmap(f) for f in files), char
    assert to_png(svg).startswith(b"\x89PNG")


def test_a_symbol_no_font_has_is_dropped_cleanly() -> None:
    """Without the fonts (or for a symbol none has), the words stay and the symbol goes."""
    svg = to_svg(layout(few("🗂️ hub \ue000 ok")), title="🗂️ hub")
    texts = [t.text for t in ET.fromstring(drawable(svg, [])).iter(f"{SVG}text")]
    assert "hub ok" in texts and "hub" in texts
    assert not any(is_symbol(c) for t in texts for c in t or "")
    private = [t.text for t in ET.fromstring(drawable(svg, font_files())).iter(f"{SVG}text")]
    assert "🗂️ hub ok" in private  # the emoji drawn, the private-use character dropped


def test_a_symbol_only_a_system_font_has_is_kept() -> None:
    """resvg loads the system's fonts too: DejaVu's ★ and ✓ are not in the bundled ones."""
    bundled = [f for f in font_files() if Path(f).name.startswith(FIRST)]
    theirs = {chr(c) for f in system_fonts()[:1] for c in _cmap(f) if is_symbol(chr(c))}
    only = sorted(c for c in theirs if missing({c}, bundled))
    if not only:
        pytest.skip("no system font with a symbol the bundled fonts lack")
    assert missing(set(only[:3]), bundled, budget=5.0) == set()
    assert missing(set(only[:3]), bundled) == set(only[:3])  # no budget: not looked for


def test_the_centre_has_room_round_it_and_a_cluster_does_not_take_one_side() -> None:
    """The hub's 25 linked weekly notes were pulled into one knot beside the centre."""
    pos = layout(hub()).pos
    cx, cy = pos["c"]
    dist = [math.hypot(x - cx, y - cy) for key, (x, y) in pos.items() if key != "c"]
    assert min(dist) / max(dist) >= 0.25  # was 0.14
    angles = sorted(math.atan2(y - cy, x - cx) for key, (x, y) in pos.items() if key != "c")
    gaps = [b - a for a, b in itertools.pairwise(angles)] + [angles[0] + 2 * math.pi - angles[-1]]
    assert math.degrees(max(gaps)) <= 36  # was 50


def test_the_spine_reaches_every_node_once() -> None:
    hood = made_up(60, seed=5, more=9)
    chosen = spine(hood)
    reached = {hood.edges[i].source for i in chosen} | {hood.edges[i].target for i in chosen}
    assert len(chosen) == len(hood.nodes) - 1 and reached == {n.id for n in hood.nodes}


def test_svg_cross_links_are_faint_and_the_spine_plain() -> None:
    root = svg_root(hub())
    paths = {p.get("class"): p.get("d", "") for p in root.iter(f"{SVG}path")}
    assert paths["edges"].count("M") == 55  # one per node
    assert paths["edges faint"].count("M") == 300  # the weekly notes' links among themselves


@pytest.mark.parametrize(("width", "height", "faint"), [(200, 60, True), (80, 24, False)])
def test_terminal_cross_links_are_faint_and_left_out_when_small(
    width: int, height: int, faint: bool
) -> None:
    hood = made_up(60, seed=5)  # 89 edges: room for all at 200x60, not at 80x24
    frame = draw(layout(hood), width, height, selected="n:3")
    looks = {
        span.style
        for line in frame.lines
        for span in line.spans
        if any(0x2800 < ord(c) <= 0x28FF for c in line.plain[span.start : span.end])
    }
    assert {HOT_EDGE_STYLE, EDGE_STYLE} <= looks
    assert (FAINT_EDGE_STYLE in looks) is faint
