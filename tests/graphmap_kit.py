"""Neighbourhoods made up for the graph map's pure tests: seeded, with long and odd labels."""

from __future__ import annotations

import random

from kbtui.graphmap.model import MapEdge, MapNode, Neighbourhood

TYPES = ("person", "project", "meeting", "technology", "organization", "concept", "daily", "pdf")
WORDS = ("Vector", "Watch", "beta", "planning", "Kestrel", "Health", "Ñandú", "北京", "x", "<&>")


def made_up(n: int, seed: int = 0, more: int = 0) -> Neighbourhood:
    """A centre, rings of neighbours (each linked to an earlier node), some cross links."""
    rng = random.Random(seed)
    nodes = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        nodes.append(MapNode(f"n:{i}", f"{words} {i}", rng.choice(TYPES), weight=rng.random()))
    edges = [
        MapEdge(f"n:{rng.randrange(max(i // 3, 1))}", f"n:{i}", "works_on") for i in range(1, n)
    ]
    edges += [MapEdge(f"n:{rng.randrange(n)}", f"n:{rng.randrange(n)}") for _ in range(n // 2)]
    if more:
        nodes.append(MapNode("more:n:0", f"+{more} more", "more", 0.0, more=more))
        edges.append(MapEdge("n:0", "more:n:0"))
    return Neighbourhood("n:0", tuple(nodes), tuple(e for e in edges if e.source != e.target))
