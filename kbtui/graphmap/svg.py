"""The same layout as a standalone SVG: boxed labels in type colours, edges, a legend, titles.

Every node is a labelled box with a <title> (the full name and type, shown on hover); boxes are
placed without overlap (kbtui.graphmap.place) and the picture grows until every label fits,
so 200 nodes stay readable. Monospace text makes a label's width exact to compute.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from rich.cells import cell_len

from kbtui.graphmap.colours import hood_palette, kind_of, legend
from kbtui.graphmap.model import Layout, MapNode
from kbtui.graphmap.place import Box, Occupied, place, spiral

FONT = 12.0
CHAR = FONT * 0.6  # monospace advance
PAD_X, BOX_H = 6.0, 20.0
MAX_LABEL = 32
HEADER, LEGEND_ROW = 34.0, 22.0


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
    span_x, span_y = width - 2 * margin, height - BOX_H
    wanted = [
        (
            n.id,
            margin + layout.pos[n.id][0] * span_x,
            BOX_H / 2 + layout.pos[n.id][1] * span_y,
            box_width(n),
            BOX_H,
        )
        for n in nodes
    ]
    occupied = Occupied.empty(4.0, 3.0, 60.0)
    got = place(wanted, (width, height), occupied, spiral(6.0, 6.0, 14))
    return got if len(got) == len(wanted) else None


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
    legend_h = LEGEND_ROW * (1 + math.ceil(len(kinds) / 6))
    total_w, total_h = width + 40, height + HEADER + legend_h + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
        f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="DejaVu Sans Mono, Menlo, '
        f'Consolas, monospace" font-size="{FONT:.0f}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{total_w:.0f}" height="{total_h:.0f}" fill="#ffffff"/>',
        f'<text x="20" y="24" font-size="16" font-weight="bold" fill="#222">{escape(title)}</text>',
        f'<g transform="translate(20 {HEADER:.0f})">',
        *_edges(layout, boxes),
        *_nodes(layout, boxes),
        "</g>",
        *_legend(kinds, 20.0, HEADER + height + 16),
        "</svg>",
    ]
    return "\n".join(out) + "\n"


def _mid(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _edges(layout: Layout, boxes: dict[str, Box]) -> list[str]:
    out = ['<g class="edges" stroke="#9aa0a6" stroke-width="1" stroke-opacity="0.7">']
    names = {n.id: label_of(n) for n in layout.hood.nodes}
    for edge in layout.hood.edges:
        if edge.source not in boxes or edge.target not in boxes:
            continue
        (x1, y1), (x2, y2) = _mid(boxes[edge.source]), _mid(boxes[edge.target])
        tip = f"{names[edge.source]} → {names[edge.target]}"
        tip += f" ({edge.label})" if edge.label else ""
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}">'
            f"<title>{escape(tip)}</title></line>"
        )
    out.append("</g>")
    return out


def _nodes(layout: Layout, boxes: dict[str, Box]) -> list[str]:
    out = ['<g class="nodes">']
    colours = hood_palette(layout.hood)
    for node in layout.hood.nodes:
        if node.id not in boxes:
            continue
        x, y, w, h = boxes[node.id]
        kind = kind_of(node)
        colour = colours[kind]
        centre = node.id == layout.hood.centre
        full = f"+{node.more} more" if node.more else node.label
        out += [
            f'<g class="node" data-id={quoteattr(node.id)} data-type={quoteattr(kind)}>',
            f"<title>{escape(full)} ({escape(kind)})</title>",
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
            f'fill="{colour}" fill-opacity="0.22" stroke="{colour}" '
            f'stroke-width="{2.5 if centre else 1.2}"/>',
            f'<text x="{x + PAD_X:.1f}" y="{y + h / 2 + FONT * 0.35:.1f}" fill="#1a1a1a"'
            f"{' font-weight=' + quoteattr('bold') if centre else ''}>"
            f"{escape(label_of(node))}</text>",
            "</g>",
        ]
    out.append("</g>")
    return out


def _legend(kinds: list[tuple[str, str]], x0: float, y0: float) -> list[str]:
    out = [f'<g class="legend" transform="translate({x0:.0f} {y0:.0f})">']
    out.append('<text x="0" y="12" fill="#444">Types:</text>')
    for i, (kind, colour) in enumerate(kinds):
        col, row = i % 6, i // 6
        x, y = 70 + col * 150, row * LEGEND_ROW
        out.append(
            f'<rect x="{x}" y="{y}" width="14" height="14" rx="3" fill="{colour}" '
            f'fill-opacity="0.5" stroke="{colour}"/>'
            f'<text x="{x + 20}" y="{y + 12}" fill="#222">{escape(kind[:16])}</text>'
        )
    out.append("</g>")
    return out
