"""One evaluation behind every front end: find a base (a .base file, a note's ```base block or
YAML given inline), pick a view, bind `this`, run it over the index's rows.

The rows are read once; after a change of the index (`Store.generation`) only the notes and
files whose state changed are read again (`Rows.update`), then each query evaluates in memory.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbtui.bases.errors import BaseError
from kbtui.bases.prefilter import (
    Compiler,
    literal_links,
    reads_every_row,
    reads_links,
    wikilink_targets,
)
from kbtui.bases.rows import FileRow, Rows, read_types
from kbtui.bases.syntax import Base, View, base_blocks, read_base
from kbtui.bases.views import Result, column_name, layout, run_view
from kbtui.store.graph.links import link_key
from kbtui.vault.names import slug
from kbtui.vault.obsidian.file_types import shows_all_file_types

if TYPE_CHECKING:
    from kbtui.store import Store


# A process answers through SQL, reading only a view's candidates (a CLI call asks once); one
# that keeps asking (the TUI, the MCP server) reads every row once and keeps it up to date,
# which answers a small vault faster; a big one's rows stay in the index.
KEEP_AFTER = 2
KEEP_UP_TO = 20_000


@dataclass
class Found:
    path: str | None  # the .base file or the note holding the block; None for inline YAML
    base: Base


class BaseService:
    def __init__(self, store: Store, vault: Path) -> None:
        self.store = store
        self.vault = vault
        self._rows: tuple[int, Rows] | None = None
        # One query at a time: an index change updates the rows in place (Rows.update), and
        # evaluation is pure Python, which the GIL runs one thread at a time anyway.
        self._lock = threading.RLock()
        # what the rows were read from: note states, file facts, property types
        self._states: tuple[set[Any], set[tuple[str, int, int, int]], dict[str, str]] = (
            set(), set(), {})  # fmt: skip
        self._read: dict[str, tuple[int, int, Found]] = {}  # .base path -> (mtime, size, base)
        self._through_sql = 0  # queries answered through SQL (kbtui.bases.prefilter)

    def partial_rows(self, base: Base, view: View) -> Rows:
        """The rows one view may match, read through SQL (kbtui.bases.prefilter): a process
        that holds no rows yet answers without reading the whole vault."""
        types = read_types(self.vault)
        rows = Rows([], [], types, self.store)
        rows.prefetch({link_key(t) for t in literal_links(base)})
        compiler = Compiler(types, rows.link_keys)
        cond = compiler.filters(base.filters, view.filters)
        proofs = compiler.proofs(base.filters, view.filters)
        notes, files, proven = self.store.base_candidates(cond, [c for _, c in proofs])
        rows.fill(notes, files)
        for row in rows.rows:  # what SQL proved is not evaluated again (views.passes' cache)
            for (key, _), holds in zip(proofs, proven[row.file_path], strict=True):
                if holds:
                    row.cache[f"filter:{key}"] = (True, None, 0)
        links = reads_links(base, view)
        rows.prefetch({link_key(t) for row in rows.rows for t in wikilink_targets(row, links)})
        return rows

    def rows(self) -> Rows:
        with self._lock:
            return self._current_rows()

    def _current_rows(self) -> Rows:
        generation = self.store.generation
        if self._rows is not None and self._rows[0] == generation:
            return self._rows[1]
        states = self.store.base_note_states()
        notes, files = set(states.items()), set(self.store.vault_file_rows())
        types = read_types(self.vault)
        old_notes, old_files, old_types = self._states
        new_files = files - old_files
        changed = {p for p, _ in notes - old_notes} | {f[0] for f in new_files if f[0] in states}
        if self._rows is None or types != old_types or len(changed) > max(500, len(notes) // 5):
            rows = Rows(self.store.base_note_rows(), list(files), types)
        else:
            rows = self._rows[1]
            were_notes = {p for p, _ in old_notes - notes} - states.keys()
            paths = {f[0] for f in files}
            gone = ({f[0] for f in old_files - files} | were_notes) - paths - states.keys()
            new_files |= {f for f in files if f[0] in were_notes} if were_notes else set()
            fresh = self.store.base_note_rows(sorted(changed)) if changed else []
            rows.update(sorted(new_files), fresh, gone)
        self._rows = (generation, rows)
        self._states = (notes, files, types)
        return rows

    def list_bases(self) -> list[dict[str, Any]]:
        """Every .base file (with its views, or why it cannot be read) and every note with a
        ```base block."""
        with self._lock:
            return self._list_bases()

    def _list_bases(self) -> list[dict[str, Any]]:
        out = [self._describe(path) for path in self._base_paths()]
        for path in self.store.paths_with_base_blocks():
            try:
                blocks = base_blocks((self.vault / path).read_text(encoding="utf-8"))
            except OSError:
                continue  # gone since it was indexed: the watcher drops it
            for n, (line, _) in enumerate(blocks, 1):
                entry = self._describe(path, n)
                entry["block"], entry["line"] = n, line  # the ```base fence's line
                if len(blocks) > 1:
                    entry["file"] = f"{path}#{n}"  # what base_query takes for this block
                out.append(entry)
        return out

    def _describe(self, path: str, block: int = 1) -> dict[str, Any]:
        try:
            found = self.load(path, block - 1)
        except BaseError as exc:
            return {"path": path, "views": [], "error": str(exc)}
        return {"path": path, "views": [_view_info(v) for v in found.base.views]}

    def find(self, name: str) -> str:
        """The vault path of a base named by path, file name or name without `.base`."""
        wanted = name.strip().strip("/")
        if self._rows is not None and wanted in self.rows().by_path:
            return wanted
        if self._rows is None and self.store.base_path_of(wanted, by_id=False) == wanted:
            return wanted
        lowered = wanted.lower()
        candidates = self._base_paths()
        by_id = [p for p in candidates if base_id(p) == wanted]
        if by_id:
            return sorted(by_id)[0]
        for key in (_whole, _file_name, _base_name):
            hits = [p for p in candidates if key(p) == lowered]
            if hits:
                return sorted(hits)[0]
        for path in (wanted, wanted + ".md"):  # a note holding ```base blocks
            if (self.vault / path).is_file():
                return path
        raise BaseError(f"no base {name!r} in the vault (kbtui bases lists them)")

    def load(self, path: str, block: int = 0) -> Found:
        full = self.vault / path
        try:
            st = full.stat()
            known = self._read.get(path)
            if known is not None and known[:2] == (st.st_mtime_ns, st.st_size) and not block:
                return known[2]
            text = full.read_text(encoding="utf-8")
        except OSError as exc:
            raise BaseError(f"cannot read {path}: {exc.strerror or exc}") from None
        if path.lower().endswith(".base"):
            found = Found(path, read_base(text))
            self._read[path] = (st.st_mtime_ns, st.st_size, found)
            return found
        blocks = base_blocks(text)
        if not blocks:
            raise BaseError(f"{path} is neither a .base file nor a note with a ```base block")
        if block >= len(blocks):
            raise BaseError(f"{path} has {len(blocks)} ```base block(s), not {block + 1}")
        first_line, yaml_text = blocks[block]
        return Found(path, read_base(yaml_text, first_line))

    def _base_paths(self) -> list[str]:
        """The vault's .base files, from the rows in memory or else from the index."""
        if self._rows is not None:
            return self.rows().bases
        return [p for p in self.store.base_file_paths() if FileRow(p, 0, 0, 0).ext == "base"]

    def this_row(self, this: str | None, found: Found, rows: Rows | None = None) -> FileRow | None:
        rows = rows or self.rows()
        if this:
            path = this if rows.get(this) is not None else rows.resolve(this, None)
            if path is None and rows.source is not None:
                path = self.store.base_path_of(this)
            if path is None:  # an entity id (kb_search's, the TUI's)
                path = next((r.file_path for r in rows.rows if r.entity_id == this), None)
            row = rows.get(path)
            if row is None:
                raise BaseError(f"no file {this!r} in the index to be `this`")
            return row
        return rows.get(found.path)

    def query(
        self,
        file: str | None = None,
        yaml_text: str | None = None,
        view: str | None = None,
        this: str | None = None,
        limit: int | None = None,
    ) -> tuple[Found, Result]:
        with self._lock:
            return self._query(file, yaml_text, view, this, limit)

    def _query(
        self,
        file: str | None,
        yaml_text: str | None,
        view: str | None,
        this: str | None,
        limit: int | None,
    ) -> tuple[Found, Result]:
        if yaml_text is not None:
            found = Found(None, read_base(yaml_text))
        elif file:
            name, _, number = file.rpartition("#")
            if name and number.isdigit() and int(number) > 0:  # a note's Nth ```base block
                found = self.load(self.find(name), int(number) - 1)
            else:
                found = self.load(self.find(file))
        else:
            raise BaseError("give a base file or its YAML")
        chosen = found.base.view(view)
        if chosen.error is not None:
            raise chosen.error
        if (
            self._rows is None
            and not reads_every_row(found.base, chosen)
            and (self._through_sql < KEEP_AFTER or self.store.vault_file_count() > KEEP_UP_TO)
        ):
            self._through_sql += 1
            rows = self.partial_rows(found.base, chosen)
        else:
            rows = self.rows()  # kept in memory and brought up to date change by change
        rows.all_file_types = shows_all_file_types(self.vault)
        return found, run_view(found.base, rows, chosen, self.this_row(this, found, rows), limit)


def base_id(path: str) -> str:
    """The id kb_search gives a base (`base:books`), which kb_get and base_query accept."""
    return "base:" + (slug(path.rsplit("/", 1)[-1].removesuffix(".base")) or "untitled")


def _whole(path: str) -> str:
    return path.lower()


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1].lower()


def _base_name(path: str) -> str:
    return _file_name(path).removesuffix(".base")


def _view_info(view: Any) -> dict[str, Any]:
    info: dict[str, Any] = {"name": view.name, "type": view.type}
    if view.error is not None:
        info["error"] = str(view.error)
    return info


def result_json(found: Found, result: Result) -> dict[str, Any]:
    """The answer every front end shows: base, view, columns, rows, groups, summaries."""
    return {
        "base": found.path,
        "view": result.view.name,
        "type": result.view.type,
        "views": [v.name for v in found.base.views],
        "columns": result.columns,
        "rows": result.rows,
        "groups": result.groups,
        "summaries": result.summaries,
        "total": result.matched,
        "layout": layout(result.view),
        **_group_by(found, result.view),
    }


def _group_by(found: Found, view: View) -> dict[str, Any]:
    """The property a grouped view groups by, named as its column would be."""
    if view.group_by is None:
        return {}
    pid, desc = view.group_by
    name = column_name(found.base, pid)
    return {"groupBy": {"id": pid, "name": name, "direction": "DESC" if desc else "ASC"}}
