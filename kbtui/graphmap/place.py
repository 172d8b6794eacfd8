"""Label placement without overlap: each label takes the free spot nearest its layout position.

Labels sit on rows (terminal rows; in the SVG, bands one box high), so a row is a sorted list
of taken intervals and the nearest free spot is found among its gaps: no search over offsets,
a few microseconds a label even when the map is full. Greedy, most important label first
(the caller orders them); a label that finds no room within reach is left out, so the caller
can shrink it and try again. Labels never overlap, by construction: two on one row keep
`gap` apart.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass, field

Spot = tuple[float, int]  # x of the left edge, row


@dataclass
class Rows:
    """Taken intervals per row; x is continuous (cells or pixels), rows are whole."""

    width: float
    count: int
    gap: float
    taken: list[list[tuple[float, float]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.taken = [[] for _ in range(self.count)]

    def take(self, x: float, row: int, size: float) -> None:
        bisect.insort(self.taken[row], (x, x + size))

    def widen(
        self, row: int, x: float, size: float, want: float, whole: bool, spare: float = 0.0
    ) -> tuple[float, float]:
        """Grow the label at (x, row) toward `want` wide into the free space beside it, its
        centre kept where the room allows: (new x, new size). A label placed short on a crowded
        map still reads whole where its neighbours leave room (issue 42). `spare`: room kept
        beyond `gap` from a neighbour, so two long labels on a row do not read as one."""
        taken = self.taken[row]
        taken.remove((x, x + size))
        space = self.gap + spare
        low = max((end + space for _, end in taken if end <= x), default=0.0)
        high = min((start - space for start, _ in taken if start >= x + size), default=self.width)
        low, high = min(low, x), max(high, x + size)  # never less than it had
        new = max(min(want, high - low), size)
        left = min(max(x + (size - new) / 2, low), high - new)
        if whole:
            new, left = float(math.floor(new)), float(math.ceil(left))
            left = min(left, math.floor(high - new))
        bisect.insort(taken, (left, left + new))
        return left, new

    def nearest_x(self, row: int, want: float, size: float, whole: bool) -> float | None:
        """The left edge nearest `want` where `size` fits on `row`, or None."""
        best: float | None = None
        low = 0.0
        for start, end in [*self.taken[row], (self.width + self.gap, math.inf)]:
            high = start - self.gap - size  # the last left edge before this interval
            if high >= low:
                x = min(max(want, low), high)
                if whole:
                    x = float(min(max(round(x), math.ceil(low)), math.floor(high)))
                    if not low <= x <= high:
                        x = math.nan
                if not math.isnan(x) and (best is None or abs(x - want) < abs(best - want)):
                    best = x
            low = max(low, end + self.gap)
        return best


def place(
    wanted: Iterable[tuple[str, float, float, float]],
    rows: Rows,
    reach: tuple[float, int],
    row_weight: float = 1.0,
    whole: bool = False,
) -> dict[str, Spot]:
    """Place (id, centre x, row wanted, width) labels in order; returns id -> (x, row).

    `reach`: how far a label may move (x, rows); `row_weight`: what one row costs in x units
    (a terminal row is about two columns tall). `whole`: x on whole cells.
    """
    placed: dict[str, Spot] = {}
    for key, cx, cy, size in wanted:
        if size > rows.width:
            continue
        want = min(max(cx - size / 2, 0.0), rows.width - size)
        home = min(max(round(cy), 0), rows.count - 1)
        best: tuple[float, float, int] | None = None
        for step in range(reach[1] + 1):
            if best is not None and (max(step - 0.5, 0.0) * row_weight) ** 2 >= best[0]:
                break
            for row in sorted({home - step, home + step}):
                if not 0 <= row < rows.count:
                    continue
                x = rows.nearest_x(row, want, size, whole)
                if x is None or abs(x - want) > reach[0]:
                    continue
                cost = (x - want) ** 2 + ((row - cy) * row_weight) ** 2
                if best is None or (cost, row) < (best[0], best[2]):
                    best = (cost, x, row)
        if best is not None:
            rows.take(best[1], best[2], size)
            placed[key] = (best[1], best[2])
    return placed
