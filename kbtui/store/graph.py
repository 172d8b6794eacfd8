"""The knowledge graph in the index: entity names, resolved relationships, usage statistics.

Relationships are derived from the `links` table the way Obsidian resolves links: a link's
target matches an entity id, a vault path, a file name, a title or an alias, ignoring case
(in that order of preference). Derived data is kept current incrementally: when notes change,
only relationships touching them, and links whose target names them (old or new names), are
recomputed. Usage statistics (Q-values) live apart, keyed by entity id, so re-indexing content
never resets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from kbtui.models import NoteWrite

# Frontmatter keys that name a spec relationship type; other link-bearing keys become
# RELATED_TO with the key as label, body links REFERENCES.
REL_TYPES = {
    "works_on": "WORKS_ON",
    "owns": "OWNS",
    "owner": "OWNS",
    "depends_on": "DEPENDS_ON",
    "related_to": "RELATED_TO",
    "member_of": "MEMBER_OF",
    "uses": "USES",
    "created": "CREATED",
    "modified": "MODIFIED",
    "references": "REFERENCES",
    "embeds": "REFERENCES",
    "blocks": "BLOCKS",
    "contradicts": "CONTRADICTS",
}
NAME_PRIORITY = {"id": 0, "path": 1, "stem": 2, "title": 3, "alias": 4}
_TYPE_CASE = (
    "CASE l.rel "
    + " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in REL_TYPES.items())
    + " ELSE 'RELATED_TO' END"
)
_LABEL_CASE = (
    "CASE WHEN l.rel IN ("
    + ", ".join(f"'{k}'" for k in REL_TYPES if k != "embeds")
    + ") THEN nullif(l.label, '') WHEN l.rel = 'embeds' THEN 'embeds' "
    "ELSE coalesce(nullif(l.label, ''), l.rel) END"
)


def link_key(target: str) -> str:
    """How a link target is compared with entity names: case-folded, no `.md`, no slashes."""
    key = target.strip().lower()
    if key.endswith(".md"):
        key = key[:-3]
    return key.strip("/")


def note_keys(write: NoteWrite) -> list[tuple[str, str]]:
    """(key, kind) under which links can reach this note."""
    note = write.note
    path = note.path.rsplit(".", 1)[0]
    keys = [(note.entity_id, "id"), (path, "path"), (path.rsplit("/", 1)[-1], "stem")]
    keys += [(note.title, "title")] + [(a, "alias") for a in note.aliases]
    return [(link_key(k), kind) for k, kind in keys if link_key(k)]


class GraphStore:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection

    def _bulk_insert(
        self, table: str, columns: dict[str, Any], extra_null: int = 0, select: str = "*"
    ) -> None: ...

    def _old_keys(self, ids: Sequence[str]) -> list[str]:
        rows = self.con.execute(
            "SELECT DISTINCT key FROM entity_names WHERE list_contains(?, entity_id)", [list(ids)]
        ).fetchall()
        return [r[0] for r in rows]

    def _write_names(self, ids: Sequence[str], batch: Sequence[NoteWrite]) -> None:
        self.con.execute(
            "DELETE FROM entity_names WHERE list_contains(?, entity_id)", [list(ids)]
        )
        rows = [(w.note.entity_id, key, kind) for w in batch for key, kind in note_keys(w)]
        self._bulk_insert(
            "entity_names",
            {
                "e": [r[0] for r in rows],
                "k": [r[1] for r in rows],
                "p": [NAME_PRIORITY[r[2]] for r in rows],
            },
        )

    def _relink(self, ids: Sequence[str], old_keys: Sequence[str]) -> None:
        """Recompute relationships touching `ids` and links whose target named them."""
        keys = sorted(set(old_keys) | set(self._old_keys(ids)))
        params = {"ids": list(ids), "keys": keys}
        self.con.execute(
            """CREATE OR REPLACE TEMP TABLE _relink AS
               SELECT unnest($ids) AS entity_id
               UNION SELECT DISTINCT entity_id FROM links WHERE list_contains($keys, key)""",
            params,
        )
        self.con.execute("""DELETE FROM relationships WHERE source_id IN (SELECT entity_id FROM _relink)
                            OR target_id IN (SELECT entity_id FROM _relink)""")
        self._insert_relationships("l.entity_id IN (SELECT entity_id FROM _relink)")
        self._insert_relationships(
            "l.entity_id NOT IN (SELECT entity_id FROM _relink) AND r.entity_id IN "
            "(SELECT entity_id FROM _relink)"
        )
        self.con.execute("DROP TABLE _relink")

    def _insert_relationships(self, where: str) -> None:
        self.con.execute(f"""
            INSERT INTO relationships
            SELECT DISTINCT ON (rel_id) * FROM (
                SELECT 'rel_' || left(md5(l.entity_id || '|' || {_TYPE_CASE} || '|' ||
                                          r.entity_id || '|' || coalesce({_LABEL_CASE}, '')), 16)
                           AS rel_id,
                       l.entity_id AS source_id, r.entity_id AS target_id,
                       {_TYPE_CASE} AS type, {_LABEL_CASE} AS label,
                       1.0 AS confidence, n.path AS origin
                FROM links l
                JOIN (SELECT key, arg_min(entity_id, (priority, entity_id)) AS entity_id
                      FROM entity_names GROUP BY key) r ON r.key = l.key
                JOIN notes n ON n.entity_id = l.entity_id
                WHERE r.entity_id <> l.entity_id AND {where})
            ORDER BY rel_id""")

    def rebuild_relationships(self) -> None:
        """Derive every relationship again (after a migration or for tests)."""
        self.con.execute("DELETE FROM relationships")
        self._insert_relationships("TRUE")
