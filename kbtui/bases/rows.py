"""The rows a base filters: one per vault file, with its file.* facts and a note's properties,
tags and links, read once from the index per change of the index (`Store.generation`).

Links resolve the way the index resolves them (kbtui.store.graph.links): by path, file name,
title or alias, ignoring case, the note nearest the linking one winning a shared name.
"""

from __future__ import annotations

import json
import posixpath
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from kbtui.bases.values import Date, Link, TagList, parse_date
from kbtui.store.graph.links import link_key
from kbtui.vault.linked_files import folder_steps
from kbtui.vault.obsidian.file_types import obsidian_lists

WIKILINK = re.compile(r"^!?\[\[([^\]|#^]*)(?:[#^][^\]|]*)?(?:\|([^\]]*))?\]\]$")
DATE_TYPES = {"date", "datetime"}
_NAME_RANK = {"path": 1, "name": 2, "title": 3, "alias": 4}


@dataclass(eq=False)
class FileRow:
    """One vault file: `file` in an expression. `file_path` makes links compare to it."""

    file_path: str
    size: int
    mtime_ms: int
    ctime_ms: int
    fm: str | None = None  # the frontmatter as JSON text, parsed on first use
    tags: Sequence[str] = ()  # as written, `#` first (file.tags); file.hasTag folds them
    link_rows: Sequence[tuple[str, str, str]] = ()  # (target, rel, heading)
    is_note: bool = False
    entity_id: str | None = None  # a note's id in the index, for kb_get
    cache: dict[str, Any] = field(default_factory=dict)
    _raw: dict[str, Any] | None = None

    @property
    def raw(self) -> dict[str, Any]:
        """The note's properties as stored (JSON values)."""
        if self._raw is None:
            meta = json.loads(self.fm) if self.fm else {}
            self._raw = meta if isinstance(meta, dict) else {}
        return self._raw

    @cached_property
    def name(self) -> str:
        return self.file_path.rsplit("/", 1)[-1]

    @cached_property
    def ext(self) -> str:
        name = self.name
        return name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""

    @property
    def basename(self) -> str:
        name = self.name
        return name[: -len(self.ext) - 1] if self.ext else name

    @property
    def folder(self) -> str:
        return self.file_path.rsplit("/", 1)[0] if "/" in self.file_path else "/"


class RowSource(Protocol):
    """Where a partial Rows reads what its candidates do not hold (the store, for a query)."""

    def base_name_rows(self, keys: Sequence[str]) -> list[tuple[str, str | None, list[str]]]: ...

    def base_rows_at(
        self, paths: Sequence[str]
    ) -> tuple[list[tuple[Any, ...]], list[tuple[str, int, int, int]]]: ...


class Rows:
    """Every row of one index state, the link resolver, and the property types.

    `update` applies an index change to the rows it touches, so the first query after a save
    re-reads one note, not the vault. What a row keeps between queries (its properties, links,
    filter results) is dropped when it can be stale: a changed row starts empty; a change of
    what a name resolves to clears the rows that resolved that name (`referrers`); a filter
    result that read another row (`cross`) lasts one `epoch`, one that resolved a name outside
    a row (`unbound`, e.g. `link("Books")`) one `names_epoch`."""

    def __init__(
        self,
        notes: Sequence[tuple[Any, ...]],
        files: Sequence[tuple[str, int, int, int]],
        types: dict[str, str],
        source: RowSource | None = None,
    ) -> None:
        self.types = {k.lower(): v for k, v in types.items()}
        self.by_path: dict[str, FileRow] = {}
        self.names: dict[str, list[tuple[int, str]]] = {}
        self.entries: dict[str, list[tuple[str, int]]] = {}  # path -> its (name key, rank)
        self.referrers: dict[str, set[str]] = {}  # name key -> rows that resolved it
        self.consts: dict[Any, Any] = {}  # pure calls on literals, e.g. link("Books"): once
        self.epoch = 0
        self.names_epoch = 0
        self.cross = 0
        self.unbound = 0
        self._backlinks: dict[str, list[str]] | None = None
        # Obsidian's "Detect all file extensions" (the service sets it per query): off, a
        # view lists only the file types Obsidian accepts (kbtui.vault.obsidian.file_types)
        self.all_file_types = False
        ctimes: dict[str, int] = {}
        titles: dict[str, list[str]] = {}
        for path, size, mtime_ns, ctime_ns in files:
            ctimes[path] = ctime_ns // 1_000_000
            self.by_path[path] = FileRow(path, size, mtime_ns // 1_000_000, ctimes[path])
        for note in notes:
            self.by_path[note[0]], titles[note[0]] = _note_row(note, ctimes.get(note[0]))
        # A partial Rows (`source`: one query's candidates) reads names and other rows lazily.
        self.source = source
        self._asked: set[str] = set()  # name keys read
        self._read: set[str] = set()  # paths read
        self._titles: dict[str, list[str]] = {}
        if source is None:
            for path in self.by_path:
                self._add_names(path, _name_entries(path, titles.get(path, [])))
        self._order()

    def fill(self, notes: Sequence[tuple[Any, ...]], files: Sequence[tuple[str, int, int, int]]
             ) -> None:  # fmt: skip
        """A partial Rows' rows: exactly these (a query's candidates), in path order."""
        ctimes = {f[0]: f[3] // 1_000_000 for f in files}
        fresh = {f[0]: FileRow(f[0], f[1], f[2] // 1_000_000, ctimes[f[0]]) for f in files}
        for note in notes:
            fresh[note[0]] = _note_row(note, ctimes.get(note[0]))[0]
        self.by_path.update(fresh)
        self._read.update(fresh)
        self.paths = sorted(fresh)
        self.rows = [fresh[p] for p in self.paths]

    def _order(self) -> None:
        self.paths = sorted(self.by_path)
        self.rows = [self.by_path[p] for p in self.paths]
        self.bases = [r.file_path for r in self.rows if r.ext == "base"]

    def _add_names(self, path: str, entries: list[tuple[str, int]]) -> None:
        self.entries[path] = entries
        for key, rank in entries:
            self.names.setdefault(key, []).append((rank, path))

    def _drop_names(self, path: str) -> list[tuple[str, int]]:
        entries = self.entries.pop(path, [])
        for key, rank in entries:
            found = self.names.get(key, [])
            if (rank, path) in found:
                found.remove((rank, path))
            if not found:
                self.names.pop(key, None)
        return entries

    def update(
        self,
        files: Sequence[tuple[str, int, int, int]],
        notes: Sequence[tuple[Any, ...]],
        gone: set[str],
    ) -> int:
        """Apply one index change: the files whose (path, size, mtime_ns, ctime_ns) is new,
        the notes that changed or are new (full rows), the paths no longer in the vault.
        Returns how many rows changed."""
        touched: dict[str, FileRow | None] = dict.fromkeys(gone)
        titles: dict[str, list[str]] = {}
        ctimes = {}
        fresh = {n[0] for n in notes}
        for path, size, mtime_ns, ctime_ns in files:
            ctimes[path] = ctime_ns // 1_000_000
            if path not in fresh:
                touched[path] = FileRow(path, size, mtime_ns // 1_000_000, ctimes[path])
        for note in notes:
            old = self.by_path.get(note[0])
            ctime = ctimes.get(note[0], old.ctime_ms if old is not None else None)
            touched[note[0]], titles[note[0]] = _note_row(note, ctime)
        if not touched:
            return 0
        self.epoch += 1
        self._backlinks = None
        changed_keys: set[str] = set()
        added_or_gone = False
        for path, row in touched.items():
            old_entries = set(self._drop_names(path))
            new_entries: list[tuple[str, int]] = []
            if row is None:
                self.by_path.pop(path, None)
                added_or_gone = True
            else:
                added_or_gone |= path not in self.by_path
                self.by_path[path] = row
                new_entries = _name_entries(path, titles.get(path, []))
                self._add_names(path, new_entries)
            changed_keys |= {k for k, _ in old_entries.symmetric_difference(new_entries)}
        if changed_keys:
            self.names_epoch += 1
            self.consts.clear()
            for key in changed_keys:
                for source in self.referrers.pop(key, ()):
                    other = self.by_path.get(source)
                    if other is not None:
                        other.cache.clear()
        if added_or_gone:
            self._order()
        else:  # the same paths: each changed row takes its place in path order
            for path, row in touched.items():
                if row is not None:
                    self.rows[bisect_left(self.paths, path)] = row
        return len(touched)

    def listed(self, row: FileRow) -> bool:
        """Whether Obsidian lists the row's file (its extension, the vault's setting)."""
        return obsidian_lists(row.ext, self.all_file_types)

    def other(self, path: str | None) -> FileRow | None:
        """Another row, read by an expression (its result then lasts one `epoch`)."""
        self.cross += 1
        return self.get(path)

    def get(self, path: str | None) -> FileRow | None:
        """The row of a path; a partial Rows reads one it does not hold."""
        row = self.by_path.get(path or "")
        if row is None and path and self.source is not None and path not in self._read:
            self._read.add(path)
            notes, files = self.source.base_rows_at([path])
            ctimes = {f[0]: f[3] // 1_000_000 for f in files}
            for f in files:
                self.by_path[f[0]] = FileRow(f[0], f[1], f[2] // 1_000_000, ctimes[f[0]])
            for note in notes:
                self.by_path[note[0]] = _note_row(note, ctimes.get(note[0]))[0]
            row = self.by_path.get(path)
        return row

    def prefetch(self, keys: set[str]) -> None:
        """Read at once the names a partial Rows' links may resolve by."""
        wanted = sorted(keys - self._asked)
        if self.source is None or not wanted:
            return
        self._asked.update(wanted)
        chosen = set(wanted)
        for path, title, aliases in self.source.base_name_rows(wanted):
            titles = [k for k in [title, *aliases] if k]
            self._titles[path] = titles
            for key, rank in _name_entries(path, titles):
                if key in chosen:
                    self.names.setdefault(key, []).append((rank, path))

    def link_keys(self, text: str) -> set[str]:
        """Every key that may stand for what `link(text)` resolves to, and its own text."""
        link = self.link(text)
        keys = {link.target.lower()}
        if link.path is None:
            return keys
        if link.path in self.entries:
            return keys | {k for k, _ in self.entries[link.path]}
        if link.path in self._titles:
            return keys | {k for k, _ in _name_entries(link.path, self._titles[link.path])}
        return {""}  # names unknown: any text may hold one

    # -- links ----------------------------------------------------------------------------
    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The vault path a link target names, seen from the file at `source`."""
        target = target.split("#", 1)[0].split("|", 1)[0].strip()
        if not target:
            return source
        key = link_key(target)
        if source is None:
            self.unbound += 1
        else:
            self.referrers.setdefault(key, set()).add(source)
        if self.source is not None:
            self.prefetch({key})
        found = self.names.get(key)
        if not found:
            return None
        best = min(rank for rank, _ in found)
        paths = sorted({p for rank, p in found if rank == best})
        if len(paths) == 1 or source is None:
            return paths[0]
        here = posixpath.dirname(source)
        return min(paths, key=lambda p: (_steps(here, posixpath.dirname(p)), p))

    def link(self, text: str, source: str | None = None, display: Any = None) -> Link:
        m = WIKILINK.match(text.strip())
        if m:
            target = m.group(1).strip()
            display = display if display is not None else m.group(2)
        else:
            target = text.strip()
        return Link(target, display, self.resolve(target, source))

    def row_links(self, row: FileRow, embeds: bool) -> list[Link]:
        key = "embeds" if embeds else "links"
        if key not in row.cache:
            row.cache[key] = [
                Link(t, None, self.resolve(t, row.file_path))
                for t, rel, _ in row.link_rows
                if (rel == "embeds") == embeds
            ]
        return list(row.cache[key])

    def backlinks(self, row: FileRow) -> list[Link]:
        self.cross += 1
        if self._backlinks is None:
            found: dict[str, list[str]] = {}
            for other in self.rows:
                for link in self.row_links(other, False) + self.row_links(other, True):
                    if link.path and other.file_path not in found.get(link.path, []):
                        found.setdefault(link.path, []).append(other.file_path)
            self._backlinks = found
        return [Link(_stem(p), None, p) for p in self._backlinks.get(row.file_path, [])]

    # -- properties -----------------------------------------------------------------------
    def prop(self, row: FileRow, name: str) -> Any:
        """A note property as a value: wikilinks as links, dates where the type says so (or
        for an untyped ISO date), lists element by element."""
        cache = row.cache.setdefault("props", {})
        if name in cache:
            return cache[name]
        raw = row.raw.get(name)
        if raw is None and name not in row.raw:
            lowered = {k.lower(): k for k in row.raw}
            raw = row.raw.get(lowered.get(name.lower(), name))
        kind = self.types.get(name.lower())
        value = self.convert(raw, kind, row.file_path)
        if isinstance(value, list) and (kind == "tags" or name.lower() == "tags"):
            value = TagList(value)  # contains() matches tags as Obsidian does
        cache[name] = value
        return value

    def convert(self, raw: Any, kind: str | None, source: str | None) -> Any:
        if isinstance(raw, list):
            return [self.convert(v, kind, source) for v in raw]
        if isinstance(raw, dict):
            return {k: self.convert(v, None, source) for k, v in raw.items()}
        if isinstance(raw, str):
            text = raw.strip()
            if text.startswith(("[[", "![[")) and WIKILINK.match(text):
                return self.link(text, source)
            if kind in DATE_TYPES or (kind is None and text[:1].isdigit()):
                return parse_date(text) or raw
        return raw

    def properties(self, row: FileRow) -> dict[str, Any]:
        return {k: self.prop(row, k) for k in row.raw}


def _note_row(note: tuple[Any, ...], ctime_ms: int | None) -> tuple[FileRow, list[str]]:
    """A note's row and its title and aliases, from (path, fm, size, mtime_ns, created ms,
    title, aliases, tags, links, entity id)."""
    path, fm, size, mtime_ns, created_ms, title, aliases, tags, links, eid = note
    ctime = ctime_ms if ctime_ms is not None else int(created_ms or 0)
    row = FileRow(path, int(size), int(mtime_ns) // 1_000_000, ctime, fm, tags, links,
                  is_note=True, entity_id=eid)  # fmt: skip
    return row, [k for k in [title, *(aliases or [])] if k]


def _name_entries(path: str, titles: list[str]) -> list[tuple[str, int]]:
    """The (name key, rank) a file answers to: its path, file name, a note's title, aliases."""
    out = [(link_key(t), _NAME_RANK["title"]) for t in titles]
    stem = path[:-3] if path.lower().endswith(".md") else path
    out.append((link_key(stem), _NAME_RANK["path"]))
    out.append((link_key(stem.rsplit("/", 1)[-1]), _NAME_RANK["name"]))
    return out


def date_of_ms(ms: int) -> Date:
    return Date(datetime.fromtimestamp(ms / 1000), True)


def _stem(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def _steps(a: str, b: str) -> int:
    return folder_steps([p for p in a.split("/") if p], [p for p in b.split("/") if p])


def read_types(vault: Path) -> dict[str, str]:
    """Property name -> type from `.obsidian/types.json`, or {} when there is none."""
    try:
        data = json.loads((vault / ".obsidian" / "types.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    types = data.get("types") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in types.items()} if isinstance(types, dict) else {}
