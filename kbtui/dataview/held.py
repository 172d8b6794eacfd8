"""Every page built once and kept, for a process that keeps asking (the TUI, the MCP server):
a query then reads from SQL only which pages (TASK: which tasks) may pass, and evaluates the
pages already built.

Kept current change by change: when the index changed (`Store.generation`), the notes whose
state changed are built again, with the pages they linked to before and link to now (their
`file.inlinks` moved); a note added, removed or renamed changes what names links resolve to,
so everything is built again. Links resolve by path and file name only (as Obsidian's do), so
an edit inside a note changes no other note's links.
"""

from __future__ import annotations

from collections.abc import Callable
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
        self.states: dict[str, tuple[Any, ...]] = {}
        self.pages: dict[str, Row] = {}
        self.targets: dict[str, set[str]] = {}  # path -> the pages it links to
        self.raw: dict[tuple[str, int], str] = {}  # (path, 0-based line) -> a task's line
        self.lines: dict[str, list[int]] = {}  # path -> its lines in `raw`
        self.rebuilt = 0  # pages built by the last update (the bench reports it)

    def current(self) -> dict[str, Row]:
        generation = self.store.generation
        if self.generation == generation:
            return self.pages
        states = {p: s for p, s in self.store.note_states().items() if p.lower().endswith(".md")}
        if not self.pages or states.keys() != self.states.keys():
            self.pages, self.targets, self.raw, self.lines = {}, {}, {}, {}
            self._put(self.store.dv_pages(("all",)))
            self.rebuilt = len(self.pages)
        else:
            changed = {p for p, s in states.items() if s != self.states[p]}
            moved = set().union(*(self.targets.get(p, set()) for p in changed))
            self._put(self.store.dv_pages_at(sorted(changed)))
            moved |= set().union(*(self.targets.get(p, set()) for p in changed))
            again = sorted((moved - changed) & states.keys())
            self._put(self.store.dv_pages_at(again))
            self.rebuilt = len(changed) + len(again)
        self.generation, self.states = generation, states
        return self.pages

    def _put(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        builder, built = self.build(rows, Need.everything())
        for page in built:
            path = page["file"]["path"]
            self.pages[path] = page
            self.targets[path] = {link.path for link in page["file"]["outlinks"]}
            for line in self.lines.pop(path, []):
                self.raw.pop((path, line), None)
        for (path, line), text in builder.raw.items():
            self.raw[(path, line)] = text
            self.lines.setdefault(path, []).append(line)
