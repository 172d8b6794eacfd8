"""Place a neighbourhood in the unit square with a force-directed layout (igraph, C code).

Chosen by bench/graph_layout.py over networkx and rustworkx (docs/graph-map.md has the figures).
The centre is pinned where the forces start, so it ends near the middle; positions are
stretched to fill the square, since the canvas and the SVG are wider than tall anyway.
Deterministic for a given seed; cached per (neighbourhood, seed), so a redraw or a resize
reuses it. After an edit (a note saved while the map is open) pass the map's last layout as
`previous`: the nodes it had start where they were and the forces run cool, so the picture
changes where the graph did instead of being shuffled.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict

import igraph
import numpy as np

from kbtui.graphmap.model import Layout, Neighbourhood

MARGIN = 0.02
TURN = 0.5  # how far angles move toward even spacing around the centre
ROOM_CAP, ROOM_PAD = 32, 6  # a node's share of the turn: its label's length, capped, + a pad
HOLE = 0.25  # the nearest neighbour's radius, as a share of the farthest's: room round the centre
FAR = 1e9  # no bound
ITERATIONS = 300
WARM_ITERATIONS, WARM_TEMPERATURE = 100, 0.3  # from a previous layout: settle, do not reshape
CACHED = 64

_cache: OrderedDict[tuple[Neighbourhood, int], Layout] = OrderedDict()
_lock = threading.Lock()
_rng_lock = threading.Lock()


def layout(hood: Neighbourhood, *, seed: int = 0, previous: Layout | None = None) -> Layout:
    """Positions for every node of `hood`, unit square, y down (the first answer for a
    neighbourhood is the one kept: `previous` only shapes a layout not made yet)."""
    key = (hood, seed)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    made = _make(hood, seed, previous)
    with _lock:
        _cache[key] = made
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    return made


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _make(hood: Neighbourhood, seed: int, previous: Layout | None) -> Layout:
    ids = [node.id for node in hood.nodes]
    if len(ids) <= 1:
        return Layout(hood, {key: (0.5, 0.5) for key in ids})
    index = {key: i for i, key in enumerate(ids)}
    pairs = sorted(
        {
            (min(index[e.source], index[e.target]), max(index[e.source], index[e.target]))
            for e in hood.edges
            if e.source in index and e.target in index and e.source != e.target
        }
    )
    scale = math.sqrt(len(ids))
    start = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(len(ids), 2)) * scale
    centre = index.get(hood.centre or "")
    warm = previous is not None and any(key in previous.pos for key in ids)
    if previous is not None and warm:
        start = _from(previous, ids, pairs, start, scale)
    coords = forces(len(ids), pairs, start, centre, warm=warm)
    room = np.array([min(len(node.label), ROOM_CAP) + ROOM_PAD for node in hood.nodes], float)
    return Layout(hood, dict(zip(ids, _unit(coords, centre, room), strict=True)))


def _from(
    previous: Layout, ids: list[str], pairs: list[tuple[int, int]], start: np.ndarray, scale: float
) -> np.ndarray:
    """Start where the previous layout had each node; a new node beside its neighbours."""
    out = start / 10.0
    known = np.zeros(len(ids), dtype=bool)
    for i, key in enumerate(ids):
        if key in previous.pos:
            x, y = previous.pos[key]
            out[i] = ((x - 0.5) * 2 * scale, (y - 0.5) * 2 * scale)
            known[i] = True
    for new in np.flatnonzero(~known).tolist():
        near = [b if a == new else a for a, b in pairs if new in (a, b)]
        near = [j for j in near if known[j]]
        if near:
            out[new] = out[near].mean(axis=0) + start[new] / 10.0
    return out


def forces(
    n: int, edges: list[tuple[int, int]], start: np.ndarray, centre: int | None, warm: bool = False
) -> np.ndarray:
    """Fruchterman-Reingold from `start`, node `centre` pinned at the origin."""
    start = start.copy()
    pin: dict[str, list[float]] = {}
    if centre is not None:  # pinned by equal lower and upper bounds
        start[centre] = (0.0, 0.0)
        low, high = [-FAR] * n, [FAR] * n
        low[centre] = high[centre] = 0.0
        pin = {"minx": low, "maxx": high, "miny": low, "maxy": high}
    graph = igraph.Graph(n=n, edges=edges)
    steps = {"niter": WARM_ITERATIONS, "start_temp": WARM_TEMPERATURE} if warm else {}
    # igraph draws from Python's `random` module (nodes that meet are pushed apart at
    # random): give it its own generator, seeded by the start, so a layout is repeatable
    # whatever else used `random` before.
    with _rng_lock:
        igraph.set_random_number_generator(random.Random(start.tobytes()))
        try:
            found = graph.layout_fruchterman_reingold(
                seed=start.tolist(), **{"niter": ITERATIONS, **steps}, **pin
            )
        finally:
            igraph.set_random_number_generator(random)
    return np.array(found.coords)


def _unit(
    coords: np.ndarray, centre: int | None, room: np.ndarray | None = None
) -> list[tuple[float, float]]:
    """Into [MARGIN, 1 - MARGIN] around the centre (or the middle of the nodes).

    A force layout throws leaves far out and crowds the core; scaled linearly, the core's
    labels then fight for a few cells. Radii are evened out by rank (the k-th nearest of n
    node gets radius sqrt(k / n): even density over the disc) and angles kept, so who is
    near whom and on which side stays as the forces left it. Around a centre the radii start
    at HOLE: packed against it, its neighbours' labels and the edges into it made a knot.
    Angles move halfway (TURN) toward even spacing, order kept: a tight cluster (a
    hub's weekly notes, all linked) would otherwise wall off one side of the map.
    """
    middle = coords[centre] if centre is not None else coords.mean(axis=0)
    offset = coords - middle
    radius = np.hypot(offset[:, 0], offset[:, 1])
    order = np.argsort(radius, kind="stable")
    even = np.empty(len(radius))
    even[order] = np.sqrt(np.arange(len(radius)) / max(len(radius) - 1, 1))
    if centre is None:  # the overview: no centre to spread round
        scale = np.divide(even, radius, out=np.zeros_like(radius), where=radius > 0)
        spread = offset * scale[:, None]
    else:  # the first ring off the centre: its labels and the edges into it stay apart
        even = np.where(np.arange(len(radius)) == centre, 0.0, HOLE + (1 - HOLE) * even)
        room = np.ones(len(radius)) if room is None else room
        angle = _even_angles(np.arctan2(offset[:, 1], offset[:, 0]), radius > 0, room)
        spread = np.column_stack((even * np.cos(angle), even * np.sin(angle)))
    low, span = spread.min(axis=0), np.ptp(spread, axis=0)
    span[span == 0] = 1.0
    scaled = (spread - low) / span
    scaled = MARGIN + scaled * (1 - 2 * MARGIN)
    return [(float(x), float(y)) for x, y in scaled]


def _even_angles(angle: np.ndarray, moved: np.ndarray, room: np.ndarray) -> np.ndarray:
    """Each angle (where `moved`) TURN of the way to evenly spaced ones, in the same order,
    a node's share of the turn as its `room` (a long label needs a wider sector)."""
    out = angle.copy()
    which = np.flatnonzero(moved)
    if len(which) < 2:
        return out
    order = which[np.argsort(angle[which], kind="stable")]
    share = room[order] / room[order].sum()
    steps = 2 * math.pi * (np.cumsum(share) - share / 2)
    shift = np.angle(np.exp(1j * (angle[order] - steps)).mean())  # the best even start
    gap = np.angle(np.exp(1j * (steps + shift - angle[order])))  # shortest way round
    out[order] = angle[order] + TURN * gap
    return out
