"""The knowledge graph in the index: entity names, resolved relationships, usage statistics.

Relationships are derived from the `links` table the way Obsidian resolves links (how: see
kbtui.store.graph.links; when several notes share a name, the nearest wins). Derived data is
kept current incrementally: a write derives again only the rows it can change (which ones:
kbtui.store.graph.relink). Usage statistics (Q-values) live
apart, keyed by entity id, so re-indexing content never resets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import duckdb

from kbtui.models import NoteWrite
from kbtui.store.graph import paths as graph_paths
from kbtui.store.graph import relink
from kbtui.store.graph.links import (
    NAME_PRIORITY,
    REL_TYPES,
    RELATION_RULE,
    insert_relationships_sql,
    link_key,
    note_keys,
)
from kbtui.store.graph.usage import UsageStore
from kbtui.store.graph.vault_facts import insert_link_dest_sql

__all__ = ["REL_TYPES", "GraphStore", "link_key", "note_keys"]  # link naming: links.py


class GraphStore(UsageStore):
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection

    def _bulk_insert(
        self, table: str, columns: dict[str, Any], extra_null: int = 0, select: str = "*"
    ) -> None: ...

    def meta(self, key: str) -> str | None: ...

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def transaction(self) -> AbstractContextManager[None]:
        raise NotImplementedError  # Store's

    def set_meta(self, key: str, value: str) -> None: ...

    def _write_names(self, ids: Sequence[str], batch: Sequence[NoteWrite]) -> None:
        self.con.execute("DELETE FROM entity_names WHERE list_contains(?, entity_id)", [list(ids)])
        rows = [(w.note.entity_id, key, kind) for w in batch for key, kind in note_keys(w)]
        self._bulk_insert(
            "entity_names",
            {
                "e": [r[0] for r in rows],
                "k": [r[1] for r in rows],
                "p": [NAME_PRIORITY[r[2]] for r in rows],
            },
        )

    def _notes_before(self, ids: Sequence[str]) -> relink.Notes:
        """Before a write of `ids`: what `_relink` compares them with afterwards."""
        return relink.before(self.con, ids)

    def _relink(self, old: relink.Notes, batch: Sequence[NoteWrite] = ()) -> None:
        """After a write (of `batch`; of nothing for a delete): the relationships, link_dest
        rows and path edges it can change, derived again (kbtui.store.graph.relink)."""
        relink.relink(self.con, old, relink.after(batch))

    def _insert_relationships(
        self, links_where: str, target_where: str = "TRUE", into: str = "relationships"
    ) -> None:
        self.con.execute(insert_relationships_sql(links_where, target_where, into))

    def rebuild_relationships(self) -> None:
        """Derive every relationship again (after a migration or for tests)."""
        self.con.execute("DELETE FROM relationships")
        self._insert_relationships("TRUE")
        self.con.execute("DELETE FROM link_dest")
        self.con.execute(insert_link_dest_sql("TRUE"))
        graph_paths.rebuild(self.con)

    # -- reads ----------------------------------------------------------------------------
    def entity_rows(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Entities (notes) with their usage statistics, by id."""
        if not ids:
            return {}
        rows = self.con.execute(
            f"""{_ENTITY_SELECT} WHERE n.entity_id IN (SELECT unnest($ids))""",
            {"ids": list(ids)},
        ).fetchall()
        return self.overlay_usage({r[0]: _entity(r) for r in rows})

    def find_entity_ids(
        self, name: str, exact: bool, limit: int, channel: str, default_channel: str
    ) -> tuple[list[str], int]:
        """Ids whose title, alias, file name or id matches `name` (exact first), and how
        many matched in all."""
        key = link_key(name)
        self.flush_usage()  # ranked by Q-value
        rows = self.con.execute(
            f"""
            SELECT e.entity_id, min(CASE WHEN e.key = $key THEN 0
                                         WHEN starts_with(e.key, $key) THEN 1 ELSE 2 END) AS rank
            FROM entity_names e JOIN notes n USING (entity_id)
            LEFT JOIN entity_usage u USING (entity_id)
            WHERE {"e.key = $key" if exact else "contains(e.key, $key)"} AND {_CHANNEL}
            GROUP BY e.entity_id
            ORDER BY rank, max(coalesce(u.q_value, 0.5)) DESC, e.entity_id""",
            {"key": key, "channel": channel, "default": default_channel},
        ).fetchall()
        return [r[0] for r in rows[:limit]], len(rows)

    def neighbor_relationships(
        self, entity_id: str, direction: str, rel_type: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """Relationships of one entity. The filter is on the hashed keys, one scan per
        direction: an OR of two string comparisons scans 1M relationships 6x slower.
        `hash($id)` is folded into a constant when the query is planned (no query of its
        own: each costs a round trip)."""
        scans = {
            "outgoing": ["source_key = hash($id)"],
            "incoming": ["target_key = hash($id)"],
            "both": [
                "source_key = hash($id)",
                "target_key = hash($id) AND source_key <> hash($id)",
            ],
        }[direction]
        picked = " UNION ALL ".join(f"SELECT * FROM relationships WHERE {s}" for s in scans)
        where = "(r.source_id = $id OR r.target_id = $id)"
        params: dict[str, Any] = {"id": entity_id, "limit": limit}
        if rel_type:
            where += " AND r.type = $type"
            params["type"] = rel_type
        rows = self.con.execute(
            f"""WITH r AS ({picked}) {_REL_SELECT} WHERE {where}
                ORDER BY CASE WHEN r.type = 'REFERENCES' THEN 1 ELSE 0 END, r.type,
                         r.source_id, r.target_id, r.rel_id LIMIT $limit""",
            params,
        ).fetchall()
        return [_relationship(r) for r in rows]

    def relationships_by_id(
        self, rel_ids: Sequence[str], among: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        """Relationships by id, in the order asked; `among` (every entity at either end, as
        on a path) lets the scan filter on hashed keys first."""
        if not rel_ids:
            return []
        picked = "SELECT * FROM relationships"
        params: dict[str, Any] = {"ids": list(rel_ids)}
        if among:  # list_contains: 3x faster than an IN subquery at 1M relationships; the
            # keys are hashed as the query is planned (a constant list, as a parameter was)
            keys = "list_transform($among, e -> hash(e))::UBIGINT[]"
            picked += f""" WHERE list_contains({keys}, source_key)
                           AND list_contains({keys}, target_key)"""
            params["among"] = list(among)
        rows = self.con.execute(
            f"WITH r AS ({picked}) {_REL_SELECT} WHERE r.rel_id IN (SELECT unnest($ids))",
            params,
        ).fetchall()
        by_id = {r[0]: _relationship(r) for r in rows}
        return [by_id[i] for i in rel_ids if i in by_id]

    def relationships_among(self, ids: Sequence[str], limit: int = 200) -> list[dict[str, Any]]:
        rows = self.con.execute(
            f"""WITH r AS (SELECT * FROM relationships WHERE source_key IN (SELECT unnest($keys))
                           AND target_key IN (SELECT unnest($keys)))
                {_REL_SELECT} WHERE r.source_id IN (SELECT unnest($ids))
                AND r.target_id IN (SELECT unnest($ids)) ORDER BY r.rel_id LIMIT $limit""",
            {"ids": list(ids), "keys": self._keys(ids), "limit": limit},
        ).fetchall()
        return [_relationship(r) for r in rows]

    def _check_graph(self) -> None:
        """At open: relationships hashed and derived the way this kbtui does."""
        self._check_graph_keys()
        self._check_relation_rule()

    def _check_graph_keys(self) -> None:
        """Re-hash the relationship keys if this DuckDB hashes differently from the one that
        wrote them (a DuckDB upgrade may change `hash`); a no-op otherwise."""
        probe = str(self.con.execute("SELECT hash('kbtui')").fetchone())
        if self.meta("hash_probe") == probe:
            return
        self.con.execute("BEGIN TRANSACTION")
        self.con.execute(
            "UPDATE relationships SET source_key = hash(source_id), target_key = hash(target_id)"
        )
        graph_paths.rebuild(self.con)
        self.set_meta("hash_probe", probe)
        self.con.execute("COMMIT")

    def _check_relation_rule(self) -> None:
        """Derive every relationship again, once, when they were derived by an older rule."""
        if self.meta("relation_rule") == RELATION_RULE:
            return
        with self.transaction():
            self.rebuild_relationships()
            self.set_meta("relation_rule", RELATION_RULE)

    def _keys(self, entity_ids: Sequence[str]) -> list[int]:
        """`_key` of each id, in one query."""
        row = self.con.execute(
            "SELECT list(hash(e) ORDER BY i) FROM (SELECT unnest($ids) AS e, "
            "generate_subscripts($ids, 1) AS i)",
            {"ids": list(entity_ids)},
        ).fetchone()
        return [int(k) for k in row[0]] if row and row[0] else []

    def _key(self, entity_id: str) -> int:
        """The hashed key migration 003 stores for an entity id (DuckDB's own hash)."""
        row = self.con.execute("SELECT hash(?)", [entity_id]).fetchone()
        return int(row[0]) if row else 0

    def top_entity_ids(
        self, order: str, limit: int, channel: str, default_channel: str
    ) -> list[str]:
        """By `q_value`, `last_accessed` or `indexed_at`, best first."""
        column = {
            "q_value": "coalesce(u.q_value, 0.5)",
            "last_accessed": "u.last_accessed",
            "indexed_at": "n.indexed_at",
        }[order]
        self.flush_usage()
        rows = self.con.execute(
            f"""SELECT n.entity_id FROM notes n LEFT JOIN entity_usage u USING (entity_id)
                WHERE {_CHANNEL} AND {column} IS NOT NULL
                ORDER BY {column} DESC, coalesce(u.access_count, 0) DESC, n.entity_id
                LIMIT $limit""",
            {"limit": limit, "channel": channel, "default": default_channel},
        ).fetchall()
        return [r[0] for r in rows]

    def graph_counts(self) -> tuple[int, int]:
        row = self.con.execute(
            "SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM relationships)"
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def name_candidates(
        self, channel: str, default_channel: str
    ) -> list[tuple[str, str, str, list[str]]]:
        """(entity id, type, name, aliases) of every entity in a channel."""
        rows = self.con.execute(
            f"""SELECT n.entity_id, n.type, n.title, n.aliases
                FROM notes n WHERE {_CHANNEL} ORDER BY n.entity_id""",
            {"channel": channel, "default": default_channel},
        ).fetchall()
        return [(r[0], r[1], r[2], list(r[3] or [])) for r in rows]

    def common_folder(self, entity_type: str) -> str | None:
        """The folder holding the most notes of this type ("" for the vault's root; the
        first by name on a tie), None when no note has it."""
        row = self.con.execute(
            """SELECT folder FROM notes WHERE type = ?
               GROUP BY folder ORDER BY count(*) DESC, folder LIMIT 1""",
            [entity_type],
        ).fetchone()
        return str(row[0]) if row else None

    def entities_named(self, name: str) -> list[str]:
        """Entities a link `[[name]]` could mean by id, path or file name."""
        rows = self.con.execute(
            """SELECT DISTINCT entity_id FROM entity_names WHERE key = ? AND priority <= 3
               ORDER BY 1""",
            [link_key(name)],
        ).fetchall()
        return [r[0] for r in rows]

    def relationships_changed(self) -> None:
        """Derive the path tables again after `relationships` was written directly (bulk
        loads, tests); the store's own writes keep them current incrementally."""
        with self.transaction():
            graph_paths.rebuild(self.con)

    def shortest_path(
        self, start: str, goal: str, max_hops: int
    ) -> tuple[list[str], list[str]] | None:
        """A shortest path within `max_hops`, walking relationships either way."""
        if start == goal:
            return [start], []
        return graph_paths.shortest_path(self.con, start, goal, max_hops)

    def set_relationship_meta(self, rel_id: str, confidence: float) -> None:
        self.con.execute(
            """INSERT INTO relationship_meta VALUES (?, ?, now()::TIMESTAMP)
               ON CONFLICT (rel_id) DO UPDATE SET confidence = excluded.confidence""",
            [rel_id, confidence],
        )


_CHANNEL = "coalesce(json_extract_string(n.frontmatter, '$.channel'), $default) = $channel"
_ENTITY_SELECT = """
    SELECT n.entity_id, n.title, n.type, n.aliases,
           n.frontmatter::VARCHAR, n.path, n.created_at, n.indexed_at,
           coalesce(u.q_value, 0.5), coalesce(u.access_count, 0), u.last_accessed
    FROM notes n LEFT JOIN entity_usage u USING (entity_id)"""
_REL_SELECT = """
    SELECT r.rel_id, r.source_id, r.target_id, r.type, r.label,
           coalesce(m.confidence, r.confidence), r.origin, m.created_at, n.indexed_at,
           json_extract_string(n.frontmatter, '$.channel')
    FROM r LEFT JOIN relationship_meta m USING (rel_id)
    JOIN notes n ON n.entity_id = r.source_id"""


def _entity(r: tuple[Any, ...]) -> dict[str, Any]:
    import json

    return {
        "id": r[0],
        "name": r[1],
        "type": r[2],
        "aliases": list(r[3] or []),
        "frontmatter": json.loads(r[4] or "{}"),
        "path": r[5],
        "created_at": r[6],
        "indexed_at": r[7],
        "q_value": float(r[8]),
        "access_count": int(r[9]),
        "last_accessed": r[10],
    }


def _relationship(r: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "id": r[0],
        "fromEntityId": r[1],
        "toEntityId": r[2],
        "type": r[3],
        "label": r[4],
        "confidence": float(r[5]),
        "source": r[6],
        "createdAt": r[7] or r[8],
        "channel": r[9],
    }
