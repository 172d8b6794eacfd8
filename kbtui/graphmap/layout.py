"""Place a neighbourhood in the unit square with a force-directed layout (igraph, C code).

Chosen by bench/graph_layout.py over networkx and rustworkx (docs/graph-map.md has the figures).
The centre is pinned where the forces start, so it ends near the middle; positions are
stretched to fill the square, since the canvas and the SVG are wider than tall anyway.
Deterministic for a given seed; cached per (neighbourhood, seed), so a redraw or a resize reuses it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import igraph
import numpy as np

from kbtui.graphmap.model import Layout, Neighbourhood

MARGIN = 0.02
FAR = 1e9  # no bound
ITERATIONS = 300


def layout(hood: Neighbourhood, *, seed: int = 0) -> Layout:
    """Positions for every node of `hood`, unit square, y down."""
    return _cached(hood, seed)


@lru_cache(maxsize=64)
def _cached(hood: Neighbourhood, seed: int) -> Layout:
    ids = [node.id for node in hood.nodes]
    if not ids:
        return Layout(hood, {})
    if len(ids) == 1:
        return Layout(hood, {ids[0]: (0.5, 0.5)})
    index = {key: i for i, key in enumerate(ids)}
    pairs = {
        (min(index[e.source], index[e.target]), max(index[e.source], index[e.target]))
        for e in hood.edges
        if e.source in index and e.target in index and e.source != e.target
    }
    rng = np.random.default_rng(seed)
    start = rng.uniform(-1.0, 1.0, size=(len(ids), 2)) * math.sqrt(len(ids))
    coords = forces(len(ids), sorted(pairs), start, index.get(hood.centre or ""))
    return Layout(hood, dict(zip(ids, _unit(coords, index.get(hood.centre or "")), strict=True)))


def forces(
    n: int, edges: list[tuple[int, int]], start: np.ndarray, centre: int | None
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
    found = graph.layout_fruchterman_reingold(seed=start.tolist(), niter=ITERATIONS, **pin)
    return np.array(found.coords)


def _unit(coords: np.ndarray, centre: int | None) -> list[tuple[float, float]]:
    """Into [MARGIN, 1 - MARGIN] around the centre (or the middle of the nodes).

    A force layout throws leaves far out and crowds the core; scaled linearly, the core's
    labels then fight for a few cells. Radii are evened out by rank (the k-th nearest of n
    node gets radius sqrt(k / n): even density over the disc) and angles kept, so who is
    near whom and on which side stays as the forces left it.
    """
    middle = coords[centre] if centre is not None else coords.mean(axis=0)
    offset = coords - middle
    radius = np.hypot(offset[:, 0], offset[:, 1])
    order = np.argsort(radius, kind="stable")
    even = np.empty(len(radius))
    even[order] = np.sqrt(np.arange(len(radius)) / max(len(radius) - 1, 1))
    scale = np.divide(even, radius, out=np.zeros_like(radius), where=radius > 0)
    spread = offset * scale[:, None]
    low, span = spread.min(axis=0), np.ptp(spread, axis=0)
    span[span == 0] = 1.0
    scaled = (spread - low) / span
    scaled = MARGIN + scaled * (1 - 2 * MARGIN)
    return [(float(x), float(y)) for x, y in scaled]
