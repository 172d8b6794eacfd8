"""The map on a character canvas: coloured labels where the layout puts nodes, braille edges.

Labels never overlap (kbtui.graphmap.place); edges are drawn in braille dots (2x4 per cell)
between label centres and never over a label. `Frame.boxes` says where each label landed, so the
TUI can hit-test a click and move the selection with `nearest`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len, get_character_cell_size, set_cell_size
from rich.style import Style
from rich.text import Text

from kbtui.graphmap.colours import hood_palette, kind_of
from kbtui.graphmap.model import Layout, MapNode, spine
from kbtui.graphmap.place import Rows, place

Direction = Literal["left", "right", "up", "down"]
MAX_LABEL = 24
# an edge's cell takes the strongest look of the edges through it: the selection's, then
# the spine (how each node is reached from the centre), then the faded cross links
HOT_EDGE_STYLE = Style(color="white")
EDGE_STYLE = Style(color="grey50")
FAINT_EDGE_STYLE = Style(color="grey27")
EDGE_LABEL_STYLE = Style(color="grey62", italic=True)
LOOKS = (FAINT_EDGE_STYLE, EDGE_STYLE, HOT_EDGE_STYLE)
# cells a frame needs per edge to draw the faint cross links at all: on a small terminal
# they only fill the gaps between labels with dots (the spine and the selection's stay)
FAINT_ROOM = 100
# braille dot bits by (x in 0..1, y in 0..3) inside one cell
DOTS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


@dataclass
class Frame:
    """Lines of exactly `width` cells, and where each label sits: id -> (col, row, len)."""

    lines: list[Text]
    boxes: dict[str, tuple[int, int, int]]


def label_of(node: MapNode) -> str:
    if node.more:
        return f"+{node.more} more"
    return " ".join(node.label.split()) or node.id


def shorten(text: str, size: int) -> str:
    """At most `size` terminal cells (a CJK character takes two), with an ellipsis if cut."""
    if cell_len(text) <= size:
        return text
    return set_cell_size(text, max(size - 1, 1)).rstrip() + "…"


def _order(layout: Layout, selected: str | None) -> list[MapNode]:
    centre = layout.hood.centre

    def rank(node: MapNode) -> tuple[int, float, str]:
        first = 0 if node.id == centre else 1 if node.id == selected else 2
        return first, -node.weight, node.id

    return sorted((n for n in layout.hood.nodes if n.id in layout.pos), key=rank)


def place_labels(
    layout: Layout, width: int, height: int, selected: str | None = None
) -> dict[str, tuple[int, int, int]]:
    """Where each label goes, in cells; a label that finds no room shrinks, then is left out."""
    nodes = _order(layout, selected)
    limit = max(4, min(MAX_LABEL, width // 3))
    pad = min(limit // 2, width // 4)
    span_x, span_y = max(width - 1 - 2 * pad, 1), max(height - 1, 1)
    rows = Rows(float(width), height, 1.0)
    reach = (max(10.0, width / 4), max(3, height // 4))
    boxes: dict[str, tuple[int, int, int]] = {}
    for size in (limit, *(s for s in (10, 5) if s < limit)):
        todo = []
        for node in nodes:
            if node.id in boxes:
                continue
            x, y = layout.pos[node.id]
            text = shorten(label_of(node), size)
            todo.append((node.id, pad + x * span_x + 0.5, y * span_y, float(cell_len(text))))
        sizes = {t[0]: int(t[3]) for t in todo}
        got = place(todo, rows, reach, row_weight=2.0, whole=True)
        for key, (bx, by) in got.items():
            boxes[key] = (int(bx), by, sizes[key])
    most = max(limit, width // 2)
    for node in nodes:  # then each grows into the room its neighbours left, most important first
        if node.id in boxes:
            col, row, size = boxes[node.id]
            want = min(cell_len(label_of(node)), most)
            if want > size:
                left, new = rows.widen(row, float(col), float(size), float(want), True, spare=1.0)
                text = shorten(label_of(node), int(new))  # a wide character may not fit
                boxes[node.id] = (int(left), row, cell_len(text))
    return boxes


def _edge_dots(
    start: tuple[int, int], end: tuple[int, int]
) -> list[tuple[int, int]]:  # Bresenham on the braille grid
    (x0, y0), (x1, y1) = start, end
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err, dots = dx + dy, []
    while True:
        dots.append((x0, y0))
        if (x0, y0) == (x1, y1):
            return dots
        twice = 2 * err
        if twice >= dy:
            err, x0 = err + dy, x0 + sx
        if twice <= dx:
            err, y0 = err + dx, y0 + sy


def draw(
    layout: Layout,
    width: int,
    height: int,
    *,
    selected: str | None = None,
    edge_labels: bool = False,
) -> Frame:
    """Draw the layout into width x height cells: labels by type colour, edges in braille."""
    width, height = max(width, 1), max(height, 1)
    boxes = place_labels(layout, width, height, selected)
    label_cell: dict[tuple[int, int], str] = {}
    for key, (col, row, size) in boxes.items():
        for c in range(col, col + size):
            label_cell[(c, row)] = key
    bits: dict[tuple[int, int], int] = {}
    look: dict[tuple[int, int], int] = {}  # cell -> the strongest edge through it (LOOKS)
    centres = {k: (2 * c + size, 4 * r + 2) for k, (c, r, size) in boxes.items()}
    plain = spine(layout.hood)
    faint = width * height >= FAINT_ROOM * len(layout.hood.edges)
    for i, edge in enumerate(layout.hood.edges):
        if edge.source not in centres or edge.target not in centres:
            continue
        strength = 2 if selected in (edge.source, edge.target) else int(i in plain)
        if strength == 0 and not faint:
            continue
        for x, y in _edge_dots(centres[edge.source], centres[edge.target]):
            cell = (x // 2, y // 4)
            if cell in label_cell or not (0 <= cell[0] < width and 0 <= cell[1] < height):
                continue
            bits[cell] = bits.get(cell, 0) | DOTS[x % 2][y % 4]
            look[cell] = max(look.get(cell, 0), strength)
    words = _edge_words(layout, boxes, width, height) if edge_labels else {}
    grid = [[" "] * width for _ in range(height)]
    styles: list[list[Style | None]] = [[None] * width for _ in range(height)]
    for (c, r), value in bits.items():
        grid[r][c] = chr(0x2800 + value)
        styles[r][c] = LOOKS[look[(c, r)]]
    for (c, r), word in words.items():
        _put(grid[r], styles[r], c, word, EDGE_LABEL_STYLE)
    nodes = {n.id: n for n in layout.hood.nodes}
    colours = hood_palette(layout.hood)
    for key, (col, row, size) in boxes.items():
        node = nodes[key]
        text = shorten(label_of(node), size)
        style = _node_style(
            node, colours[kind_of(node)], key == layout.hood.centre, key == selected
        )
        _put(grid[row], styles[row], col, text, style)
    return Frame([_line(grid[r], styles[r]) for r in range(height)], boxes)


def _put(row: list[str], styles: list[Style | None], col: int, text: str, style: Style) -> None:
    """Write text from cell `col`: a wide character fills two cells (the second left empty),
    a combining mark joins the cell before it."""
    for char in text:
        size = get_character_cell_size(char)
        if size == 0 and col > 0:
            row[col - 1] += char
            continue
        row[col], styles[col] = char, style
        if size == 2:
            row[col + 1], styles[col + 1] = "", style
        col += size


def _node_style(node: MapNode, colour: str, centre: bool, selected: bool) -> Style:
    return Style(color=colour, bold=centre or selected, italic=bool(node.more), reverse=selected)


def _line(chars: list[str], styles: list[Style | None]) -> Text:
    text = Text(no_wrap=True, end="")
    run, style = "", styles[0] if styles else None
    for char, cell_style in zip(chars, styles, strict=True):
        if cell_style != style and run:
            text.append(run, style or "")
            run = ""
        run, style = run + char, cell_style
    if run:
        text.append(run, style or "")
    return text


def _edge_words(
    layout: Layout, boxes: dict[str, tuple[int, int, int]], width: int, height: int
) -> dict[tuple[int, int], str]:
    """Edge labels at edge midpoints where they fit beside the node labels (never over one):
    (col, row) -> text."""
    rows = Rows(float(width), height, 1.0)
    for col, row, size in boxes.values():
        rows.take(float(col), row, float(size))
    todo = []
    for i, edge in enumerate(layout.hood.edges):
        if edge.label and edge.source in boxes and edge.target in boxes:
            (c0, r0, s0), (c1, r1, s1) = boxes[edge.source], boxes[edge.target]
            mid_x, mid_y = (c0 + s0 / 2 + c1 + s1 / 2) / 2, (r0 + r1) / 2
            todo.append((f"{i}", mid_x, mid_y, float(cell_len(shorten(edge.label, 14)))))
    got = place(todo, rows, (3.0, 1), row_weight=2.0, whole=True)
    return {
        (int(x), row): shorten(layout.hood.edges[int(key)].label, 14)
        for key, (x, row) in got.items()
    }


def nearest(frame: Frame, from_id: str, direction: Direction) -> str | None:
    """The label nearest `from_id` in a direction (within a 45° cone first, else the half plane)."""
    if from_id not in frame.boxes:
        return None
    col, row, size = frame.boxes[from_id]
    x0, y0 = col + size / 2, row * 2.0  # a row is about two columns tall
    best: tuple[int, float, str] | None = None
    for key, (c, r, s) in frame.boxes.items():
        if key == from_id:
            continue
        dx, dy = c + s / 2 - x0, r * 2.0 - y0
        along, across = {"right": (dx, dy), "left": (-dx, dy), "down": (dy, dx), "up": (-dy, dx)}[
            direction
        ]
        if along <= 0:
            continue
        score = (0 if abs(across) <= along else 1, along + 2 * abs(across), key)
        if best is None or score < best:
            best = score
    return best[2] if best else None
