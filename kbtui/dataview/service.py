"""One evaluation behind every front end: a DQL query read, its FROM found in SQL
(kbtui.store.queries.dv_rows), the pages (or tasks) it picks read from the index with only what
the query reads of them, then its commands run in Python (kbtui.dataview.engine).

`this` is the note holding the query (`--this`): its fields, `this.file`, and `[[]]` in FROM.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbtui.dataview.engine import DRow, Result, run
from kbtui.dataview.evaluate import Context
from kbtui.dataview.functions import build
from kbtui.dataview.held import HeldPages
from kbtui.dataview.needs import needs, query_nodes
from kbtui.dataview.pages import Names, Need, PageBuilder, Row, link_targets
from kbtui.dataview.prefilter import conditions
from kbtui.dataview.query import DqlError, Query, parse_query
from kbtui.store.graph.links import link_key

if TYPE_CHECKING:
    from kbtui.store import Store

# A process answers its first queries by reading only what each needs (a CLI call asks once);
# one that keeps asking (the TUI, the MCP server) builds every page once and holds it, current
# change by change (kbtui.dataview.held); a bigger vault's pages stay in the index.
KEEP_AFTER = 2
KEEP_UP_TO = 20_000
_JS = re.compile(r"^\s*(```\s*dataviewjs|\$=|dv\.|await\s|const\s|let\s|var\s|function\s)")
_NOT_INDEXED = (
    "the index holds no Dataview facts yet (written by an older kbtui): run `kbtui index`"
)


class DataviewService:
    def __init__(self, store: Store, vault: Path) -> None:
        self.store = store
        self.vault = vault
        self._asked = 0  # queries answered; after KEEP_AFTER, pages are built once and held
        self._held: HeldPages | None = None

    # -- reading pages ------------------------------------------------------------------
    def _build(
        self,
        rows: list[tuple[Any, ...]],
        need: Need,
        only: dict[str, set[int]] | None = None,
        given: list[tuple[Any, ...]] | None = None,
    ) -> tuple[PageBuilder, list[Row]]:
        """Page rows (with what `need` asks of them) from the index's rows; each JSON column
        is parsed in one go, links are resolved in one read."""
        eids = [r[1] for r in rows]
        items: dict[str, list[tuple[Any, ...]]] = {}
        links: dict[str, list[tuple[str, str, str, str]]] = {}
        inlinks: dict[str, list[str]] = {}
        keys: set[str] = set()
        if need.items and eids:
            found = given if given is not None else self.store.dv_items(eids)
            parsed = [_column(found, k) for k in (10, 11, 12)]
            for item, fields, tags, out in zip(found, *parsed, strict=True):
                items.setdefault(item[0], []).append((*item[:10], fields, tags, out, item[13]))
                if out or '"$link"' in item[10]:
                    keys |= link_targets([fields, out])
        if need.outlinks and eids:
            for eid, target, rel, heading, label in self.store.dv_links(eids):
                links.setdefault(eid, []).append((target, rel, heading, label))
                keys.add(link_key(target))
        if need.inlinks and eids:
            for eid, path in self.store.dv_inlinks(eids):
                inlinks.setdefault(eid, []).append(path)
        page_fields = _column(rows, 6)
        if need.fields is not None:  # narrowed in SQL: a missing field came as null
            page_fields = [{k: v for k, v in f.items() if v is not None} for f in page_fields]
        for r, fields in zip(rows, page_fields, strict=True):
            if '"$link"' in r[6]:
                keys |= link_targets(fields.values())
        builder = PageBuilder(Names(self.store.dv_names(sorted(keys))), need)
        want = need.file_keys
        tags = _column(rows, 7) if want is None or want & {"tags", "etags"} else [[]] * len(rows)
        pages = [
            builder.page(r, f, t, links.get(r[1], ()), inlinks.get(r[1], ()),
                         items.get(r[1], ()), only.get(r[1], set()) if only else None)
            for r, f, t in zip(rows, page_fields, tags, strict=True)
        ]  # fmt: skip
        return builder, pages

    def _page_at(self, path: str, cache: dict[str, Row | None]) -> Row | None:
        if path not in cache:
            rows = self.store.dv_pages_at([path])
            cache[path] = self._build(rows, Need.everything())[1][0] if rows else None
        return cache[path]

    def _page_reader(self, cache: dict[str, Row | None]) -> Callable[[str], Row | None]:
        """How a query reads a page a link names: from the pages held, else built now."""
        held = self._held
        if held is None:
            return lambda path: self._page_at(path, cache)
        return lambda path: held.pages_at([path]).get(path)

    def this_page(self, name: str) -> Row:
        """The page `this` is: a vault path, or a name a link would reach."""
        wanted = name.strip().lstrip("/")
        path = wanted if self.store.dv_pages_at([wanted]) else None
        if path is None:
            path = self.store.note_by_name(wanted.removesuffix(".md"))
        page: Row | None = self._page_reader({})(path) if path else None
        if page is None:
            raise DqlError(f"no note {name!r} in the index to be `this`")
        return page

    # -- running ------------------------------------------------------------------------
    def query(
        self, text: str, this: str | None = None, now: datetime | None = None,
        prefilter: bool = True,
    ) -> tuple[Query, Result, Mapping[tuple[str, int], str]]:  # fmt: skip
        """Run one DQL query; DqlError names what cannot be read or run. `prefilter=False`
        reads every page the FROM picks (the SQL prefilter's tests compare the two)."""
        if _JS.match(text):
            raise DqlError("DataviewJS is not run: kbtui runs DQL queries only")
        query = parse_query(text)
        notes, pages = self.store.dv_page_count()
        if notes and not pages:
            raise DqlError(_NOT_INDEXED)
        self._asked += 1
        if self._held is None and self._asked > KEEP_AFTER and pages <= KEEP_UP_TO:
            self._held = HeldPages(self.store, self._build)
        if self._held is not None:
            self._held.refresh()
        this_row = self.this_page(this) if this else None
        here = this_row["file"]["path"] if this_row else ""
        cache: dict[str, Row | None] = {}
        folder = here.rsplit("/", 1)[0] if "/" in here else ""
        ctx = Context(
            this_row,
            resolve=lambda target: self.store.note_by_name(target, folder),
            page=self._page_reader(cache),
            now=now,
        )
        ctx.functions = build(ctx)
        _check(query, ctx)
        source = self._source(query.source, ctx, here)
        need = needs(query)
        where = conditions(query, ctx) if prefilter else ("true",)
        if self._held is not None:
            rows = self._held_rows(query, source, where)
            return query, run(query, rows, ctx), self._held.raw
        if query.kind == "task":
            keys = sorted(need.fields) if need.fields is not None else None
            found, tasks, items = self.store.dv_task_pages(source, where, need.all_items, keys)
            only: dict[str, set[int]] = {}
            for eid, line in tasks:
                only.setdefault(eid, set()).add(line)
            builder, built = self._build(found, need, None if need.all_items else only, items)
            paths = {r[1]: r[0] for r in found}
            wanted = {(paths[eid], line - 1) for eid, line in tasks}
            rows = [
                DRow(f"{t['path']}#{t['line']}", {**page, **t}, [(t["path"], t["line"])])
                for page in built
                for t in page["file"]["tasks"]
                if (t["path"], t["line"]) in wanted
            ]
        else:
            keys = sorted(need.fields) if need.fields is not None else None
            builder, built = self._build(self.store.dv_pages(source, where, keys), need)
            rows = [DRow(p["file"]["link"], p, [(p["file"]["path"], None)]) for p in built]
        return query, run(query, rows, ctx), builder.raw

    def _held_rows(
        self, query: Query, source: tuple[Any, ...], where: tuple[Any, ...]
    ) -> list[DRow]:
        """The rows of a query from the pages held: SQL says which may pass."""
        assert self._held is not None
        if query.kind != "task":
            paths = self.store.dv_page_paths(source, where)
            held = self._held.pages_at(paths)
            return [DRow(held[p]["file"]["link"], held[p], [(p, None)]) for p in paths if p in held]
        rows = []
        tasks: dict[int, Row] = {}
        last = ""
        keys = self.store.dv_task_keys(source, where)
        held = self._held.pages_at(list(dict.fromkeys(p for p, _ in keys)))
        for path, line in keys:
            page = held.get(path)
            if page is None:
                continue
            if path != last:
                tasks, last = {t["line"]: t for t in page["file"]["tasks"]}, path
            task = tasks.get(line)
            if task is not None:
                rows.append(DRow(f"{path}#{line}", {**page, **task}, [(path, line)]))
        return rows

    def _source(self, source: Any, ctx: Context, here: str) -> tuple[Any, ...]:
        if source is None:
            return ("all",)
        kind = source[0]
        if kind in ("and", "or"):
            return (kind, self._source(source[1], ctx, here), self._source(source[2], ctx, here))
        if kind == "not":
            return ("not", self._source(source[1], ctx, here))
        if kind in ("incoming", "outgoing"):
            target = source[1].path
            path = ctx.link(source[1]).key if target else here
            return (kind, path or None, link_key(target))
        return tuple(source)


def _column(rows: list[tuple[Any, ...]], i: int) -> list[Any]:
    """Column `i` of `rows`, JSON text, parsed in one call."""
    if not rows:
        return []
    return list(json.loads("[" + ",".join(r[i] for r in rows) + "]"))


def _check(query: Query, ctx: Context) -> None:
    """Every expression compiled once before any row is read: an unsupported function is an
    error naming it even when no row would reach it."""
    for node in query_nodes(query):
        ctx.compile(node)
