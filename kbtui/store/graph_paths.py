"""Shortest paths in the knowledge graph: one recursive query, a bidirectional BFS.

A recursive CTE that carries whole paths enumerates every path and explodes at a million
relationships. Here the recursion is `USING KEY (node, side)`: the recursive table holds one
row per node reached from the start (side 0) or from the goal (side 1), each with the
parent it was first reached from. Each step grows the side whose frontier (the nodes it
reached in its last step) is smaller by one hop, to nodes that side has not reached yet; the
other side's frontier is carried over unchanged. The search ends when a node is reached from
both sides, when a frontier is empty, or when the two depths add up to maxHops. Each side
explores about maxHops/2 hops instead of maxHops, and the cheaper side first.
Relationships are walked in either direction. The join keys are the integer hashes stored
with each relationship (migration 003), and a step carries the relationship's rowid rather
than its string id, read back by the same connection under the store lock: 4x faster than
joining and carrying strings at 1M relationships.
Measured by bench/kg_graph.py.
"""

from __future__ import annotations

import duckdb

_BFS = """
WITH RECURSIVE
edges AS (
    SELECT source_key AS a, target_key AS b, rowid AS edge FROM relationships
    UNION ALL
    SELECT target_key, source_key, rowid FROM relationships
),
bfs(node, side, depth, parent, edge) USING KEY (node, side) AS (
    SELECT hash($start), 0, 0, NULL::UBIGINT, NULL::BIGINT
    UNION ALL
    SELECT hash($goal), 1, 0, NULL::UBIGINT, NULL::BIGINT
    UNION
    (WITH frontier AS (SELECT * FROM bfs),
     plan AS (  -- grow the side with the smaller frontier, while no node is reached by both
        SELECT CASE WHEN count(*) FILTER (WHERE side = 0) <= count(*) FILTER (WHERE side = 1)
                    THEN 0 ELSE 1 END AS side,
               least(count(*) FILTER (WHERE side = 0), count(*) FILTER (WHERE side = 1)) AS size,
               coalesce(max(depth) FILTER (WHERE side = 0), 0)
                 + coalesce(max(depth) FILTER (WHERE side = 1), 0) AS hops
        FROM frontier
        WHERE NOT EXISTS (SELECT 1 FROM recurring.bfs x JOIN recurring.bfs y
                          ON x.node = y.node AND x.side = 0 AND y.side = 1)
     ),
     grow AS (SELECT side FROM plan WHERE size > 0 AND hops < $max)
    SELECT e.b, w.side, w.depth + 1, w.node, e.edge
    FROM frontier w JOIN grow USING (side) JOIN edges e ON e.a = w.node
    WHERE NOT EXISTS (SELECT 1 FROM recurring.bfs v WHERE v.node = e.b AND v.side = w.side)
    UNION ALL  -- the other side's frontier waits for its turn
    SELECT w.node, w.side, w.depth, w.parent, w.edge
    FROM frontier w, grow WHERE w.side <> grow.side)
)
SELECT node, side, depth, parent, edge FROM bfs
"""


def shortest_path(
    con: duckdb.DuckDBPyConnection, start: str, goal: str, max_hops: int
) -> tuple[list[str], list[str]] | None:
    """(entity ids, relationship ids) of a shortest path within `max_hops`, else None."""
    if start == goal:
        return [start], []
    rows = con.execute(_BFS, {"start": start, "goal": goal, "max": max_hops}).fetchall()
    reached: tuple[dict[int, tuple[int, int | None, int | None]], ...] = ({}, {})
    for node, side, depth, parent, edge in rows:
        reached[side][node] = (depth, parent, edge)
    forward, backward = reached
    meets = [n for n in forward if n in backward]
    if not meets:
        return None
    # The first step that met may meet in several nodes; the shortest total wins.
    middle = min(meets, key=lambda n: (forward[n][0] + backward[n][0], n))
    if forward[middle][0] + backward[middle][0] > max_hops:
        return None
    edges = _walk(forward, middle)[::-1] + _walk(backward, middle)
    return _resolve(con, start, edges)


def _walk(tree: dict[int, tuple[int, int | None, int | None]], node: int) -> list[int]:
    """Relationship rowids from `node` back to the root of its search tree."""
    out: list[int] = []
    _, parent, edge = tree[node]
    while parent is not None and edge is not None:
        out.append(edge)
        _, parent, edge = tree[parent]
    return out


def _resolve(
    con: duckdb.DuckDBPyConnection, start: str, edges: list[int]
) -> tuple[list[str], list[str]]:
    """(entity ids, relationship ids) along the rowids, each walked in whichever direction
    continues the path."""
    rows = con.execute(
        "SELECT rowid, rel_id, source_id, target_id FROM relationships "
        "WHERE rowid IN (SELECT unnest($rows))",
        {"rows": edges},
    ).fetchall()
    by_row = {r[0]: (r[1], r[2], r[3]) for r in rows}
    path, rel_ids = [start], []
    for edge in edges:
        rel_id, source, target = by_row[edge]
        rel_ids.append(rel_id)
        path.append(target if source == path[-1] else source)
    return path, rel_ids
