"""Layout time of the graph map (issue 32): networkx, rustworkx and igraph on ~200-node maps.

    python bench/graph_layout.py                      # 6.6k-note vault, 10 centres x 5 rounds
    python bench/graph_layout.py --centres 5 --rounds 3

The vault is bench_common's obsidian-hub-sized synthetic one (6,600 notes, built once under
/tmp/kbtui-bench, run on a copy). The maps are real: `neighbourhood()` of the most linked
notes at depth 2, capped at 200 nodes, as the TUI and `kbtui graph` ask for them. Each
library lays out the same graphs from the same seeded start (force-directed: igraph's and
rustworkx's Fruchterman-Reingold in C / Rust, networkx's in numpy; igraph's Kamada-Kawai
beside them). Goal: <= 150 ms a layout. Then the path the TUI takes after Enter, uncached:
query + layout (kbtui.graphmap.layout, the chosen library) + the first frame at 200x60
(goal <= 300 ms). networkx and rustworkx are not kbtui dependencies: `pip install networkx
rustworkx` to compare; a missing one is reported and skipped.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench_common import WORK, cpu_times, hub_sized_vault, machine_note, percentiles, working_copy

from kbtui.config import Settings
from kbtui.graphmap import layout as chosen
from kbtui.graphmap.canvas import draw
from kbtui.graphmap.model import Neighbourhood
from kbtui.store import Store
from kbtui.tools.graph.map import neighbourhood

Edges = list[tuple[int, int]]
Backend = Callable[[int, Edges, np.ndarray], Any]


def _igraph_fr(n: int, edges: Edges, start: np.ndarray) -> Any:
    import igraph

    graph = igraph.Graph(n=n, edges=edges)
    return graph.layout_fruchterman_reingold(seed=start.tolist(), niter=300).coords


def _igraph_kk(n: int, edges: Edges, start: np.ndarray) -> Any:
    import igraph

    return igraph.Graph(n=n, edges=edges).layout_kamada_kawai(seed=start.tolist()).coords


def _networkx_fr(n: int, edges: Edges, start: np.ndarray) -> Any:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges)
    pos = {i: start[i] for i in range(n)}
    return nx.spring_layout(graph, pos=pos, iterations=50, seed=0)


def _rustworkx_fr(n: int, edges: Edges, start: np.ndarray, iterations: int = 50) -> Any:
    import rustworkx as rx

    graph = rx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from_no_data(edges)
    pos = {i: (float(start[i][0]), float(start[i][1])) for i in range(n)}
    return rx.spring_layout(graph, pos=pos, num_iter=iterations, seed=0)


def _kbtui(n: int, edges: Edges, start: np.ndarray) -> Any:
    """What kbtui.graphmap.layout runs (igraph FR, centre pinned), before its rescaling."""
    return chosen.forces(n, edges, start, centre=0)


BACKENDS: dict[str, Backend] = {
    "kbtui (igraph FR, pinned)": _kbtui,
    "igraph FR (300 iter)": _igraph_fr,
    "igraph Kamada-Kawai": _igraph_kk,
    "networkx spring (50 iter)": _networkx_fr,
    "rustworkx spring (50 iter)": _rustworkx_fr,
    "rustworkx spring (300 iter)": lambda n, e, s: _rustworkx_fr(n, e, s, 300),
}


def maps(store: Store, centres: int, size: int) -> list[Neighbourhood]:
    """Depth-2 maps of the most linked notes, each capped at `size` nodes."""
    rows = store.con.execute(
        """SELECT source_id, count(*) AS n FROM relationships GROUP BY 1
           ORDER BY n DESC, 1 LIMIT $k""",
        {"k": centres * 3},
    ).fetchall()
    out = []
    for centre, _ in rows:
        hood = neighbourhood(store, centre, depth=2, max_nodes=size)
        if len(hood.nodes) >= size * 0.9:
            out.append(hood)
        if len(out) == centres:
            break
    return out


def as_input(hood: Neighbourhood) -> tuple[int, Edges, np.ndarray]:
    index = {node.id: i for i, node in enumerate(hood.nodes)}
    edges = sorted(
        {
            (min(index[e.source], index[e.target]), max(index[e.source], index[e.target]))
            for e in hood.edges
        }
    )
    start = np.random.default_rng(0).uniform(-1, 1, (len(index), 2)) * np.sqrt(len(index))
    return len(index), edges, start


def stress(n: int, edges: Edges, coords: Any) -> float:
    """Normalised stress against hop distances (scale fitted, 0 = distances kept exactly):
    how well a layout keeps near what is near; lower is better."""
    import igraph

    hops = np.array(igraph.Graph(n=n, edges=edges).distances(), dtype=float)
    xy = np.array([coords[i] for i in range(n)], dtype=float)
    far = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    mask = np.isfinite(hops) & (hops > 0)
    d, e, w = hops[mask], far[mask], 1.0 / hops[mask] ** 2
    alpha = (w * d * e).sum() / max((w * e * e).sum(), 1e-12)
    return float((w * (alpha * e - d) ** 2).sum() / (w * d * d).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=6600)
    parser.add_argument("--centres", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    cache = hub_sized_vault(args.work, args.notes, "bench-hash")
    vault = args.work / f"graph_layout_{args.notes}"
    shutil.rmtree(vault, ignore_errors=True)
    working_copy(cache, vault)
    store = Store(Settings.for_vault(vault).db_path)
    hoods = maps(store, args.centres, args.size)
    sizes = [(len(h.nodes), len(h.edges)) for h in hoods]
    print(f"{len(hoods)} maps of {args.notes} notes: nodes/edges {sizes}")
    before = cpu_times()
    for name, backend in BACKENDS.items():
        samples: list[float] = []
        fits: list[float] = []
        try:
            for hood in hoods:
                n, edges, start = as_input(hood)
                for _ in range(args.rounds):
                    began = time.perf_counter()
                    coords = backend(n, edges, start)
                    samples.append((time.perf_counter() - began) * 1000)
                fits.append(stress(n, edges, coords))
        except ImportError as exc:
            print(f"{name:28s} skipped: {exc}")
            continue
        print(f"{name:28s} {percentiles(samples)}  stress {statistics.median(fits):.3f}")
    after_enter: list[float] = []
    parts: dict[str, list[float]] = {"query": [], "layout": [], "frame": []}
    for hood in hoods:
        for _ in range(args.rounds):
            chosen.clear_cache()
            began = time.perf_counter()
            fresh = neighbourhood(store, hood.centre or "", depth=2, max_nodes=args.size)
            queried = time.perf_counter()
            placed = chosen.layout(fresh)
            laid = time.perf_counter()
            draw(placed, 200, 60, selected=fresh.centre)
            done = time.perf_counter()
            parts["query"].append((queried - began) * 1000)
            parts["layout"].append((laid - queried) * 1000)
            parts["frame"].append((done - laid) * 1000)
            after_enter.append((done - began) * 1000)
    for name, samples in parts.items():
        print(f"  {name:26s} {percentiles(samples)}")
    print(f"{'Enter -> first frame':28s} {percentiles(after_enter)}")
    print(machine_note(before))
    store.close()


if __name__ == "__main__":
    main()
