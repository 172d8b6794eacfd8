"""What a write changes in the tables derived from links (relationships, link_dest, the path
tables), derived again for the notes it can change and nothing else (issue 33: a save re-linked
every note linking to the saved one and every note linking to those, ~200-500 ms under load).

Every relationship and link_dest row comes from one link of one note (its `origin`) and from
how that link's key (and a canvas edge's `via`) resolves, which depends only on the
entity_names rows holding that key and the folders of the notes holding them. So after a write
the rows to derive again are those of:
- the notes written whose links changed (any column of a `links` row), and the notes that
  appeared, vanished or moved (a relationship's origin is the note's path; nearness reads its
  folder);
- every note with a link whose key or via is a *changed key*: a name a written note gained or
  lost (a row of entity_names added or removed, priority included), or any name of a note that
  appeared, vanished or moved (nearness and link_dest's tie-break read its folder and path).
A save that changes text but no link and no name derives nothing again.
tests/test_relink.py checks the index after random sequences of writes against a fresh build.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from kbtui.store.graph.links import insert_relationships_sql
from kbtui.store.graph.vault_facts import insert_link_dest_sql


def remember_names(con: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> None:
    """Keep the names and paths of `ids` as they are before a write changes them (call first
    in the writing transaction; `relink` reads and drops them)."""
    params = {"ids": list(ids)}
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _names_before AS SELECT entity_id, key, priority
           FROM entity_names WHERE list_contains($ids, entity_id)""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _paths_before AS SELECT entity_id, path
           FROM notes WHERE list_contains($ids, entity_id)""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _links_before AS
           FROM links WHERE list_contains($ids, entity_id)""",
        params,
    )


def relink(con: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> None:
    """Derive again the rows the write of `ids` can change (see the module's docstring);
    `remember_names(ids)` ran before the write, in the same transaction."""
    params = {"ids": list(ids)}
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _moved AS
           SELECT b.entity_id FROM _paths_before b LEFT JOIN notes n USING (entity_id)
           WHERE n.path IS DISTINCT FROM b.path
           UNION SELECT entity_id FROM notes WHERE list_contains($ids, entity_id)
             AND entity_id NOT IN (SELECT entity_id FROM _paths_before)""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _changed_keys AS
           WITH now AS (SELECT entity_id, key, priority FROM entity_names
                        WHERE list_contains($ids, entity_id))
           SELECT key FROM (FROM _names_before EXCEPT FROM now)
           UNION SELECT key FROM (FROM now EXCEPT FROM _names_before)
           UNION SELECT key FROM _names_before WHERE entity_id IN (FROM _moved)
           UNION SELECT key FROM now WHERE entity_id IN (FROM _moved)""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _relink AS
           WITH links_now AS (FROM links WHERE list_contains($ids, entity_id))
           SELECT entity_id FROM (FROM _links_before EXCEPT ALL FROM links_now)
           UNION SELECT entity_id FROM (FROM links_now EXCEPT ALL FROM _links_before)
           UNION FROM _moved
           UNION SELECT entity_id FROM links
           WHERE key IN (FROM _changed_keys) OR via IN (FROM _changed_keys)""",
        params,
    )
    # The temporary tables stay until the next write replaces them: dropping each cost a
    # statement per save.
    if con.execute("SELECT count(*) FROM _relink").fetchone() != (0,):
        _derive(con)


def _derive(con: duckdb.DuckDBPyConnection) -> None:
    """Relationships, link_dest rows and path edges of the notes in _relink, again."""
    # A relationship belongs to the note holding its link (origin: that note's path, the one
    # it had before the write too, for a note that moved or vanished).
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _origins AS
           SELECT path FROM _paths_before WHERE entity_id IN (FROM _relink)
           UNION SELECT path FROM notes WHERE entity_id IN (FROM _relink)"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _gone_relationships AS
           SELECT source_key, target_key FROM relationships WHERE origin IN (FROM _origins)"""
    )
    if con.execute("SELECT count(*) FROM _gone_relationships").fetchone() != (0,):
        con.execute("DELETE FROM relationships WHERE origin IN (FROM _origins)")
    con.execute("CREATE OR REPLACE TEMP TABLE _new_relationships AS FROM relationships LIMIT 0")
    where = "l.entity_id IN (SELECT entity_id FROM _relink)"
    con.execute(insert_relationships_sql(where, into="_new_relationships"))
    con.execute("INSERT INTO relationships FROM _new_relationships")
    # what Obsidian's link commands read: every link of those notes, resolved again
    con.execute("DELETE FROM link_dest WHERE entity_id IN (SELECT entity_id FROM _relink)")
    con.execute(insert_link_dest_sql(where))
    _update_paths(con)


def _update_paths(con: duckdb.DuckDBPyConnection) -> None:
    """The path tables' edges between the pairs of entities a relationship was removed from
    or added to (both ways): each such edge is derived again from every relationship between
    the two; every other edge stays."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _path_pairs AS
           SELECT DISTINCT x, y FROM (
               SELECT source_key AS x, target_key AS y FROM _gone_relationships
               UNION ALL SELECT target_key, source_key FROM _gone_relationships
               UNION ALL SELECT source_key, target_key FROM _new_relationships
               UNION ALL SELECT target_key, source_key FROM _new_relationships)
           WHERE x <> y"""
    )
    if con.execute("SELECT count(*) FROM _path_pairs").fetchone() == (0,):
        return
    con.execute(
        """INSERT INTO graph_nodes
           SELECT (SELECT coalesce(max(node), 0) FROM graph_nodes)
                  + row_number() OVER (ORDER BY key), key, entity_id
           FROM (SELECT key, any_value(entity_id) AS entity_id FROM (
                     SELECT source_key AS key, source_id AS entity_id FROM _new_relationships
                     UNION ALL SELECT target_key, target_id FROM _new_relationships)
                 GROUP BY key) t
           WHERE NOT EXISTS (SELECT 1 FROM graph_nodes g WHERE g.key = t.key)"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _path_pairs AS
           SELECT p.x, p.y, na.node AS a, nb.node AS b FROM _path_pairs p
           JOIN graph_nodes na ON na.key = p.x JOIN graph_nodes nb ON nb.key = p.y"""
    )
    con.execute("""DELETE FROM graph_edges e USING _path_pairs p WHERE e.a = p.a AND e.b = p.b""")
    con.execute(
        """INSERT INTO graph_edges
           WITH r AS (SELECT p.x, p.y, r.rel_id FROM _path_pairs p
                      JOIN relationships r ON r.source_key = p.x AND r.target_key = p.y)
           SELECT p.a, p.b, p.y, min(q.rel_id) FROM _path_pairs p
           JOIN (SELECT x, y, rel_id FROM r UNION ALL SELECT y, x, rel_id FROM r) q
             ON q.x = p.x AND q.y = p.y
           GROUP BY ALL ORDER BY 1, 2"""
    )
