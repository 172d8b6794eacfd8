"""Place a neighbourhood in the unit square with a force-directed layout (igraph, C code).

Chosen by bench/graph_layout.py over networkx and rustworkx (docs/graph-map.md has the figures).
The centre is pinned to the middle so re-centring keeps the eye in one place; positions are
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
    graph = igraph.Graph(n=len(ids), edges=sorted(pairs))
    rng = np.random.default_rng(seed)
    start = rng.uniform(-1.0, 1.0, size=(len(ids), 2)) * math.sqrt(len(ids))
    pin: dict[str, list[float]] = {}
    if hood.centre in index:  # pinned at the origin by equal lower and upper bounds
        start[index[hood.centre]] = (0.0, 0.0)
        low, high = [-FAR] * len(ids), [FAR] * len(ids)
        low[index[hood.centre]] = high[index[hood.centre]] = 0.0
        pin = {"minx": low, "maxx": high, "miny": low, "maxy": high}
    coords = np.array(
        graph.layout_fruchterman_reingold(seed=start.tolist(), niter=300, **pin).coords
    )
    return Layout(hood, dict(zip(ids, _unit(coords, index.get(hood.centre or "")), strict=True)))


def _unit(coords: np.ndarray, centre: int | None) -> list[tuple[float, float]]:
    """Scale into [MARGIN, 1 - MARGIN]; with a centre, symmetric around it so it sits mid-square."""
    if centre is not None:
        coords = coords - coords[centre]
        reach = np.abs(coords).max(axis=0)
        reach[reach == 0] = 1.0
        scaled = 0.5 + coords / (2 * reach)
    else:
        low, high = coords.min(axis=0), coords.max(axis=0)
        span = high - low
        span[span == 0] = 1.0
        scaled = (coords - low) / span
    scaled = MARGIN + scaled * (1 - 2 * MARGIN)
    return [(float(x), float(y)) for x, y in scaled]
