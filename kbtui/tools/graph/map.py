"""The graph map's queries: a capped neighbourhood around a note, and the vault's overview.

TUI, CLI and MCP share these (the TUI through `app_graph_map`, the CLI and `kg_graph_image`
directly). Hubs are capped: when a node has more neighbours than the map has room for, the
strongest are kept (most links to what is already shown, then usage: Q-value, access count) and
one "+N more" node (MapNode.more = N, id "more:<parent id>") stands for the rest.
"Strongest": most links to the map and among the candidates, then usage (Q-value, accesses).

Overview ids: a group is "type:<entity type>"; `group_map("type:person")` is the drill-in,
the members of that group (most linked first) with the edges among them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from kbtui.graphmap.model import MapEdge, MapNode, Neighbourhood
from kbtui.store import Store
from kbtui.store.graph.map_queries import EdgeRow
from kbtui.tools.envelope import NotFoundError, ValidationError

MAX_DEPTH = 3
MORE_PREFIX, GROUP_PREFIX = "more:", "type:"
PLAIN_LINK = "REFERENCES"  # a wikilink in the body: no label worth printing on the edge
INNER_SHARE = 0.6  # the share of the room an inner ring may take when rings follow it
MORE_SHARE = 6  # at most one "+N more" node per this many nodes


def neighbourhood(
    store: Store,
    centre_id: str,
    *,
    depth: int = 1,
    types: Sequence[str] | None = None,
    max_nodes: int = 60,
) -> Neighbourhood:
    """The centre and its neighbours to `depth` hops, at most `max_nodes` nodes in all."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValidationError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
    if max_nodes < 2:
        raise ValidationError("max_nodes must be at least 2")
    info = store.map_entities([centre_id])
    if centre_id not in info:
        raise NotFoundError(f"Entity not found: {centre_id}")
    wanted = {t.lower() for t in types} if types else None
    kept: list[str] = [centre_id]
    frontier = [centre_id]
    more: dict[str, int] = {}
    for ring in range(1, depth + 1):
        found = store.map_edges(frontier)
        around = _adjacency(found)
        shown = set(kept)
        candidates = sorted({o for f in frontier for o in around.get(f, ()) if o not in shown})
        info.update(store.map_entities([c for c in candidates if c not in info]))
        candidates = [c for c in candidates if c in info and _fits(info[c][1], wanted)]
        room = max_nodes - len(kept) - len(more)
        if ring < depth:
            room = max(1, int(room * INNER_SHARE))
        links = {c: len(around[c] & shown) for c in candidates}
        if len(candidates) > room:  # a hub: count links among the neighbours too
            links = store.map_link_counts(candidates, [*shown, *candidates])
        ranked = _strongest(candidates, links, info)
        cap = max(1, max_nodes // MORE_SHARE) - len(more)
        for _ in range(3):  # leave room for the "+N more" nodes this ring needs
            picked = ranked[: max(room, 0)]
            lost = _lost(frontier, around, shown | set(picked), candidates)
            over = len(kept) + len(more) + len(picked) + min(len(lost), cap) - max_nodes
            if over <= 0:
                break
            room -= over
        more.update(lost)
        kept += picked
        frontier = picked
        if not frontier:
            break
    return _assemble(centre_id, kept, info, store.map_edges(kept, among=True), more, max_nodes)


def _lost(
    frontier: list[str], around: dict[str, set[str]], shown: set[str], candidates: list[str]
) -> dict[str, int]:
    """parent -> how many of its neighbours (those the map may show) are left out."""
    allowed = set(candidates)
    lost = {p: len((around.get(p, set()) & allowed) - shown) for p in frontier}
    return {p: n for p, n in lost.items() if n}


def _fits(kind: str, wanted: set[str] | None) -> bool:
    return wanted is None or kind.lower() in wanted


def _adjacency(
    rows: Iterable[EdgeRow], around: dict[str, set[str]] | None = None
) -> dict[str, set[str]]:
    """Who links to whom, either direction; adds to `around` when given."""
    around = defaultdict(set) if around is None else around
    for source, target, _, _ in rows:
        if source != target:
            around[source].add(target)
            around[target].add(source)
    return around


def _strongest(
    candidates: list[str], links: dict[str, int], info: dict[str, tuple[str, str, float, int]]
) -> list[str]:
    """Best first: most links to the map's nodes and to each other (shared links: a
    neighbour tied into the rest says more than a leaf), then Q-value, then uses."""

    def strength(key: str) -> tuple[int, float, int, str]:
        _, _, q_value, uses = info[key]
        return (-links.get(key, 0), -q_value, -uses, info[key][0].lower())

    return sorted(candidates, key=strength)


def _assemble(
    centre: str,
    kept: list[str],
    info: dict[str, tuple[str, str, float, int]],
    rows: list[EdgeRow],
    more: dict[str, int],
    max_nodes: int,
) -> Neighbourhood:
    members = set(kept)
    edges: dict[tuple[str, str], MapEdge] = {}
    degree: dict[str, int] = defaultdict(int)
    for source, target, kind, label in rows:
        pair = (min(source, target), max(source, target))
        if source == target or source not in members or target not in members or pair in edges:
            continue
        edges[pair] = MapEdge(source, target, _edge_label(kind, label))
        degree[source] += 1
        degree[target] += 1
    nodes = [
        MapNode(key, info[key][0], info[key][1], weight=degree[key] + info[key][2]) for key in kept
    ]
    extra = sorted(more.items(), key=lambda item: (-item[1], item[0]))
    for parent, count in extra[: max(0, max_nodes - len(nodes))]:
        nodes.append(MapNode(MORE_PREFIX + parent, f"+{count} more", "more", 0.0, more=count))
        edges[(parent, MORE_PREFIX + parent)] = MapEdge(parent, MORE_PREFIX + parent)
    return Neighbourhood(centre, tuple(nodes), tuple(edges.values()))


def _edge_label(kind: str, label: str) -> str:
    if label:
        return label
    return "" if kind == PLAIN_LINK else kind.lower()


def overview(store: Store, types: Sequence[str] | None = None) -> Neighbourhood:
    """The vault by entity type: one node per type (weight = notes), edges = links between;
    `types` keeps only those groups."""
    wanted = {t.lower() for t in types} if types else None
    counts = [(kind, n) for kind, n in store.map_type_counts() if _fits(kind, wanted)]
    nodes = tuple(
        MapNode(GROUP_PREFIX + kind, f"{kind} ({n})", kind, weight=float(n)) for kind, n in counts
    )
    shown = {kind for kind, _ in counts}
    edges = tuple(
        MapEdge(GROUP_PREFIX + a, GROUP_PREFIX + b, str(n))
        for a, b, n in store.map_type_links()
        if a in shown and b in shown
    )
    return Neighbourhood(None, nodes, edges)


def group_map(store: Store, group_id: str, *, max_nodes: int = 60) -> Neighbourhood:
    """Drilling into an overview group: its most linked members and the edges among them."""
    if not group_id.startswith(GROUP_PREFIX):
        raise ValidationError(f"not a group id: {group_id!r} (groups are '{GROUP_PREFIX}<type>')")
    kind = group_id[len(GROUP_PREFIX) :]
    ids, total = store.map_type_members(kind, max(max_nodes - 1, 1))
    if not ids:
        raise NotFoundError(f"No entities of type {kind!r}")
    info = store.map_entities(ids)
    rows = [r for r in store.map_edges(ids, among=True) if r[0] in info and r[1] in info]
    hood = _assemble(ids[0], ids, info, rows, {}, max_nodes)
    nodes = list(hood.nodes)
    if total > len(ids):
        nodes.append(MapNode(MORE_PREFIX + group_id, "", "more", 0.0, more=total - len(ids)))
    return Neighbourhood(None, tuple(nodes), hood.edges)
