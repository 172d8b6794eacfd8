"""Browsing reads for the TUI: what the vault holds by type, tag and folder, and pages of
entities with their link counts. No tool contract covers these; the app_* operations of
kbtui.tools.browse expose them."""

from __future__ import annotations

from typing import Any

import duckdb

from kbtui.store.queries import console


class BrowseQueries:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection

    def read_only_query(
        self, sql: str, max_rows: int
    ) -> tuple[list[str], list[tuple[Any, ...]], bool]:
        """A person's own SELECT (`kbtui sql`), refused unless it is one read-only
        statement (kbtui.store.queries.console): columns, rows, whether rows were left out."""
        return console.read_only_query(self.con, sql, max_rows)

    def pdf_summary(self) -> dict[str, Any]:
        """How many PDFs the index holds, and each one it could not read with the reason
        (kbtui.indexing.pdf_notes records it as the `unreadable` property)."""
        rows = self.con.execute(
            "SELECT path, frontmatter ->> '$.unreadable' FROM notes "
            "WHERE lower(path) LIKE '%.pdf' ORDER BY path"
        ).fetchall()
        return {"pdfs": len(rows), "pdfs_unreadable": {p: r for p, r in rows if r is not None}}

    def type_counts(self) -> list[tuple[str, int]]:
        """(type, notes) by count, most first."""
        rows = self.con.execute(
            "SELECT type, count(*) FROM notes GROUP BY type ORDER BY 2 DESC, 1"
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def tag_counts(self, limit: int) -> list[tuple[str, int]]:
        """(tag, notes) by count, most first."""
        rows = self.con.execute(
            "SELECT tag, count(DISTINCT entity_id) FROM tags GROUP BY tag ORDER BY 2 DESC, 1 "
            "LIMIT ?",
            [limit],
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def folder_counts(self, limit: int) -> list[tuple[str, int]]:
        """(folder, notes in it or below), every ancestor folder included, by path. A folder
        filter matches subfolders, so a parent is a useful choice on its own."""
        rows = self.con.execute(
            """
            WITH parts AS (SELECT entity_id, string_split(folder, '/') AS p FROM notes
                           WHERE folder <> ''),
                 prefixes AS (SELECT entity_id,
                                     unnest(list_transform(range(1, len(p) + 1),
                                            i -> array_to_string(p[1:i], '/'))) AS folder
                              FROM parts)
            SELECT folder, count(DISTINCT entity_id) FROM prefixes
            GROUP BY folder ORDER BY folder LIMIT ?""",
            [limit],
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def entity_page(
        self, entity_type: str | None, offset: int, limit: int
    ) -> tuple[list[dict[str, Any]], int]:
        """Entities (of one type, or all) by title with their outgoing and incoming
        relationship counts, and how many there are in all."""
        where = "WHERE n.type = $type" if entity_type else ""
        params: dict[str, Any] = {"offset": offset, "limit": limit}
        if entity_type:
            params["type"] = entity_type
        rows = self.con.execute(
            f"""
            WITH page AS (SELECT entity_id, title, type, path, count(*) OVER () AS total
                          FROM notes n {where}
                          ORDER BY lower(title), entity_id LIMIT $limit OFFSET $offset),
                 outs AS (SELECT source_id AS entity_id, count(*) AS n FROM relationships
                          WHERE source_id IN (SELECT entity_id FROM page) GROUP BY 1),
                 ins AS (SELECT target_id AS entity_id, count(*) AS n FROM relationships
                         WHERE target_id IN (SELECT entity_id FROM page) GROUP BY 1)
            SELECT page.entity_id, title, type, path, coalesce(outs.n, 0), coalesce(ins.n, 0),
                   total
            FROM page LEFT JOIN outs USING (entity_id) LEFT JOIN ins USING (entity_id)
            ORDER BY lower(title), page.entity_id""",
            params,
        ).fetchall()
        if not rows and offset:
            total_row = self.con.execute(
                f"SELECT count(*) FROM notes n {where}",
                {"type": entity_type} if entity_type else {},
            ).fetchone()
            return [], int(total_row[0]) if total_row else 0
        keys = ("id", "title", "type", "path", "outgoing", "incoming")
        return [dict(zip(keys, r[:6], strict=True)) for r in rows], int(rows[0][6]) if rows else 0

    def entity_labels(self, ids: list[str]) -> dict[str, tuple[str, str]]:
        """id -> (title, type), without touching usage statistics (display only)."""
        if not ids:
            return {}
        rows = self.con.execute(
            "SELECT entity_id, title, type FROM notes WHERE entity_id IN (SELECT unnest($ids))",
            {"ids": ids},
        ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def link_names(self) -> list[tuple[str, str, list[str]]]:
        """(path, title, aliases) of every indexed file, by path: what `[[` completes."""
        rows = self.con.execute("SELECT path, title, aliases FROM notes ORDER BY path").fetchall()
        return [(str(r[0]), str(r[1]), [str(a) for a in r[2] or []]) for r in rows]
