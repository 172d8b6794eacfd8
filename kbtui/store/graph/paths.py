"""Shortest paths in the knowledge graph: one recursive SQL query over two derived tables.

`graph_nodes` numbers every entity that has a relationship (small integers: the recursion
joins on them, and INTEGER columns compress ~8x better than the UBIGINT hash keys, which
made a scan of the edges 3 ms instead of 24 ms at 1M relationships). `graph_edges` holds
each related pair once per direction with the smallest rel_id between them and `b`'s key
(for tie-breaks), sorted by `a` when rebuilt. Both are derived from `relationships` in the
transaction that changes it (kbtui.store.graph.relink for the pairs a write touched, `rebuild` after
bulk changes), so the first search after a change pays nothing. No index: a persisted ART
index failed WAL replay in the crash suite (tests/test_crash.py), which compares these
tables with a fresh build; as ties never depend on node numbers, equal tables give equal
paths.

The search (PATH_SQL) is a bidirectional breadth-first search in one `WITH RECURSIVE ...
USING KEY (node)` CTE: the state holds each reached node's distance from the start (d0)
and from the goal (d1); each iteration grows the side whose frontier is smaller by one hop
and stops once the two meet or the hop bound is spent. The iteration that meets keeps only
the meeting nodes (a frontier through a hub can reach 30k nodes; writing them back into
the state cost more than the search). The path is then walked back from the meeting node
choosing the neighbour with the smallest key at each step (as the numpy search it replaced
did, so the answers are the same), and entity ids are joined once at the end.

Measured (bench/kg_graph.py, 100k entities / 1M relationships, a busy 2-core machine at
load ~8): the query takes ~19 ms of CPU on one thread (search ~9, walk and names ~8);
kg_find_path maxHops 5 p50/p95 32/52 ms through the tool, against 22/37 ms for the numpy
BFS it replaced (tests/graph_oracle.py, now the test oracle), which had to reload its
adjacency (0.4-1 s) after every graph change. Keeping each path as lists in the state
instead of walking back cost twice as much.
"""

from __future__ import annotations

import duckdb

PATH_SQL = """
WITH RECURSIVE
ends AS (
    SELECT (SELECT node FROM graph_nodes WHERE key = hash($start)) AS s,
           (SELECT node FROM graph_nodes WHERE key = hash($goal)) AS g),
bfs(node, d0, d1) USING KEY (node) AS (
    SELECT s, 0, NULL::INTEGER FROM ends WHERE s IS NOT NULL AND g IS NOT NULL
    UNION ALL
    SELECT g, NULL::INTEGER, 0 FROM ends WHERE s IS NOT NULL AND g IS NOT NULL
    UNION (
        -- the working table (last iteration's rows) is read once: did the sides meet?
        WITH last AS MATERIALIZED (
            SELECT bool_or(d0 IS NOT NULL AND d1 IS NOT NULL) AS met FROM bfs),
        depth AS (SELECT max(d0) AS m0, max(d1) AS m1 FROM recurring.bfs),
        side AS (
            SELECT CASE WHEN count(*) FILTER (WHERE d0 = m0) <= count(*) FILTER (WHERE d1 = m1)
                        THEN 0 ELSE 1 END AS s,
                   any_value(m0) AS m0, any_value(m1) AS m1
            FROM recurring.bfs, depth
            HAVING any_value(m0) + any_value(m1) < $max_hops
               AND NOT any_value((SELECT met FROM last))),
        frontier AS (
            SELECT r.node, side.s FROM recurring.bfs r, side
            WHERE CASE side.s WHEN 0 THEN r.d0 = side.m0 ELSE r.d1 = side.m1 END),
        reached AS (  -- duplicates are left in: the keyed state merges them
            SELECT e.b AS node, f.s FROM frontier f JOIN graph_edges e ON e.a = f.node),
        grown AS MATERIALIZED (
            SELECT x.node,
                   CASE x.s WHEN 0 THEN side.m0 + 1 ELSE r.d0 END AS d0,
                   CASE x.s WHEN 1 THEN side.m1 + 1 ELSE r.d1 END AS d1
            FROM reached x CROSS JOIN side LEFT JOIN recurring.bfs r ON r.node = x.node
            WHERE CASE x.s WHEN 0 THEN r.d0 IS NULL ELSE r.d1 IS NULL END)
        SELECT * FROM grown
        WHERE (d0 IS NOT NULL AND d1 IS NOT NULL)
           OR NOT EXISTS (SELECT 1 FROM grown WHERE d0 IS NOT NULL AND d1 IS NOT NULL))),
-- ties go to the smallest key (hash of the entity id), not node number: node numbers
-- depend on the order entities arrived in, and the answer must equal a fresh build's
meet AS (
    SELECT b.node, b.d0, b.d1 FROM bfs b JOIN graph_nodes n USING (node)
    WHERE b.d0 IS NOT NULL AND b.d1 IS NOT NULL
    ORDER BY b.d0 + b.d1, n.key LIMIT 1),
-- back from the meeting node to each end: the neighbour one hop nearer that end (smallest
-- key), with the relationship between the two
walk(side, node, hops, rel_id) AS (
    SELECT 0, node, d0, NULL::VARCHAR FROM meet
    UNION ALL SELECT 1, node, d1, NULL::VARCHAR FROM meet
    UNION ALL
    SELECT w.side, arg_min(e.b, e.bkey), any_value(w.hops) - 1, arg_min(e.rel_id, e.bkey)
    FROM walk w JOIN graph_edges e ON e.a = w.node
    JOIN bfs v ON v.node = e.b AND CASE w.side WHEN 0 THEN v.d0 ELSE v.d1 END = w.hops - 1
    WHERE w.hops > 0
    GROUP BY w.side),
steps AS (
    SELECT w.node, w.rel_id, CASE w.side WHEN 0 THEN w.hops ELSE m.d0 + m.d1 - w.hops END AS pos,
           CASE w.side WHEN 0 THEN w.hops ELSE m.d0 + m.d1 - w.hops - 1 END AS rel_pos
    FROM walk w, meet m WHERE w.side = 0 OR w.hops < m.d1)
SELECT list(n.entity_id ORDER BY s.pos),
       list(s.rel_id ORDER BY s.rel_pos) FILTER (WHERE s.rel_id IS NOT NULL)
FROM steps s JOIN graph_nodes n USING (node)
HAVING count(*) > 0
"""


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Derive both tables from every relationship (call inside the changing transaction)."""
    con.execute("DELETE FROM graph_edges")
    con.execute("DELETE FROM graph_nodes")
    con.execute(
        """INSERT INTO graph_nodes
           SELECT (row_number() OVER (ORDER BY key))::INTEGER, key, entity_id FROM (
               SELECT source_key AS key, source_id AS entity_id FROM relationships
               UNION SELECT target_key, target_id FROM relationships)
           ORDER BY key"""
    )
    con.execute(
        """INSERT INTO graph_edges
           SELECT na.node, nb.node, nb.key, min(r.rel_id) FROM (
               SELECT source_key AS x, target_key AS y, rel_id FROM relationships
               UNION ALL SELECT target_key, source_key, rel_id FROM relationships) r
           JOIN graph_nodes na ON na.key = r.x JOIN graph_nodes nb ON nb.key = r.y
           WHERE r.x <> r.y
           GROUP BY ALL ORDER BY 1, 2"""
    )


def shortest_path(
    con: duckdb.DuckDBPyConnection, start: str, goal: str, max_hops: int
) -> tuple[list[str], list[str]] | None:
    """(entity ids, relationship ids) of a shortest path of at most `max_hops` relationships
    from `start` to `goal` (either direction), else None."""
    row = con.execute(PATH_SQL, {"start": start, "goal": goal, "max_hops": max_hops}).fetchone()
    if row is None:
        return None
    return list(row[0]), list(row[1] or [])
