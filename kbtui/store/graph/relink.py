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
The temporary tables stay until the next write replaces them (a DROP is a statement too).
tests/test_relink.py checks the index after random sequences of writes against a fresh build.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from kbtui.models import NoteWrite
from kbtui.store.graph.links import NAME_PRIORITY, insert_relationships_sql, link_rows, note_keys
from kbtui.store.graph.vault_facts import insert_link_dest_sql


@dataclass
class Notes:
    """What the derived tables read of some notes: paths, names (key, priority) and link
    rows, by entity id. Read from the index before a write, taken from the batch after it
    (the same rows the write inserts), so a save costs two small reads, not a diff in SQL."""

    paths: dict[str, str] = field(default_factory=dict)
    names: dict[str, set[tuple[str, int]]] = field(default_factory=dict)
    links: dict[str, Counter[tuple[Any, ...]]] = field(default_factory=dict)


def before(con: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> Notes:
    """`ids` as the index holds them now (call in the writing transaction, before it writes)."""
    notes = Notes()
    rows = con.execute(
        """SELECT n.entity_id, n.path, e.key, e.priority FROM notes n
           LEFT JOIN entity_names e USING (entity_id) WHERE list_contains($ids, n.entity_id)""",
        {"ids": list(ids)},
    ).fetchall()
    for entity_id, path, key, priority in rows:
        notes.paths[entity_id] = path
        if key is not None:
            notes.names.setdefault(entity_id, set()).add((key, priority))
    links = con.execute(
        "SELECT * FROM links WHERE list_contains($ids, entity_id)", {"ids": list(ids)}
    ).fetchall()
    for row in links:
        notes.links.setdefault(row[0], Counter())[tuple(row)] += 1
    return notes


def after(batch: Sequence[NoteWrite]) -> Notes:
    """The notes of `batch` as its write leaves them (nothing for deleted notes)."""
    notes = Notes()
    for w in batch:
        notes.paths[w.note.entity_id] = w.note.path
        notes.names[w.note.entity_id] = {(k, NAME_PRIORITY[kind]) for k, kind in note_keys(w)}
    for row in link_rows(batch):
        notes.links.setdefault(row[0], Counter())[row] += 1
    return notes


def relink(con: duckdb.DuckDBPyConnection, old: Notes, new: Notes) -> None:
    """Derive again the rows a write can change (see the module's docstring), from the
    notes it wrote or deleted as they were (`before`) and are (`after`)."""
    ids = set(old.paths) | set(new.paths)
    moved = {i for i in ids if old.paths.get(i) != new.paths.get(i)}
    changed_keys = {k for i in moved for k, _ in old.names.get(i, set()) | new.names.get(i, set())}
    for i in ids:
        changed_keys |= {k for k, _ in old.names.get(i, set()) ^ new.names.get(i, set())}
    relinked = moved | {i for i in ids if old.links.get(i) != new.links.get(i)}
    if changed_keys:
        rows = con.execute(
            """WITH k AS (SELECT unnest($keys) AS key)  -- a hash join: a first pass has many
               SELECT entity_id FROM links WHERE key IN (FROM k)
               UNION SELECT entity_id FROM links WHERE via IN (FROM k)""",
            {"keys": sorted(changed_keys)},
        ).fetchall()
        relinked |= {r[0] for r in rows}
    if not relinked:
        return
    origins = {old.paths[i] for i in relinked if i in old.paths}
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _relink AS SELECT unnest($ids) AS entity_id""",
        {"ids": sorted(relinked)},
    )
    # A relationship belongs to the note holding its link (origin: that note's path, the one
    # it had before the write too, for a note that moved or vanished).
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _origins AS SELECT unnest($paths) AS path
           UNION SELECT path FROM notes WHERE entity_id IN (FROM _relink)""",
        {"paths": sorted(origins)},
    )
    _derive(con)


def _derive(con: duckdb.DuckDBPyConnection) -> None:
    """Relationships, link_dest rows and path edges of the notes in _relink, again."""
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
