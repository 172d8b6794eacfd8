"""Label placement without overlap: each label takes the free spot nearest its layout position.

Shared by the canvas (cells) and the SVG (pixels). Greedy, most important label first (the
centre, the selection, then by weight), searching outwards in rings; a label that finds no room
shrinks (ellipsis) before it is given up. Boxes never overlap by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x, y (top left), width, height


@dataclass
class Occupied:
    """Placed boxes, bucketed on a coarse grid so a test against 200 labels stays cheap."""

    gap_x: float
    gap_y: float
    cell: float
    boxes: list[Box]
    grid: dict[tuple[int, int], list[int]]

    @classmethod
    def empty(cls, gap_x: float, gap_y: float, cell: float) -> Occupied:
        return cls(gap_x, gap_y, cell, [], {})

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        x, y, w, h = box
        for i in range(int(x // self.cell) - 1, int((x + w) // self.cell) + 2):
            for j in range(int(y // self.cell) - 1, int((y + h) // self.cell) + 2):
                yield i, j

    def free(self, box: Box) -> bool:
        x, y, w, h = box
        seen: set[int] = set()
        for key in self._keys(box):
            for index in self.grid.get(key, ()):
                if index in seen:
                    continue
                seen.add(index)
                ox, oy, ow, oh = self.boxes[index]
                if (
                    x < ox + ow + self.gap_x
                    and ox < x + w + self.gap_x
                    and y < oy + oh + self.gap_y
                    and oy < y + h + self.gap_y
                ):
                    return False
        return True

    def add(self, box: Box) -> None:
        self.boxes.append(box)
        for key in self._keys(box):
            self.grid.setdefault(key, []).append(len(self.boxes) - 1)


def spiral(step_x: float, step_y: float, rings: int) -> list[tuple[float, float]]:
    """Offsets around (0, 0), nearest first (vertical steps weigh as much as horizontal ones)."""
    offsets = [
        (i * step_x, j * step_y) for i in range(-rings, rings + 1) for j in range(-rings, rings + 1)
    ]
    offsets.sort(key=lambda o: ((o[0] / step_x) ** 2 + (o[1] / step_y) ** 2, abs(o[1]), o[0]))
    return offsets


def place(
    wanted: Iterable[tuple[str, float, float, float, float]],
    bounds: tuple[float, float],
    occupied: Occupied,
    offsets: list[tuple[float, float]],
    snap: Callable[[float], float] = lambda v: v,
) -> dict[str, Box]:
    """Place (id, centre x, centre y, width, height) boxes in order; returns id -> box.

    A box that fits nowhere among `offsets` is left out: the caller shrinks it and tries again.
    """
    width, height = bounds
    placed: dict[str, Box] = {}
    for key, cx, cy, w, h in wanted:
        if w > width or h > height:
            continue
        x0 = min(max(snap(cx - w / 2), 0.0), width - w)
        y0 = min(max(snap(cy - h / 2), 0.0), height - h)
        for dx, dy in offsets:
            x, y = x0 + dx, y0 + dy
            if x < 0 or y < 0 or x + w > width or y + h > height:
                continue
            box = (x, y, w, h)
            if occupied.free(box):
                occupied.add(box)
                placed[key] = box
                break
    return placed
