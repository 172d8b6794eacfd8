"""Queries behind link suggestions and renames: which names reach a note, which notes link
through them, which entities are already linked from a note."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from kbtui.store.graph.vault_facts import VaultFacts


class LinkQueries(VaultFacts):
    """Mixed into Store (with the queries behind Obsidian's vault commands)."""

    con: duckdb.DuckDBPyConnection

    def winning_names(self, entity_id: str) -> list[tuple[str, int]]:
        """(key, kind priority) of every name under which a link reaches this entity (the
        names another entity wins by priority are left out)."""
        rows = self.con.execute(
            """SELECT key, min(priority) FROM entity_names WHERE key IN
                   (SELECT key FROM entity_names WHERE entity_id = $id)
               GROUP BY key
               HAVING arg_min(entity_id, (priority, entity_id)) = $id
               ORDER BY key""",
            {"id": entity_id},
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def paths_linking(self, keys: Sequence[str]) -> list[str]:
        """Vault paths of the notes holding a link whose key is one of `keys`."""
        rows = self.con.execute(
            """SELECT DISTINCT n.path FROM links l JOIN notes n USING (entity_id)
               WHERE list_contains($keys, l.key) ORDER BY 1""",
            {"keys": list(keys)},
        ).fetchall()
        return [r[0] for r in rows]

    def name_owners(self) -> list[tuple[str, str]]:
        """(title or alias, entity id) of every note: the names prose may mention."""
        rows = self.con.execute(
            """SELECT title, entity_id FROM notes
               UNION SELECT unnest(aliases), entity_id FROM notes ORDER BY 2, 1"""
        ).fetchall()
        return [(r[0], r[1]) for r in rows if r[0]]

    def note_paths(self) -> dict[str, str]:
        """Entity id -> vault path of every note."""
        rows = self.con.execute("SELECT entity_id, path FROM notes ORDER BY path").fetchall()
        return {r[0]: r[1] for r in rows}

    def linked_pairs(self) -> set[tuple[str, str]]:
        """(source, target) of every relationship, to leave linked pairs out of suggestions."""
        rows = self.con.execute("SELECT DISTINCT source_id, target_id FROM relationships")
        return {(r[0], r[1]) for r in rows.fetchall()}
