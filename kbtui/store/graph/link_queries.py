"""Queries behind link suggestions and renames: which names reach a note, which notes link
through them, which entities are already linked from a note."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from kbtui.store.graph.links import link_key, resolved_links_sql
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

    def link_target(self, source_id: str, target: str) -> str | None:
        """The note a link from `source_id` to `target` (as written) reaches, if any: read
        from the relationships the index resolved (ms, where resolving anew took ~80 ms)."""
        row = self.con.execute(
            """SELECT r.target_id FROM relationships r
               JOIN entity_names e ON e.entity_id = r.target_id AND e.key = $key
               WHERE r.source_key = hash($src) AND r.source_id = $src
               ORDER BY e.priority, r.target_id LIMIT 1""",
            {"src": source_id, "key": link_key(target)},
        ).fetchone()
        return None if row is None else str(row[0])

    def note_paths(self) -> dict[str, str]:
        """Entity id -> vault path of every note."""
        rows = self.con.execute("SELECT entity_id, path FROM notes ORDER BY path").fetchall()
        return {r[0]: r[1] for r in rows}

    def linked_pairs(self) -> set[tuple[str, str]]:
        """(source, target) of every relationship, to leave linked pairs out of suggestions."""
        rows = self.con.execute("SELECT DISTINCT source_id, target_id FROM relationships")
        return {(r[0], r[1]) for r in rows.fetchall()}

    def names_held(self, keys: Sequence[str], but: str) -> list[tuple[str, str, int]]:
        """(key, entity id, kind priority) of every other note that answers to one of `keys`."""
        rows = self.con.execute(
            """SELECT key, entity_id, min(priority) FROM entity_names
               WHERE list_contains($keys, key) AND entity_id <> $but
               GROUP BY key, entity_id ORDER BY key, entity_id""",
            {"keys": list(keys), "but": but},
        ).fetchall()
        return [(r[0], r[1], int(r[2])) for r in rows]

    def links_retargeted(
        self, entity_id: str, new_id: str, names: Sequence[tuple[str, int]], folder: str
    ) -> list[tuple[str, str, str, str]]:
        """(source id, key, target now, target then) of every indexed link that would reach
        another note than it does now if `entity_id` were `new_id`, answered to `names` (key,
        priority) and sat in `folder`: the one resolver, run over what a rename would leave
        (the id counts: it breaks ties)."""
        params = {
            "id": entity_id,
            "new": new_id,
            "keys": [k for k, _ in names],
            "p": [p for _, p in names],
        }
        self.con.execute(
            """CREATE OR REPLACE TEMP TABLE _names_if AS
               SELECT * FROM entity_names WHERE entity_id <> $id
               UNION ALL SELECT $new, unnest($keys), unnest($p)""",
            params,
        )
        self.con.execute(
            """CREATE OR REPLACE TEMP TABLE _notes_if AS
               SELECT entity_id, folder FROM notes WHERE entity_id <> $id
               UNION ALL SELECT $new, $folder""",
            {"id": entity_id, "new": new_id, "folder": folder},
        )
        where = (
            "(list_contains($keys, l.key) OR l.key IN "
            "(SELECT key FROM entity_names WHERE entity_id = $id))"
        )
        try:
            rows = self.con.execute(
                f"""WITH now AS ({resolved_links_sql(where, "entity_names", "notes")}),
                    after AS ({resolved_links_sql(where, "_names_if", "_notes_if")})
                    SELECT now.source_id, now.key, now.target_id,
                           CASE WHEN after.target_id = $new THEN $id ELSE after.target_id END
                    FROM now JOIN after USING (source_id, key)
                    WHERE now.target_id <> CASE WHEN after.target_id = $new THEN $id
                                                ELSE after.target_id END
                      AND (now.target_id = $id OR after.target_id = $new)
                      AND now.source_id <> $id
                    ORDER BY 1, 2""",
                {"keys": [k for k, _ in names], "id": entity_id, "new": new_id},
            ).fetchall()
        finally:
            self.con.execute("DROP TABLE IF EXISTS _names_if")
            self.con.execute("DROP TABLE IF EXISTS _notes_if")
        return [(r[0], r[1], r[2], r[3]) for r in rows]
