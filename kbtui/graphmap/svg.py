"""The same layout as a standalone SVG: boxed labels in type colours, edges, a legend, titles.

Every node is a labelled box with a <title> (the full name and type, shown on hover); boxes are
placed without overlap (kbtui.graphmap.place) and the picture grows until every label fits at
MAX_LABEL characters, so 200 nodes stay readable; then each label grows toward its whole
name (up to LONGEST) where its neighbours leave room. Monospace text makes a label's width
exact to compute. Edges off the spine (kbtui.graphmap.model.spine) are drawn faint.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from rich.cells import cell_len

from kbtui.graphmap.canvas import label_of as full_label
from kbtui.graphmap.canvas import shorten
from kbtui.graphmap.colours import kind_of, legend
from kbtui.graphmap.model import Layout, MapNode, spine
from kbtui.graphmap.place import Rows, place

FONT = 12.0
CHAR = FONT * 0.6  # monospace advance
PAD_X, BOX_H = 6.0, 20.0
PITCH, GAP_X = BOX_H + 4.0, 6.0  # rows of labels, and the space between two on a row
Box = tuple[float, float, float, float]  # x, y, width, height
MAX_LABEL, LONGEST = 32, 80  # characters a label is placed at, and may grow to
HEADER, LEGEND_ROW = 34.0, 22.0
ASPECT = 0.62  # height / width of the map
# at most this share of the map under labels to start with: long names (a hub's weekly
# notes) otherwise packed into a wall of boxes where the layout put them
FILL = 0.22
LEGEND_X, SWATCH = 70, 20  # the legend's first swatch, and from a swatch to its name
LEGEND_GAP = 24.0  # between one legend entry's name and the next swatch


def label_of(node: MapNode, size: int = MAX_LABEL) -> str:
    return shorten(full_label(node), size)


def box_width(node: MapNode, size: int = MAX_LABEL) -> float:
    return cells_wide(cell_len(label_of(node, size)))  # a CJK character is two wide


def cells_wide(cells: int) -> float:
    return cells * CHAR + 2 * PAD_X


def _boxes(layout: Layout, width: float, height: float) -> dict[str, Box] | None:
    """Every label placed without overlap in width x height, or None when some do not fit;
    then each grown toward its whole name where the row has room."""
    centre = layout.hood.centre
    nodes = sorted(
        (n for n in layout.hood.nodes if n.id in layout.pos),
        key=lambda n: (n.id != centre, -n.weight, n.id),
    )
    margin = max(box_width(n) for n in nodes) / 2 if nodes else 0.0
    count = max(int(height // PITCH), 1)
    wanted = [
        (
            n.id,
            margin + layout.pos[n.id][0] * (width - 2 * margin),
            layout.pos[n.id][1] * (count - 1),
            box_width(n),
        )
        for n in nodes
    ]
    rows = Rows(width, count, GAP_X)
    got = place(wanted, rows, (width / 4, max(3, count // 4)), row_weight=PITCH)
    if len(got) < len(wanted):
        return None
    sizes = {key: size for key, _, _, size in wanted}
    boxes = {}
    for node in nodes:
        (x, row), size = got[node.id], sizes[node.id]
        want = box_width(node, LONGEST)
        if want > size:
            x, room = rows.widen(row, x, size, want, whole=False)
            size = cells_wide(cell_len(label_of(node, int((room - 2 * PAD_X) / CHAR + 1e-6))))
        boxes[node.id] = (x, row * PITCH, size, BOX_H)
    return boxes


def text_in(node: MapNode, box: Box) -> str:
    """The label as long as its box is wide."""
    return label_of(node, max(round((box[2] - 2 * PAD_X) / CHAR), 1))


def to_svg(layout: Layout, *, title: str) -> str:
    """A complete SVG document: parses as XML, opens in any browser."""
    count = max(len(layout.hood.nodes), 1)
    area = sum(box_width(n) * PITCH for n in layout.hood.nodes) / FILL
    width = max(720.0, 130.0 * math.sqrt(count), math.sqrt(area / ASPECT))
    height = width * ASPECT
    boxes = _boxes(layout, width, height)
    while boxes is None:
        width, height = width * 1.2, height * 1.2
        boxes = _boxes(layout, width, height)
    kinds = legend(layout.hood)
    column = legend_column(kinds)
    width = max(width, LEGEND_X + column)  # a type's name is never cut: the page widens
    per_row = max(1, int((width - LEGEND_X + LEGEND_GAP) // column))
    legend_h = LEGEND_ROW * (1 + math.ceil(len(kinds) / per_row))
    total_w, total_h = width + 40, height + HEADER + legend_h + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
        f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="DejaVu Sans Mono, Menlo, '
        f'Consolas, monospace" font-size="{FONT:.0f}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{total_w:.0f}" height="{total_h:.0f}" fill="#ffffff"/>',
        _style(kinds),
        f'<text x="20" y="24" font-size="16" font-weight="bold" fill="#222">{escape(title)}</text>',
        f'<g transform="translate(20 {HEADER:.0f})">',
        *_edges(layout, boxes),
        *_nodes(layout, boxes, kinds),
        "</g>",
        *_legend(kinds, per_row, column, (20.0, HEADER + height + 16)),
        "</svg>",
    ]
    return "\n".join(out) + "\n"


def _mid(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def legend_column(kinds: list[tuple[str, str]]) -> float:
    """One legend entry's width: swatch, the longest type's whole name, a gap."""
    longest = max((cell_len(kind) for kind, _ in kinds), default=0)
    return SWATCH + longest * CHAR + LEGEND_GAP


EDGE_LOOKS = (  # (class, stroke, opacity, width): cross links faint, the spine plain
    ("edges faint", "#a9aeb4", "0.5", "0.8"),
    ("edges", "#7d838a", "0.9", "1.2"),
)


def _edges(layout: Layout, boxes: dict[str, Box]) -> list[str]:
    """Edges as two paths, the spine (how each node is reached from the centre) over the
    faint cross links: a 60-node map has ~300 edges, and an assistant reads the SVG
    through its context (kg_graph_image), so every byte an edge takes counts."""
    steps: tuple[list[str], list[str]] = ([], [])
    plain = spine(layout.hood)
    for i, edge in enumerate(layout.hood.edges):
        if edge.source in boxes and edge.target in boxes:
            (x1, y1), (x2, y2) = _mid(boxes[edge.source]), _mid(boxes[edge.target])
            steps[i in plain].append(f"M{x1:.0f} {y1:.0f}L{x2:.0f} {y2:.0f}")
    return [
        f'<path class="{name}" fill="none" stroke="{stroke}" stroke-opacity="{opacity}" '
        f'stroke-width="{size}" d="{"".join(drawn)}"/>'
        for drawn, (name, stroke, opacity, size) in zip(steps, EDGE_LOOKS, strict=True)
        if drawn
    ]


def tint(colour: str, share: float = 0.22) -> str:
    """The colour mixed with white: an opaque box, so the edges behind it do not cross
    its words."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * share):02x}" for c in rgb)


def _style(kinds: list[tuple[str, str]]) -> str:
    """Shared looks by class, so a node carries only its place and its words."""
    rules = [
        ".node rect{stroke-width:1.2}",
        ".node text{fill:#1a1a1a}",
        ".centre rect{stroke-width:2.5}",
        ".centre text{font-weight:bold}",
        *(f".k{i} rect{{fill:{tint(c)};stroke:{c}}}" for i, (_, c) in enumerate(kinds)),
    ]
    return "<style>" + "".join(rules) + "</style>"


def _nodes(layout: Layout, boxes: dict[str, Box], kinds: list[tuple[str, str]]) -> list[str]:
    out = ['<g class="nodes">']
    number = {kind: i for i, (kind, _) in enumerate(kinds)}
    for node in layout.hood.nodes:
        if node.id not in boxes:
            continue
        x, y, w, h = boxes[node.id]
        kind = kind_of(node)
        centre = " centre" if node.id == layout.hood.centre else ""
        full = f"+{node.more} more" if node.more else node.label
        out.append(
            f'<g class="node k{number[kind]}{centre}" data-id={quoteattr(node.id)}>'
            f"<title>{escape(full)} ({escape(kind)})</title>"
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="4"/>'
            f'<text x="{x + PAD_X:.0f}" y="{y + h / 2 + FONT * 0.35:.0f}">'
            f"{escape(text_in(node, boxes[node.id]))}</text></g>"
        )
    out.append("</g>")
    return out


def _legend(
    kinds: list[tuple[str, str]], per_row: int, column: float, at: tuple[float, float]
) -> list[str]:
    out = [f'<g class="legend" transform="translate({at[0]:.0f} {at[1]:.0f})">']
    out.append('<text x="0" y="12" fill="#444">Types:</text>')
    for i, (kind, colour) in enumerate(kinds):
        col, row = i % per_row, i // per_row
        x, y = LEGEND_X + col * column, row * LEGEND_ROW
        out.append(
            f'<rect x="{x:.0f}" y="{y}" width="14" height="14" rx="3" fill="{tint(colour)}" '
            f'stroke="{colour}"/>'
            f'<text x="{x + SWATCH:.0f}" y="{y + 12}" fill="#222">{escape(kind)}</text>'
        )
    out.append("</g>")
    return out
