"""The command palette (ctrl+p): open any note by title or base by path, reindex, find a
path, browse the graph, review duplicates, a new note, capture, the latest changes, switch
vault."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kbtui.cells import cell_safe
from kbtui.tui.messages import OpenNote, ShowGraph
from kbtui.tui.screens.base_view import BaseScreen

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

NOTE_LIMIT = 100_000  # titles loaded when the palette opens
MAX_NOTE_HITS = 40


def opens_on(base: dict[str, Any]) -> str:
    """The palette's line under a base: its first view by name and type, since a base's views
    may be a table, a list, cards or a map."""
    views = base.get("views") or []
    if not views:
        return f"cannot be read: {base['error']}" if base.get("error") else "its rows"
    return f"opens on its first view, {views[0]['name']} ({views[0]['type']})"


class KbCommands(Provider):
    """kbtui's commands, plus one `Open note: <title>` per note in the vault."""

    async def startup(self) -> None:
        self.notes: list[tuple[str, str, str]] = []  # (lower-cased title, title, id)
        self.bases: list[tuple[str, str]] = []  # (vault path, what it opens on) of each base
        handle = self.kb.handle
        if handle is None:
            return
        try:
            listed = await asyncio.to_thread(self.kb.tool, "base_query", {})
        except Exception as exc:  # the palette still offers the rest
            self.app.log.error(f"base list unavailable: {exc}")
            listed = {}
        self.bases = [(str(b["path"]), opens_on(b)) for b in listed.get("bases") or []]
        try:
            rows, _total = await asyncio.to_thread(handle.note_page, 0, NOTE_LIMIT)
        except Exception as exc:  # the palette still offers the other commands
            self.app.log.error(f"note list unavailable: {exc}")
            return
        for row in rows:
            title = cell_safe(str(row.get("name") or row.get("title") or row["id"]))
            self.notes.append((title.lower(), title, str(row["id"])))

    def open_base(self, path: str) -> None:
        self.app.push_screen(BaseScreen(path))

    @property
    def kb(self) -> KbApp:
        return cast("KbApp", self.app)

    def commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = self.kb

        def graph(tab: str) -> Callable[[], Any]:
            return partial(app.post_message, ShowGraph(None, tab))

        return [
            ("Reindex the vault", "Index changes now; list notes that fail", app.action_reindex),
            ("Find a path between two entities", "Graph view, path finder", graph("path")),
            ("Browse entities by type", "Graph view, every entity by type", graph("entities")),
            (
                "Review duplicate entities",
                "Merge look-alikes after confirming",
                graph("duplicates"),
            ),
            ("Graph of the current note", "Neighbours by relationship type", app.action_graph),
            ("Map of the current note", "Its neighbours drawn", partial(app.action_graph, "map")),
            ("Overview of the vault", "Groups of notes and their links", graph("overview")),
            ("New note…", "Title, folder and template (ctrl+n)", app.action_new_note),
            (
                "Capture to today's note…",
                "A line or a short block, appended (ctrl+l; $KBTUI_CAPTURE names another note)",
                app.action_capture,
            ),
            (
                "Changes",
                "The vault's latest writes by who wrote; diff, undo (f2)",
                app.action_changes,
            ),
            ("Switch vault…", "Open another vault folder", app.action_switch_vault),
            *app.edit_commands(bool(((app.last_status or {}).get("review") or {}).get("review"))),
            ("Keys (help)", "Every key of every screen", app.action_help),
        ]

    async def discover(self) -> Hits:
        for name, help_text, callback in self.commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
        words = query.lower().split()
        for path, opens in self.bases:
            label = f"Open base: {cell_safe(path)}"
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), partial(self.open_base, path),
                          text=label, help=opens)  # fmt: skip
        hits = 0
        for lower, title, entity_id in self.notes:
            if hits >= MAX_NOTE_HITS:
                break
            if not all(word in lower for word in words):
                continue  # a cheap filter first: vaults have tens of thousands of notes
            label = f"Open note: {title}"
            score = matcher.match(label)
            if score > 0:
                hits += 1
                yield Hit(
                    score,
                    matcher.highlight(label),
                    partial(self.kb.post_message, OpenNote(entity_id)),
                    text=label,
                    help=entity_id,
                )
