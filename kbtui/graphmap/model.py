"""The map's data: nodes, edges, a neighbourhood around a centre, and a layout of it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class MapNode:
    """One node; `more` > 0 makes it the "+N more" stand-in for neighbours left out of a hub."""

    id: str
    label: str
    type: str
    weight: float = 1.0
    more: int = 0


@dataclass(frozen=True)
class MapEdge:
    source: str
    target: str
    label: str = ""


@dataclass(frozen=True)
class Neighbourhood:
    """The nodes around `centre` (None for the overview) and the edges among them."""

    centre: str | None
    nodes: tuple[MapNode, ...]
    edges: tuple[MapEdge, ...]

    def node(self, node_id: str) -> MapNode | None:
        for node in self.nodes:
            if node.id == node_id:
                return node
        return None


@dataclass(frozen=True)
class Layout:
    """Positions in the unit square, y down: the same layout draws the terminal and the SVG."""

    hood: Neighbourhood
    pos: dict[str, tuple[float, float]] = field(default_factory=dict)


def hood_to_dict(hood: Neighbourhood) -> dict[str, Any]:
    """JSON-ready, for a tool's answer (the TUI may reach the tools through another process)."""
    return {
        "centre": hood.centre,
        "nodes": [asdict(n) for n in hood.nodes],
        "edges": [asdict(e) for e in hood.edges],
    }


def hood_from_dict(data: dict[str, Any]) -> Neighbourhood:
    return Neighbourhood(
        data.get("centre"),
        tuple(MapNode(**n) for n in data.get("nodes", ())),
        tuple(MapEdge(**e) for e in data.get("edges", ())),
    )


def spine(hood: Neighbourhood) -> frozenset[int]:
    """The edges that say how each node is reached from the centre (indices into `edges`):
    one per node, to its heaviest neighbour one hop nearer. Drawn plain while the other
    links (cross links among neighbours: most of a dense map's edges) are faded, so a
    60-node map reads as a tree with a light web behind it instead of a hairball."""
    if hood.centre is None:
        return frozenset(range(len(hood.edges)))
    near: dict[str, list[tuple[int, str]]] = {}
    for i, edge in enumerate(hood.edges):
        near.setdefault(edge.source, []).append((i, edge.target))
        near.setdefault(edge.target, []).append((i, edge.source))
    weight = {node.id: node.weight for node in hood.nodes}
    seen, ring, chosen = {hood.centre}, [hood.centre], set[int]()
    while ring:
        best: dict[str, tuple[float, int]] = {}  # node of the next ring -> (-parent weight, edge)
        for parent in ring:
            for i, other in near.get(parent, ()):
                if other in seen:
                    continue
                score = (-weight.get(parent, 0.0), i)
                if other not in best or score < best[other]:
                    best[other] = score
        seen.update(best)
        chosen.update(i for _, i in best.values())
        ring = list(best)
    return frozenset(chosen)
