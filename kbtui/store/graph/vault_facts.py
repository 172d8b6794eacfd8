"""Queries behind Obsidian's own vault commands (issue 29): links resolved per occurrence as
Obsidian resolves them (path, end of a path, file name: never a title or alias, which Obsidian
does not follow; nearest note first), written to `link_dest` when notes are indexed (see
GraphStore._relink) and read from there; tasks, tags and properties."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import duckdb

from kbtui.store.graph.links import _folder_steps, link_key

OBSIDIAN_NAMES = "e.priority BETWEEN 1 AND 3"  # path, end of a path, file name
_FIRST_WRITTEN = "(n.created_at, n.path, f.pos)"  # a tag's form: the first note's, made first
TASK_COLUMNS = (
    "file",
    "line",
    "status",
    "text",
    "due",
    "scheduled",
    "start",
    "done",
    "priority",
    "recurrence",
    "id",
    "heading",
)


def insert_link_dest_sql(where: str) -> str:
    """INSERT into `link_dest` each Obsidian link (not a relation key's bare value) of the
    notes `where` picks (a filter on `l`) with the note it reaches, NULL for none: done at
    index time for the notes a write touches, so the answers read one table. A key one note
    owns resolves by a join; only keys several notes share are resolved per linking note
    (the nearest, then the first path)."""
    return f"""
    INSERT INTO link_dest
    WITH l AS MATERIALIZED (SELECT l.entity_id AS src, l.target, l.key FROM links l
               WHERE coalesce(l.form, 'wiki') <> 'bare' AND ({where})),
    cand AS MATERIALIZED (SELECT e.key, e.entity_id, e.priority FROM entity_names e
             WHERE e.key IN (SELECT DISTINCT key FROM l) AND {OBSIDIAN_NAMES}),
    top AS (SELECT c.key, c.entity_id FROM cand c
            JOIN (SELECT key, min(priority) AS p FROM cand GROUP BY key) b
              ON b.key = c.key AND b.p = c.priority),
    owners AS (SELECT key, min(entity_id) AS dst, count(DISTINCT entity_id) AS n
               FROM top GROUP BY key),
    near AS (SELECT p.src, p.key,
                    arg_min(t.entity_id, ({_folder_steps("sn.folder", "tn.folder")}, tn.path))
                        AS dst
             FROM (SELECT DISTINCT src, key FROM l
                   WHERE key IN (SELECT key FROM owners WHERE n > 1)) p
             JOIN top t ON t.key = p.key
             JOIN notes sn ON sn.entity_id = p.src
             JOIN notes tn ON tn.entity_id = t.entity_id
             GROUP BY p.src, p.key)
    SELECT l.src, l.target, l.key, CASE WHEN o.n = 1 THEN o.dst ELSE x.dst END
    FROM l LEFT JOIN owners o ON o.key = l.key
    LEFT JOIN near x ON x.src = l.src AND x.key = l.key"""


def _links_sql(where: str) -> str:
    """(source path, target as written, key, resolved path or NULL) of every Obsidian link
    `where` picks (a filter on `d`, the link_dest row)."""
    return f"""
    SELECT sn.path AS source, d.target, d.key, tn.path AS dest
    FROM link_dest d JOIN notes sn ON sn.entity_id = d.entity_id
    LEFT JOIN notes tn ON tn.entity_id = d.dest
    WHERE {where}"""


class VaultFacts:
    """Mixed into Store (through LinkQueries)."""

    con: duckdb.DuckDBPyConnection

    def obsidian_links(
        self, source_path: str | None = None, dest_path: str | None = None
    ) -> list[tuple[str, str, str, str | None]]:
        """Every link occurrence, or those of one note, or those that reach one note."""
        where, params = "TRUE", dict[str, Any]()
        for path, column in ((source_path, "d.entity_id"), (dest_path, "d.dest")):
            if path is not None:  # a constant, so the scan of link_dest is filtered
                row = self.con.execute("SELECT entity_id FROM notes WHERE path = ?", [path])
                found = row.fetchone()
                where, params = f"{column} = $id", {"id": found[0] if found else ""}
        rows = self.con.execute(_links_sql(where) + " ORDER BY 1, 2", params).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def unresolved_links(self, sources: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
        """(source path, target, key) of every link that reaches no note (of `sources` only,
        when given)."""
        where, params = "d.dest IS NULL", dict[str, Any]()
        if sources is not None:
            where += " AND list_contains($paths, sn.path)"
            params = {"paths": list(sources)}
        rows = self.con.execute(
            f"SELECT source, target, key FROM ({_links_sql(where)}) ORDER BY 2, 1", params
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def unresolved_counts(self, but: Sequence[str]) -> list[tuple[str, int, list[str]]]:
        """(target, links, sorted linking paths) of every target as written that reaches no
        note, by target, leaving out the keys in `but` (those reaching a file). Grouped
        here: DuckDB's sorted lists cost more than the flat rows at 10k notes."""
        rows = self.con.execute(
            """SELECT d.target, sn.path FROM link_dest d JOIN notes sn USING (entity_id)
               WHERE d.dest IS NULL AND trim(d.key, '/') NOT IN (SELECT unnest($but))""",
            {"but": list(but)},
        ).fetchall()
        grouped: dict[str, list[str]] = {}
        for target, source in rows:
            grouped.setdefault(target, []).append(source)
        return [(t, len(s), sorted(set(s))) for t, s in sorted(grouped.items())]

    def unlinked_paths(self, end: str) -> list[str]:
        """Notes no other note links to (`end` "dest": orphans) or that link to no other
        note (`end` "entity_id": dead ends, before links to attachments are counted)."""
        column = {"dest": "dest", "entity_id": "entity_id"}[end]
        rows = self.con.execute(
            f"""SELECT path FROM notes WHERE entity_id NOT IN (
                    SELECT {column} FROM link_dest WHERE dest <> entity_id) ORDER BY path"""
        ).fetchall()
        return [r[0] for r in rows]

    def note_by_name(self, name: str, source_folder: str = "") -> str | None:
        """The path of the note `name` reaches: a vault path, or a name resolved as a link."""
        row = self.con.execute("SELECT path FROM notes WHERE path = ?", [name]).fetchone()
        if row:
            return str(row[0])
        rows = self.con.execute(
            f"""SELECT n.path FROM entity_names e JOIN notes n USING (entity_id)
                WHERE e.key = $key AND {OBSIDIAN_NAMES}
                ORDER BY e.priority, {_folder_steps("$folder", "n.folder")}, n.path LIMIT 1""",
            {"key": link_key(name), "folder": source_folder},
        ).fetchall()
        return str(rows[0][0]) if rows else None

    def note_ids(self, paths: Sequence[str]) -> dict[str, str]:
        """{path: entity id} of the indexed notes among `paths`."""
        rows = self.con.execute(
            "SELECT path, entity_id FROM notes WHERE list_contains($paths, path)",
            {"paths": list(paths)},
        ).fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def all_note_paths(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT path FROM notes ORDER BY path").fetchall()]

    # -- tasks ----------------------------------------------------------------------------
    def tasks(
        self,
        status: str | None = None,
        symbols: Sequence[str] | None = None,
        exclude: bool = False,
        path: str | None = None,
        due_before: str | None = None,
        limit: int | None = None,
        due_invalid: bool = False,
    ) -> tuple[list[dict[str, Any]], int]:
        """Tasks in path and line order: of one status character, or whose character is in
        `symbols` (not in them with `exclude`); `due_before`: a real due day before it (a
        date that is no day, e.g. 1999-02-32, is never due). Returns the first `limit` tasks
        and how many there are. `due_invalid`: only tasks whose due date is no day."""
        where, params = ["TRUE"], dict[str, Any]()
        if status is not None:
            where.append("t.status = $status")
            params["status"] = status
        if symbols is not None:
            test = "list_contains(CAST($symbols AS VARCHAR[]), t.status)"
            where.append(("NOT " if exclude else "") + test)
            params["symbols"] = list(symbols)
        if path is not None:
            where.append("n.path = $path")
            params["path"] = path
        if due_before is not None:
            where.append("length(t.due) = 10 AND TRY_CAST(t.due AS DATE) < CAST($due AS DATE)")
            params["due"] = due_before
        if due_invalid:
            where.append("t.due <> '' AND (length(t.due) <> 10 OR TRY_CAST(t.due AS DATE) IS NULL)")
        sql = f"""FROM tasks t JOIN notes n USING (entity_id) WHERE {" AND ".join(where)}"""
        total = self.con.execute("SELECT count(*) " + sql, params).fetchone()
        rows = self.con.execute(
            f"""SELECT n.path, t.line, t.status, t.text, t.due, t.scheduled, t.start, t.done,
                       t.priority, t.recurrence, n.entity_id, t.heading {sql}
                ORDER BY n.path, t.line LIMIT {int(limit) if limit else "ALL"}""",
            params,
        ).fetchall()
        return [dict(zip(TASK_COLUMNS, r, strict=True)) for r in rows], int(
            total[0] if total else 0
        )

    def task_rows(
        self, symbols: Sequence[str] | None = None, exclude: bool = False
    ) -> list[tuple[str, int, str, str, str, str]]:
        """(path, line, status, text, heading, the plugin's reading) of every task (whose
        status character is in `symbols`, not in them with `exclude`), in path and line
        order: what a Tasks query reads."""
        where, params = "TRUE", dict[str, Any]()
        if symbols is not None:
            test = "list_contains(CAST($symbols AS VARCHAR[]), t.status)"
            where = ("NOT " if exclude else "") + test
            params["symbols"] = list(symbols)
        return self.con.execute(
            f"""SELECT n.path, t.line, t.status, t.text, t.heading, t.plugin
                FROM tasks t JOIN notes n USING (entity_id) WHERE {where}
                ORDER BY n.path, t.line""",
            params,
        ).fetchall()

    # -- tags and properties --------------------------------------------------------------
    def tag_forms(self) -> list[tuple[str, int, int]]:
        """(tag as first written, notes carrying it, times written) of every tag, by name.
        Obsidian matches tags whatever their case and shows the form the note made first has
        (help: Tags); a form written before the index knew counts is counted once a note."""
        rows = self.con.execute(
            f"""SELECT arg_min(f.tag, {_FIRST_WRITTEN}), count(DISTINCT f.entity_id), sum(f.uses)
                FROM file_tags f JOIN notes n USING (entity_id)
                GROUP BY lower(f.tag) ORDER BY lower(f.tag)"""
        ).fetchall()
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    def tag_files(self, tag: str) -> tuple[str, list[tuple[str, int]]]:
        """`tag` as first written, and (path, times written) of the notes carrying it or a tag
        nested under it (`a` holds `a/b`), whatever the case."""
        key = "#" + tag.lower().lstrip("#")
        form = self.con.execute(
            f"""SELECT arg_min(f.tag, {_FIRST_WRITTEN}) FROM file_tags f
                JOIN notes n USING (entity_id) WHERE lower(f.tag) = ?""",
            [key],
        ).fetchone()
        rows = self.con.execute(
            """SELECT n.path, sum(f.uses) FROM file_tags f JOIN notes n USING (entity_id)
               WHERE lower(f.tag) = $t OR starts_with(lower(f.tag), $t || '/')
               GROUP BY n.path ORDER BY 1""",
            {"t": key},
        ).fetchall()
        return (form and form[0]) or key, [(r[0], int(r[1])) for r in rows]

    def note_tags(self, path: str) -> list[tuple[str, int]]:
        """One note's tags as written (properties first, then the body) and how often each."""
        rows = self.con.execute(
            """SELECT f.tag, f.uses FROM file_tags f JOIN notes n USING (entity_id)
               WHERE n.path = ? ORDER BY f.pos""",
            [path],
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def frontmatters(self, path: str | None = None) -> list[tuple[str, str]]:
        """(path, frontmatter JSON) of every note, or of one."""
        sql = "SELECT path, frontmatter::VARCHAR FROM notes"
        if path is not None:
            rows = self.con.execute(sql + " WHERE path = ?", [path]).fetchall()
        else:
            rows = self.con.execute(sql + " ORDER BY path").fetchall()
        return [(r[0], r[1]) for r in rows]

    def property_counts(self, suffixes: Sequence[str]) -> list[tuple[str, int, str]]:
        """(property, notes having it, the first such note's path) over the notes whose
        path ends with one of `suffixes` (any case): the vault-wide answer counted here,
        not by reading every note's properties in Python (~50 ms CPU at 10k notes)."""
        rows = self.con.execute(
            """SELECT k, count(*), min(path) FROM (
                   SELECT path, unnest(json_keys(frontmatter)) AS k FROM notes
                   WHERE json_type(frontmatter) = 'OBJECT'
                     AND len(list_filter($s, x -> ends_with(lower(path), x))) > 0)
               GROUP BY k""",
            {"s": list(suffixes)},
        ).fetchall()
        return [(r[0], int(r[1]), r[2]) for r in rows]

    def property_value(self, key: str, suffixes: Sequence[str], but: str = "") -> str | None:
        """The JSON of the first value (by path) other than null that property `key` has in a
        note whose path ends with one of `suffixes` (any case), leaving out the note `but`."""
        row = self.con.execute(
            """SELECT v FROM (
                   SELECT path, frontmatter->('/' || replace(replace($k, '~', '~0'), '/', '~1'))
                       AS v FROM notes
                   WHERE json_type(frontmatter) = 'OBJECT' AND path <> $but
                     AND len(list_filter($s, x -> ends_with(lower(path), x))) > 0)
               WHERE v IS NOT NULL AND json_type(v) <> 'NULL' ORDER BY path LIMIT 1""",
            {"k": key, "s": list(suffixes), "but": but},
        ).fetchone()
        return None if row is None else str(row[0])

    def paths_containing(self, text: str, folder: str = "") -> list[str]:
        """Paths of the notes whose text (a chunk, the title or the path) holds `text`, in
        any case, and of those whose properties hold each of its words (the properties
        block is kept as JSON, not as the lines written): callers check the case and the
        lines in the file itself."""
        words = re.findall(r"\w+", text.lower())
        in_props = " AND ".join(
            f"contains(lower(n.frontmatter::VARCHAR), $w{i})" for i in range(len(words))
        )
        rows = self.con.execute(
            f"""SELECT DISTINCT n.path FROM notes n WHERE (n.folder = $f OR starts_with(n.folder,
                   $f || '/') OR $f = '') AND (contains(lower(n.title), $q) OR EXISTS (
                   SELECT 1 FROM chunks c WHERE c.entity_id = n.entity_id
                   AND contains(lower(c.content), $q))
                   OR (n.frontmatter::VARCHAR NOT IN ('{{}}', 'null') AND {in_props or "TRUE"}))
               ORDER BY 1""",
            {"q": text.lower(), "f": folder.strip("/")} | {f"w{i}": w for i, w in enumerate(words)},
        ).fetchall()
        return [r[0] for r in rows]
