"""The rows a base filters: one per vault file, with its file.* facts and a note's properties,
tags and links, read once from the index per change of the index (`Store.generation`).

Links resolve the way the index resolves them (kbtui.store.graph.links): by path, file name,
title or alias, ignoring case, the note nearest the linking one winning a shared name.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from kbtui.bases.values import Date, Link, parse_date
from kbtui.store.graph.links import link_key
from kbtui.vault.linked_files import folder_steps

_WIKILINK = re.compile(r"^!?\[\[([^\]|#^]*)(?:[#^][^\]|]*)?(?:\|([^\]]*))?\]\]$")
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
    tags: Sequence[str] = ()
    link_rows: Sequence[tuple[str, str, str]] = ()  # (target, rel, heading)
    is_note: bool = False
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


class Rows:
    """Every row of one index state, the link resolver, and the property types."""

    def __init__(
        self,
        notes: Sequence[tuple[Any, ...]],
        files: Sequence[tuple[str, int, int, int]],
        types: dict[str, str],
    ) -> None:
        self.types = {k.lower(): v for k, v in types.items()}
        by_path: dict[str, FileRow] = {}
        for path, size, mtime_ns, ctime_ns in files:
            by_path[path] = FileRow(path, size, mtime_ns // 1_000_000, ctime_ns // 1_000_000)
        names: dict[str, list[tuple[int, str]]] = {}
        for path, fm, size, mtime_ns, created_ms, title, aliases, tags, links in notes:
            row = by_path.get(path)
            ctime = row.ctime_ms if row else int(created_ms or 0)
            by_path[path] = FileRow(path, int(size), int(mtime_ns) // 1_000_000, ctime, fm,
                                    tags, links, is_note=True)  # fmt: skip
            for key in [title, *(aliases or [])]:
                if key:
                    names.setdefault(link_key(key), []).append((_NAME_RANK["title"], path))
        for path in by_path:
            stem = path[:-3] if path.lower().endswith(".md") else path
            names.setdefault(link_key(stem), []).append((_NAME_RANK["path"], path))
            base = stem.rsplit("/", 1)[-1]
            names.setdefault(link_key(base), []).append((_NAME_RANK["name"], path))
        self.rows = [by_path[p] for p in sorted(by_path)]
        self.by_path = by_path
        self.names = names
        self._backlinks: dict[str, list[str]] | None = None
        self.bases = [r.file_path for r in self.rows if r.ext == "base"]
        self.consts: dict[Any, Any] = {}  # pure calls on literals, e.g. link("Books"): once

    # -- links ----------------------------------------------------------------------------
    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The vault path a link target names, seen from the file at `source`."""
        target = target.split("#", 1)[0].split("|", 1)[0].strip()
        if not target:
            return source
        found = self.names.get(link_key(target))
        if not found:
            return None
        best = min(rank for rank, _ in found)
        paths = sorted({p for rank, p in found if rank == best})
        if len(paths) == 1 or source is None:
            return paths[0]
        here = posixpath.dirname(source)
        return min(paths, key=lambda p: (_steps(here, posixpath.dirname(p)), p))

    def link(self, text: str, source: str | None = None, display: Any = None) -> Link:
        m = _WIKILINK.match(text.strip())
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
        cache[name] = value
        return value

    def convert(self, raw: Any, kind: str | None, source: str | None) -> Any:
        if isinstance(raw, list):
            return [self.convert(v, kind, source) for v in raw]
        if isinstance(raw, dict):
            return {k: self.convert(v, None, source) for k, v in raw.items()}
        if isinstance(raw, str):
            text = raw.strip()
            if text.startswith(("[[", "![[")) and _WIKILINK.match(text):
                return self.link(text, source)
            if kind in DATE_TYPES or (kind is None and text[:1].isdigit()):
                return parse_date(text) or raw
        return raw

    def properties(self, row: FileRow) -> dict[str, Any]:
        return {k: self.prop(row, k) for k in row.raw}


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
