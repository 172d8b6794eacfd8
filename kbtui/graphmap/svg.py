"""The same layout as a standalone SVG: boxed labels in type colours, edges, a legend, titles.

Every node is a labelled box with a <title> (the full name and type, shown on hover); boxes are
placed without overlap (kbtui.graphmap.place) and the picture grows until every label fits,
so 200 nodes stay readable. Monospace text makes a label's width exact to compute.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from rich.cells import cell_len

from kbtui.graphmap.colours import kind_of, legend
from kbtui.graphmap.model import Layout, MapNode
from kbtui.graphmap.place import Rows, place

FONT = 12.0
CHAR = FONT * 0.6  # monospace advance
PAD_X, BOX_H = 6.0, 20.0
PITCH, GAP_X = BOX_H + 4.0, 6.0  # rows of labels, and the space between two on a row
Box = tuple[float, float, float, float]  # x, y, width, height
MAX_LABEL = 32
HEADER, LEGEND_ROW = 34.0, 22.0
LEGEND_X, LEGEND_COL = 70, 150  # the legend's first swatch, and the width of one entry


def label_of(node: MapNode) -> str:
    text = f"+{node.more} more" if node.more else " ".join(node.label.split()) or node.id
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def box_width(node: MapNode) -> float:
    return cell_len(label_of(node)) * CHAR + 2 * PAD_X  # a CJK character is two wide


def _boxes(layout: Layout, width: float, height: float) -> dict[str, Box] | None:
    """Every label placed without overlap in width x height, or None when some do not fit."""
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
    return {key: (x, row * PITCH, sizes[key], BOX_H) for key, (x, row) in got.items()}


def to_svg(layout: Layout, *, title: str) -> str:
    """A complete SVG document: parses as XML, opens in any browser."""
    count = max(len(layout.hood.nodes), 1)
    width = max(720.0, 130.0 * math.sqrt(count))
    height = width * 0.62
    boxes = _boxes(layout, width, height)
    while boxes is None:
        width, height = width * 1.2, height * 1.2
        boxes = _boxes(layout, width, height)
    kinds = legend(layout.hood)
    per_row = max(1, int((width - LEGEND_X) // LEGEND_COL))
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
        *_legend(kinds, per_row, 20.0, HEADER + height + 16),
        "</svg>",
    ]
    return "\n".join(out) + "\n"


def _mid(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _edges(layout: Layout, boxes: dict[str, Box]) -> list[str]:
    """All edges as one path: a 60-node map has ~300 of them, and an assistant reads the
    SVG through its context (kg_graph_image), so every byte an edge takes counts."""
    steps = []
    for edge in layout.hood.edges:
        if edge.source in boxes and edge.target in boxes:
            (x1, y1), (x2, y2) = _mid(boxes[edge.source]), _mid(boxes[edge.target])
            steps.append(f"M{x1:.0f} {y1:.0f}L{x2:.0f} {y2:.0f}")
    if not steps:
        return []
    return [
        '<path class="edges" fill="none" stroke="#9aa0a6" stroke-opacity="0.7" '
        f'd="{"".join(steps)}"/>'
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
            f"{escape(label_of(node))}</text></g>"
        )
    out.append("</g>")
    return out


def _legend(kinds: list[tuple[str, str]], per_row: int, x0: float, y0: float) -> list[str]:
    out = [f'<g class="legend" transform="translate({x0:.0f} {y0:.0f})">']
    out.append('<text x="0" y="12" fill="#444">Types:</text>')
    for i, (kind, colour) in enumerate(kinds):
        col, row = i % per_row, i // per_row
        x, y = LEGEND_X + col * LEGEND_COL, row * LEGEND_ROW
        out.append(
            f'<rect x="{x}" y="{y}" width="14" height="14" rx="3" fill="{tint(colour)}" '
            f'stroke="{colour}"/>'
            f'<text x="{x + 20}" y="{y + 12}" fill="#222">{escape(kind[:16])}</text>'
        )
    out.append("</g>")
    return out
