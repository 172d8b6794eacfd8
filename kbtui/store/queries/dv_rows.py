"""What a Dataview query reads of the index (kbtui/dataview): the pages a FROM source picks,
found in SQL, with their facts; their list items, links and backlinks when the query reads
them; the names links resolve by, as Obsidian resolves them (path, end of a path, file name;
kbtui.store.graph.vault_facts).

A source is a tuple tree: ("all",), ("folder", name), ("tag", "#tag"), ("incoming", path or
None, key), ("outgoing", path or None, key), ("and"|"or", a, b), ("not", a). Values are
parameters, never text of the SQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb
import numpy as np

from kbtui.store.queries.dv_where import Params, render

# The names Obsidian follows (kbtui.store.graph.vault_facts.OBSIDIAN_NAMES): path, end of a path,
# file name; never a title or an alias.
OBSIDIAN_NAMES = "e.priority BETWEEN 1 AND 3"

_PAGES = """SELECT n.path, n.entity_id, n.size, n.mtime_ns,
                   coalesce(vf.ctime_ns, epoch_ns(n.created_at::TIMESTAMP)),
                   n.frontmatter::VARCHAR, {fields}, p.etags, p.day
            FROM notes n JOIN dv_pages p USING (entity_id)
            LEFT JOIN vault_files vf ON vf.path = n.path"""


def _path(key: str) -> str:
    return '$."' + key + '"'


def _pages(keys: Sequence[str] | None, p: Params) -> str:
    """The pages' SELECT; with `keys`, each page's fields narrowed to those keys in SQL."""
    if keys is None or any('"' in k or "\\" in k for k in keys):
        return _PAGES.format(fields="p.fields")
    if not keys:
        return _PAGES.format(fields="'{}'")
    pairs = ", ".join(f"{p(k)}, json_extract(p.fields, {p(_path(k))})" for k in keys)
    return _PAGES.format(fields=f"json_object({pairs})::VARCHAR")


def render_source(source: tuple[Any, ...], p: Params) -> str:
    """SQL (true or false, never NULL) over `n`, the notes, for one source."""
    kind = source[0]
    if kind == "all":
        return "TRUE"
    if kind in ("and", "or"):
        return f"({render_source(source[1], p)} {kind.upper()} {render_source(source[2], p)})"
    if kind == "not":
        return f"(NOT {render_source(source[1], p)})"
    if kind == "folder":
        name = source[1]
        if not name:
            return "TRUE"
        f = p(name)
        return (f"(CASE WHEN EXISTS (SELECT 1 FROM vault_files WHERE starts_with(path, {f} || '/'))"
                f" THEN starts_with(n.path, {f} || '/') ELSE n.path IN ({f}, {f} || '.md') END)"
                )  # fmt: skip
    if kind == "tag":
        t = p(source[1].lstrip("#").lower())
        return (f"n.entity_id IN (SELECT entity_id FROM tags WHERE tag = {t}"
                f" OR starts_with(tag, {t} || '/'))")  # fmt: skip
    if kind in ("incoming", "outgoing"):
        path, key = source[1], source[2]
        if path is None:  # a target no note has: pages with a link to it that is unresolved
            return (f"n.entity_id IN (SELECT entity_id FROM link_dest WHERE dest IS NULL "
                    f"AND key = {p(key)})")  # fmt: skip
        if kind == "incoming":
            return (f"n.entity_id IN (SELECT d.entity_id FROM link_dest d JOIN notes t "
                    f"ON t.entity_id = d.dest WHERE t.path = {p(path)})")  # fmt: skip
        return (f"n.entity_id IN (SELECT d.dest FROM link_dest d JOIN notes s "
                f"ON s.entity_id = d.entity_id WHERE s.path = {p(path)})")  # fmt: skip
    raise ValueError(f"unknown source {kind!r}")


_ITEMS = """SELECT i.entity_id, i.line, i.parent, i.list_line, i.symbol, i.status, i.text,
                   i.line_count, i.section, i.block_id, i.fields, i.tags, i.links, t.text
            FROM dv_items i LEFT JOIN (SELECT entity_id, line, text FROM tasks
                                       WHERE entity_id IN ({ids})) t
              ON t.entity_id = i.entity_id AND t.line = i.line"""


@contextmanager
def _listed(con: duckdb.DuckDBPyConnection, **columns: Sequence[Any]) -> Iterator[str]:
    """Value lists as a relation (numpy arrays, which DuckDB scans as they are: a list passed as
    a parameter is converted value by value, ~25 us each); yields its name."""
    name = f"_dv_{uuid.uuid4().hex}"
    arrays = {
        k: np.asarray(v, dtype=np.int64 if v and isinstance(v[0], int) else np.str_)
        for k, v in columns.items()
    }
    con.register(name, arrays)
    try:
        yield name
    finally:
        con.unregister(name)


class DataviewQueries:
    """Mixed into Store: the reads behind kbtui/dataview."""

    con: duckdb.DuckDBPyConnection

    def dv_pages(
        self,
        source: tuple[Any, ...],
        where: tuple[Any, ...] = ("true",),
        keys: Sequence[str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """(path, entity id, size, mtime_ns, ctime_ns, properties JSON, fields JSON, tags JSON,
        day) of every markdown page the source picks that may pass `where` (a condition of
        kbtui.store.queries.dv_where), in path order; with `keys`, only those fields."""
        p = Params()
        select = _pages(keys, p)
        sql = f"{render_source(source, p)} AND {render(where, p)}"
        return self.con.execute(f"{select} WHERE {sql} ORDER BY n.path", p).fetchall()

    def dv_task_pages(
        self,
        source: tuple[Any, ...],
        where: tuple[Any, ...] = ("true",),
        whole: bool | None = True,
        keys: Sequence[str] | None = None,
    ) -> tuple[list[tuple[Any, ...]], set[tuple[str, int]], list[tuple[Any, ...]]]:
        """The pages (as dv_pages) holding a task that may pass `where`, those tasks as
        (entity id, 1-based line), and list items (as dv_items): every item of those pages
        with `whole`, with False those tasks and the items under them, with None none."""
        p = Params()
        sql = f"{render_source(source, p)} AND {render(where, p)}"
        found = self.con.execute(
            f"""SELECT n.entity_id, i.line FROM notes n JOIN dv_pages p USING (entity_id)
                JOIN dv_items i ON i.entity_id = n.entity_id
                WHERE i.status IS NOT NULL AND {sql}""",
            p,
        ).fetchall()
        tasks = {(r[0], int(r[1])) for r in found}
        eids = sorted({e for e, _ in tasks})
        rows = self._pages_of(eids, keys)
        if whole is None or not found:
            return rows, tasks, []
        if whole:
            return rows, tasks, self.dv_items(eids)
        cand = [(e, int(line)) for e, line in found]
        with _listed(self.con, e=[e for e, _ in cand], l=[x for _, x in cand]) as c:
            items = self.con.execute(
                f"""WITH RECURSIVE keep(entity_id, line) AS (
                        SELECT e::VARCHAR, l::INTEGER FROM {c}
                        UNION SELECT i.entity_id, i.line FROM dv_items i
                        JOIN keep k ON i.entity_id = k.entity_id AND i.parent = k.line)
                    {_ITEMS.format(ids=f"SELECT DISTINCT e FROM {c}")}
                    SEMI JOIN keep k ON k.entity_id = i.entity_id AND k.line = i.line
                    ORDER BY i.entity_id, i.line"""
            ).fetchall()
        return rows, tasks, items

    def _pages_of(self, eids: Sequence[str], keys: Sequence[str] | None) -> list[tuple[Any, ...]]:
        q = Params()
        select = _pages(keys, q)
        with _listed(self.con, e=list(eids)) as listed:
            return self.con.execute(
                f"{select} WHERE n.entity_id IN (SELECT e FROM {listed}) ORDER BY n.path", q
            ).fetchall()

    def dv_page_paths(
        self, source: tuple[Any, ...], where: tuple[Any, ...] = ("true",)
    ) -> list[str]:
        """The paths of dv_pages' rows, only (a process holding every page built)."""
        p = Params()
        sql = f"{render_source(source, p)} AND {render(where, p)}"
        rows = self.con.execute(
            f"SELECT n.path FROM notes n JOIN dv_pages p USING (entity_id) WHERE {sql} "
            "ORDER BY n.path",
            p,
        ).fetchall()
        return [r[0] for r in rows]

    def dv_task_keys(
        self, source: tuple[Any, ...], where: tuple[Any, ...] = ("true",)
    ) -> list[tuple[str, int]]:
        """(path, 0-based line) of the tasks dv_task_pages finds, in path and line order."""
        p = Params()
        sql = f"{render_source(source, p)} AND {render(where, p)}"
        rows = self.con.execute(
            f"""SELECT n.path, i.line - 1 FROM notes n JOIN dv_pages p USING (entity_id)
                JOIN dv_items i ON i.entity_id = n.entity_id
                WHERE i.status IS NOT NULL AND {sql} ORDER BY n.path, i.line""",
            p,
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def dv_pages_at(self, paths: Sequence[str]) -> list[tuple[Any, ...]]:
        """The same rows for these vault paths (the pages `this` and links read)."""
        with _listed(self.con, p=list(paths)) as listed:
            return self.con.execute(
                _PAGES.format(fields="p.fields")
                + f" WHERE n.path IN (SELECT p FROM {listed}) ORDER BY n.path"
            ).fetchall()

    def dv_items(self, entity_ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """(entity id, line, parent, list line, symbol, status, text, line count, section,
        block id, fields, tags, links, the task's line as written) of these pages' list items,
        in line order."""
        with _listed(self.con, e=list(entity_ids)) as listed:
            ids = f"SELECT e FROM {listed}"
            return self.con.execute(
                f"""{_ITEMS.format(ids=ids)} WHERE i.entity_id IN ({ids})
                    ORDER BY i.entity_id, i.line"""
            ).fetchall()

    def dv_links(self, entity_ids: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
        """(entity id, target, rel, heading, label) of these pages' Obsidian links (not a
        relation key's bare value), properties' first, in the note's order."""
        with _listed(self.con, e=list(entity_ids)) as listed:
            rows = self.con.execute(
                f"""SELECT entity_id, target, rel, heading, label FROM links
                    WHERE entity_id IN (SELECT e FROM {listed})
                      AND coalesce(form, 'wiki') <> 'bare' ORDER BY rowid"""
            ).fetchall()
        return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def dv_inlinks(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(entity id, path of a page linking to it) for these pages, each pair once."""
        with _listed(self.con, e=list(entity_ids)) as listed:
            rows = self.con.execute(
                f"""SELECT DISTINCT d.dest, s.path FROM link_dest d JOIN notes s
                    ON s.entity_id = d.entity_id
                    WHERE d.dest IN (SELECT e FROM {listed}) ORDER BY 1, 2"""
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def dv_link_targets(self, paths: Sequence[str]) -> list[str]:
        """The paths of the notes these notes' links reach now."""
        if not paths:
            return []
        rows = self.con.execute(
            """SELECT DISTINCT t.path FROM link_dest d
               JOIN notes s ON s.entity_id = d.entity_id JOIN notes t ON t.entity_id = d.dest
               WHERE s.path IN (SELECT unnest($p))""",
            {"p": list(paths)},
        ).fetchall()
        return [r[0] for r in rows]

    def dv_names(self, keys: Sequence[str]) -> list[tuple[str, int, str]]:
        """(key, priority, path) of every note a link by one of `keys` (kbtui's link keys)
        may reach as Obsidian resolves it: 1 by path, 2 by the end of a path, 3 by file name."""
        if not keys:
            return []
        with _listed(self.con, k=sorted(set(keys))) as listed:
            rows = self.con.execute(
                f"""SELECT e.key, e.priority, n.path FROM entity_names e
                    JOIN notes n USING (entity_id)
                    WHERE e.key IN (SELECT k FROM {listed}) AND {OBSIDIAN_NAMES}"""
            ).fetchall()
        return [(r[0], int(r[1]), r[2]) for r in rows]

    def dv_page_count(self) -> tuple[int, int]:
        """(markdown notes, pages with Dataview's facts): an index written before Dataview's
        facts were kept has notes but no pages until it is read again."""
        row = self.con.execute(
            """SELECT (SELECT count(*) FROM notes WHERE lower(path) LIKE '%.md'),
                      (SELECT count(*) FROM dv_pages)"""
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)
