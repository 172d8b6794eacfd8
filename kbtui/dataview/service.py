"""One evaluation behind every front end: a DQL query read, its FROM found in SQL
(kbtui.store.queries.dv_rows), the pages (or tasks) it picks read from the index with only what
the query reads of them, then its commands run in Python (kbtui.dataview.engine).

`this` is the note holding the query (`--this`): its fields, `this.file`, and `[[]]` in FROM.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbtui.dataview.engine import DRow, Result, run
from kbtui.dataview.evaluate import Context
from kbtui.dataview.functions import build
from kbtui.dataview.pages import Names, Need, PageBuilder, Row, link_targets
from kbtui.dataview.query import DqlError, Query, parse_query
from kbtui.store.graph.links import link_key

if TYPE_CHECKING:
    from kbtui.store import Store

_JS = re.compile(r"^\s*(```\s*dataviewjs|\$=|dv\.|await\s|const\s|let\s|var\s|function\s)")
_NOT_INDEXED = (
    "the index holds no Dataview facts yet (written by an older kbtui): run `kbtui index`"
)


_KINDS = {"lit", "link", "date", "var", "neg", "bin", "list", "obj", "lambda", "call", "index"}


def _nodes(x: Any) -> Iterable[tuple[Any, ...]]:
    """Every expression node under `x` (object entries' values included)."""
    if isinstance(x, list):
        for y in x:
            yield from _nodes(y)
    elif isinstance(x, tuple) and x:
        if isinstance(x[0], str) and x[0] in _KINDS:
            yield x
        for part in x[1:] if isinstance(x[0], str) and x[0] in _KINDS else x:
            yield from _nodes(part)


def query_nodes(query: Query) -> list[Any]:
    nodes: list[Any] = [c.node for c in query.columns]
    nodes += [query.format] if query.format is not None else []
    for op in query.ops:
        if op[0] in ("where", "limit"):
            nodes.append(op[1])
        elif op[0] == "sort":
            nodes += [n for n, _ in op[1]]
        else:
            nodes.append(op[1].node)
    return nodes


def needs(query: Query) -> Need:
    """What of each page the query reads: list items, outlinks, backlinks."""
    need = Need(items=query.kind == "task")
    whole = read_keys = 0
    for node in _nodes(query_nodes(query)):
        if node[0] == "var" and node[1] in ("file", "row"):
            whole += 1
        elif node[0] == "index" and node[1] == ("var", "file") and node[2][0] == "lit":
            read_keys += 1
        elif node[0] == "lit" and isinstance(node[1], str):
            need.items |= node[1] in ("tasks", "lists")
            need.outlinks |= node[1] == "outlinks"
            need.inlinks |= node[1] == "inlinks"
    return Need.everything() if whole > read_keys else need


class DataviewService:
    def __init__(self, store: Store, vault: Path) -> None:
        self.store = store
        self.vault = vault

    # -- reading pages ------------------------------------------------------------------
    def _build(self, rows: list[tuple[Any, ...]], need: Need) -> tuple[PageBuilder, list[Row]]:
        eids = [r[1] for r in rows]
        items: dict[str, list[tuple[Any, ...]]] = {}
        links: dict[str, list[tuple[str, str, str, str]]] = {}
        inlinks: dict[str, list[str]] = {}
        keys: set[str] = set()
        if need.items and eids:
            for item in self.store.dv_items(eids):
                items.setdefault(item[0], []).append(item)
                if '"$link"' in item[10] or item[12] != "[]":
                    keys |= link_targets([json.loads(item[10]), json.loads(item[12])])
        if need.outlinks and eids:
            for eid, target, rel, heading, label in self.store.dv_links(eids):
                links.setdefault(eid, []).append((target, rel, heading, label))
                keys.add(link_key(target))
        if need.inlinks and eids:
            for eid, path in self.store.dv_inlinks(eids):
                inlinks.setdefault(eid, []).append(path)
        for r in rows:
            if '"$link"' in r[6]:
                keys |= link_targets([json.loads(r[6])])
        builder = PageBuilder(Names(self.store.dv_names(sorted(keys))))
        pages = [
            builder.page(r, links.get(r[1], ()), inlinks.get(r[1], ()), items.get(r[1], ()))
            for r in rows
        ]
        return builder, pages

    def _page_at(self, path: str, cache: dict[str, Row | None]) -> Row | None:
        if path not in cache:
            rows = self.store.dv_pages_at([path])
            cache[path] = self._build(rows, Need.everything())[1][0] if rows else None
        return cache[path]

    def this_page(self, name: str) -> Row:
        """The page `this` is: a vault path, or a name a link would reach."""
        wanted = name.strip().lstrip("/")
        path = wanted if self.store.dv_pages_at([wanted]) else None
        if path is None:
            path = self.store.note_by_name(wanted.removesuffix(".md"))
        page = self._page_at(path, {}) if path else None
        if page is None:
            raise DqlError(f"no note {name!r} in the index to be `this`")
        return page

    # -- running ------------------------------------------------------------------------
    def query(self, text: str, this: str | None = None, now: datetime | None = None
              ) -> tuple[Query, Result, PageBuilder]:  # fmt: skip
        """Run one DQL query; DqlError names what cannot be read or run."""
        if _JS.match(text):
            raise DqlError("DataviewJS is not run: kbtui runs DQL queries only")
        query = parse_query(text)
        notes, pages = self.store.dv_page_count()
        if notes and not pages:
            raise DqlError(_NOT_INDEXED)
        this_row = self.this_page(this) if this else None
        here = this_row["file"]["path"] if this_row else ""
        cache: dict[str, Row | None] = {}
        folder = here.rsplit("/", 1)[0] if "/" in here else ""
        ctx = Context(
            this_row,
            resolve=lambda target: self.store.note_by_name(target, folder),
            page=lambda path: self._page_at(path, cache),
            now=now,
        )
        ctx.functions = build(ctx)
        _check(query, ctx)
        source = self._source(query.source, ctx, here)
        need = needs(query)
        builder, built = self._build(self.store.dv_pages(source), need)
        if query.kind == "task":
            rows = [
                DRow(f"{t['path']}#{t['line']}", {**page, **t}, [(t["path"], t["line"])])
                for page in built
                for t in page["file"]["tasks"]
            ]
        else:
            rows = [DRow(p["file"]["link"], p, [(p["file"]["path"], None)]) for p in built]
        return query, run(query, rows, ctx), builder

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


def _check(query: Query, ctx: Context) -> None:
    """Every expression compiled once before any row is read: an unsupported function is an
    error naming it even when no row would reach it."""
    for node in query_nodes(query):
        ctx.compile(node)
