"""Shortest paths in the knowledge graph: one recursive query, a bidirectional BFS.

A recursive CTE that carries whole paths enumerates every path and explodes at a million
relationships. Here the recursion is `USING KEY (node, side)`: the recursive table holds one
row per node reached from the start (side 0) or from the goal (side 1), each with the
parent it was first reached from, and each step expands only the nodes reached in the
step before that nobody has reached yet. Both ends grow one hop per step until a node is
reached from both sides, so each side explores ~maxHops/2 hops instead of maxHops.
Relationships are walked in either direction; the join keys are the integer hashes stored
with each relationship (see migration 003), which is twice as fast as joining strings.
Measured by bench/kg_graph.py.
"""

from __future__ import annotations

import duckdb

_BFS = """
WITH RECURSIVE
edges AS (
    SELECT source_key AS a, target_key AS b, rel_id FROM relationships
    UNION ALL
    SELECT target_key, source_key, rel_id FROM relationships
),
bfs(node, side, depth, parent, rel_id) USING KEY (node, side) AS (
    SELECT hash($start), 0, 0, NULL::UBIGINT, NULL::VARCHAR
    UNION ALL
    SELECT hash($goal), 1, 0, NULL::UBIGINT, NULL::VARCHAR
    UNION
    SELECT e.b, w.side, w.depth + 1, w.node, e.rel_id
    FROM bfs w JOIN edges e ON e.a = w.node
    -- side 0 may walk ceil(max/2) hops, side 1 floor(max/2): together at most max
    WHERE w.depth < ($max + 1 - w.side) // 2
      AND NOT EXISTS (SELECT 1 FROM recurring.bfs v WHERE v.node = e.b AND v.side = w.side)
      AND NOT EXISTS (SELECT 1 FROM recurring.bfs x JOIN recurring.bfs y
                      ON x.node = y.node AND x.side = 0 AND y.side = 1)
)
SELECT node, side, depth, parent, rel_id FROM bfs
"""


def shortest_path(
    con: duckdb.DuckDBPyConnection, start: str, goal: str, max_hops: int
) -> tuple[list[str], list[str]] | None:
    """(entity ids, relationship ids) of a shortest path within `max_hops`, else None."""
    if start == goal:
        return [start], []
    rows = con.execute(_BFS, {"start": start, "goal": goal, "max": max_hops}).fetchall()
    reached: tuple[dict[int, tuple[int, int | None, str | None]], ...] = ({}, {})
    for node, side, depth, parent, rel_id in rows:
        reached[side][node] = (depth, parent, rel_id)
    forward, backward = reached
    meets = [n for n in forward if n in backward]
    if not meets:
        return None
    # The first step that met may meet in several nodes; the shortest total wins.
    middle = min(meets, key=lambda n: (forward[n][0] + backward[n][0], n))
    if forward[middle][0] + backward[middle][0] > max_hops:
        return None
    rel_ids = _walk(forward, middle)[::-1] + _walk(backward, middle)
    return _entities(con, start, rel_ids), rel_ids


def _walk(tree: dict[int, tuple[int, int | None, str | None]], node: int) -> list[str]:
    """Relationship ids from `node` back to the root of its search tree."""
    out: list[str] = []
    _, parent, rel_id = tree[node]
    while parent is not None and rel_id is not None:
        out.append(rel_id)
        _, parent, rel_id = tree[parent]
    return out


def _entities(con: duckdb.DuckDBPyConnection, start: str, rel_ids: list[str]) -> list[str]:
    """Entity ids along the relationships, walking each one in whichever direction fits."""
    rows = con.execute(
        "SELECT rel_id, source_id, target_id FROM relationships WHERE rel_id IN "
        "(SELECT unnest($ids))",
        {"ids": rel_ids},
    ).fetchall()
    ends = {r[0]: (r[1], r[2]) for r in rows}
    path = [start]
    for rel_id in rel_ids:
        source, target = ends[rel_id]
        path.append(target if source == path[-1] else source)
    return path
