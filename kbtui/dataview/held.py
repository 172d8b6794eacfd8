"""Pages built whole and kept, for a process that keeps asking (the TUI, the MCP server): a query
then reads from SQL only which pages (TASK: which tasks) may pass, and evaluates the pages held,
building the ones it meets for the first time (never the whole vault at once).

Kept current change by change: when the index changed (`Store.generation`), the notes whose
state changed are dropped, with the pages they linked to before and link to now (their
`file.inlinks` moved); a note added, removed or renamed changes what names links resolve to,
so every page is dropped. Links resolve by path and file
name only (as Obsidian's do), so an edit inside a note changes no other note's links.

Pages held are long-lived objects: after building, `gc.freeze()` takes what the process holds
out of the garbage collector's scans (a full scan of 10,000 held pages doubled a query's time);
each change of the index unfreezes first, so nothing that became garbage stays uncollected
past the next change. Pages themselves hold no cycles: a dropped page is freed at once.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kbtui.dataview.pages import Need, PageBuilder, Row

if TYPE_CHECKING:
    from kbtui.store import Store

Build = Callable[[list[tuple[Any, ...]], Need], tuple[PageBuilder, list[Row]]]


class HeldPages:
    def __init__(self, store: Store, build: Build) -> None:
        self.store = store
        self.build = build
        self.generation: int | None = None
        self.text_generation = 0  # the store's, at the last refresh
        self.states: dict[str, tuple[Any, ...]] = {}
        self.pages: dict[str, Row] = {}
        self.targets: dict[str, set[str]] = {}  # path -> the pages it links to
        self.raw: dict[tuple[str, int], str] = {}  # (path, 0-based line) -> a task's line
        self.lines: dict[str, list[int]] = {}  # path -> its lines in `raw`
        self.built = 0  # pages built by the last `pages` call (the bench reports it)

    def refresh(self) -> None:
        """Drop what the index's changes since the last call made stale."""
        generation = self.store.generation
        if self.generation == generation:
            return
        gc.unfreeze()
        states = self._states_now()
        if states.keys() != self.states.keys():
            self.pages, self.targets, self.raw, self.lines = {}, {}, {}, {}
        else:
            changed = {p for p, s in states.items() if s != self.states[p]}
            stale = set(changed).union(*(self.targets.get(p, set()) for p in changed))
            for path in stale | set(self.store.dv_link_targets(sorted(changed))):
                self._drop(path)
        self.generation, self.states = generation, states
        self.text_generation = self.store.text_generation

    def _states_now(self) -> dict[str, tuple[Any, ...]]:
        """Every note's state: re-read only for the notes written since the last refresh when
        the store's log names them all and they were all known (a note added or removed
        changes what links resolve to: every state read, every page dropped)."""
        written = None
        if self.generation is not None:
            written = self.store.notes_changed_since(self.text_generation)
        if written is not None:
            notes = {p for p in written if p.lower().endswith(".md")}
            now = self.store.note_states_of(sorted(notes))
            if notes <= self.states.keys() and now.keys() == notes:
                return {**self.states, **now}
        return {p: s for p, s in self.store.note_states().items() if p.lower().endswith(".md")}

    def pages_at(self, paths: Sequence[str]) -> dict[str, Row]:
        """The held pages of these paths, the missing ones built (whole) now."""
        missing = [p for p in paths if p not in self.pages]
        self.built = len(missing)
        for i in range(0, len(missing), 2000):
            self._put(self.store.dv_pages_at(missing[i : i + 2000]))
        if missing:
            gc.freeze()
        return self.pages

    def _drop(self, path: str) -> None:
        self.pages.pop(path, None)
        self.targets.pop(path, None)
        for line in self.lines.pop(path, []):
            self.raw.pop((path, line), None)

    def _put(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        builder, built = self.build(rows, Need.everything())
        for page in built:
            path = page["file"]["path"]
            self._drop(path)
            self.pages[path] = page
            self.targets[path] = {link.path for link in page["file"]["outlinks"]}
        for (path, line), text in builder.raw.items():
            self.raw[(path, line)] = text
            self.lines.setdefault(path, []).append(line)
