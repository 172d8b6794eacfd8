"""Changes (f2, the palette): the latest writes across the vault from the history, grouped
by who wrote (an assistant's, `◆ mcp:<client>`, in magenta), newest first; Enter shows what
one write changed, `u` undoes it (a restore of the version before it, refused when the note
changed since), `o` opens the note. The list follows new writes as they happen."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.writing.confirm import ConfirmWrite
from kbtui.tui.writing.diff_view import (
    DiffView,
    age,
    counts_text,
    diff_text,
    is_assistant,
    writer_text,
)

Envelope = dict[str, Any]
LIMIT = 300
PATH_WIDTH = 48  # cells the note column takes at most (longer paths push the rest on)


def grouped(changes: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    """(source, indexes of its writes) by source, the source of the latest write first;
    each group newest first (the list is)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, change in enumerate(changes):
        groups[str(change["source"])].append(i)
    return list(groups.items())  # dicts keep the order sources first appear: newest first


def change_id(change: dict[str, Any]) -> str:
    """A write's option id, the same after the list is read again (the highlight stays)."""
    return f"{change['version']}:{change['path']}"


def group_line(source: str, count: int) -> Text:
    line = writer_text(source)
    line.stylize("bold")
    if is_assistant(source):
        line.append("  an assistant", style="magenta")
    line.append(f"  {count} write{'' if count == 1 else 's'}", style="grey62")
    return line


def change_line(change: dict[str, Any], width: int = 0) -> Text:
    """One write: when, the note (padded to `width` cells), version, operation, lines."""
    line = Text("  ", no_wrap=True, overflow="ellipsis")
    style = "magenta" if is_assistant(str(change["source"])) else ""
    line.append(f"{age(float(change['when'])):<18}")
    path = Text(cell_safe(str(change["path"])), style=f"bold {style}".strip())
    if path.cell_len < width:
        path.pad_right(width - path.cell_len)
    line.append(path)
    line.append(f"  v{change['version']}  ", style="dim")
    line.append(f"{cell_safe(str(change['operation']))}  ")
    line.append(counts_text(int(change["added"]), int(change["removed"])))
    if change["hash"] is None:
        line.append("  deleted", style="dim italic")
    if not change["newest"]:
        line.append("  · changed since", style="yellow")
    return line


class ChangesScreen(KbScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape", "leave", "Back", tooltip="Back; from the diff: to the list", id="changes.back"
        ),
        Binding("enter", "diff", "Diff", show=False, id="changes.diff"),
        Binding("u", "undo", "Undo…", tooltip="Undo this write (asks first)", id="changes.undo"),
        Binding("o", "open", "Open note", id="changes.open"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[dict[str, Any]] = []

    def compose_body(self) -> ComposeResult:
        yield Static(id="changes-title")
        yield EntityList(id="changes-list")
        yield DiffView(id="changes-diff")

    def on_mount(self) -> None:
        self.query_one("#changes-list").border_title = "Writes, by who wrote (Enter: diff)"
        diff = self.query_one("#changes-diff", DiffView)
        diff.border_title = "Diff"
        diff.query_one(Static).update(
            Text("Enter on a write shows what it changed.", style="dim italic")
        )
        self.query_one("#changes-list").focus()
        self.load()

    # -- loading ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="changes")
    def load(self) -> None:
        answer = self.kb.tool("app_changes", {"limit": LIMIT})
        self.app.call_from_thread(self._show, answer)

    def notes_written(self) -> None:
        self.load()

    def index_changed(self) -> None:  # another program's edits, as the indexer saw them
        self.load()

    def _show(self, answer: Envelope) -> None:
        title = Text("Changes: the latest writes in the vault, newest first", style="bold")
        listing = self.query_one("#changes-list", EntityList)
        if not answer.get("ok"):
            title.append(f"  ✗ {answer.get('message')}", style="red")
            self.query_one("#changes-title", Static).update(title)
            listing.show([], empty="no history")
            return
        self.changes = list(answer["changes"])
        mine = sum(1 for c in self.changes if is_assistant(str(c["source"])))
        title.append(f"  {len(self.changes)} write(s)", style="dim")
        if mine:
            title.append(f"  · ◆ {mine} by an assistant", style="magenta")
        self.query_one("#changes-title", Static).update(title)
        options: list[Option] = []
        width = min(PATH_WIDTH, max((len(str(c["path"])) for c in self.changes), default=0))
        for source, indexes in grouped(self.changes):
            options.append(Option(group_line(source, len(indexes)), disabled=True))
            options += [
                Option(change_line(self.changes[i], width), id=change_id(self.changes[i]))
                for i in indexes
            ]
        listing.show(
            options,
            empty="nothing written yet (the history keeps what kbtui and other programs write)",
            keep=True,
        )
        if listing.highlighted is not None and listing.current_id is None:
            listing.action_cursor_down()  # past the first group's line

    def _selected(self) -> dict[str, Any] | None:
        chosen = self.query_one("#changes-list", EntityList).current_id
        return next((c for c in self.changes if change_id(c) == chosen), None)

    # -- diff ------------------------------------------------------------------------------
    @on(EntityList.OptionSelected, "#changes-list")
    def _chosen(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        self.action_diff()

    def action_diff(self) -> None:
        change = self._selected()
        if change is not None:
            self.show_diff(str(change["path"]), int(change["version"]))

    @work(thread=True, exclusive=True, group="changes-diff")
    def show_diff(self, path: str, number: int) -> None:
        args = {"action": "diff", "path": path, "version": number}
        answer = self.kb.tool("app_changes", args)
        self.app.call_from_thread(self._diff_shown, path, number, answer)

    def _diff_shown(self, path: str, number: int, answer: Envelope) -> None:
        view = self.query_one("#changes-diff", DiffView)
        if not answer.get("ok"):
            view.show(f"{path} v{number}", "")
            view.query_one(Static).update(Text(f"✗ {answer.get('message')}", style="red"))
        else:
            title = (
                f"{path} v{number}: {answer['operation']} by {answer['source']}  "
                f"+{answer['added']} -{answer['removed']}"
            )
            view.show(title, str(answer["diff"]), empty="this write changed no line")
        view.focus()

    def action_leave(self) -> None:
        if self.focused is self.query_one("#changes-diff"):
            self.query_one("#changes-list").focus()
        else:
            self.dismiss()

    def action_open(self) -> None:
        change = self._selected()
        if change is None:
            return
        if change.get("id"):
            self.post_message(OpenNote(str(change["id"])))
        else:
            self.notify(f"{change['path']} is not in the vault now", severity="warning")

    # -- undo ------------------------------------------------------------------------------
    def action_undo(self) -> None:
        change = self._selected()
        if change is not None:
            self.undo(str(change["path"]), int(change["version"]), dry_run=True)

    @work(thread=True, group="changes-undo")
    def undo(self, path: str, number: int, dry_run: bool) -> None:
        args = {"action": "undo", "path": path, "version": number, "dry_run": dry_run}
        answer = self.kb.tool("app_changes", args)
        self.app.call_from_thread(self._undone, path, number, dry_run, answer)

    def _undone(self, path: str, number: int, dry: bool, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.notify(
                str(answer.get("message")), title="Not undone", severity="error", timeout=10
            )
            self.load()
            return
        if dry:
            if "restored" not in answer:
                what = f"This write created {path}: undoing it deletes the note (to the trash)."
            else:
                what = f"{path} goes back to v{answer['restored']}, as it was before this write."
            body = Text.assemble(
                what,
                " (",
                counts_text(answer["added"], answer["removed"]),
                ")\nThe undo is a "
                "write like any other: kept in the history, and can itself be undone.\n\n",
                diff_text(str(answer.get("diff") or "")),
            )

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.undo(path, number, dry_run=False)

            self.app.push_screen(
                ConfirmWrite(f"Undo v{number} of {path}?", body, "Undo"), confirmed
            )
            return
        self.notify(str(answer.get("message")))
        self.kb.poll_status()
        self.load()
