"""A note's history (`h` in the note view): its versions, newest first, with when, who wrote
(tui, cli, an assistant as mcp:<client>, external programs) and lines added/removed; Enter
shows the diff from that version to the note as it is now; `r` restores it after a look at
what the restore changes (note_history: a restore is a write, stated with the hash of the
file listed, so another program's save in between is refused, not overwritten)."""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.writing.confirm import ConfirmWrite
from kbtui.tui.writing.diff_view import DiffView, age, counts_text, diff_text, writer_text

Envelope = dict[str, Any]


def version_time(version: dict[str, Any]) -> float:
    """The epoch seconds of a listed version (note_history gives local ISO time)."""
    return dt.datetime.fromisoformat(str(version["time"])).timestamp()


def version_line(version: dict[str, Any], now_hash: str | None) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"v{version['version']:<4}", style="bold")
    line.append(f"{age(version_time(version)):<18}")
    line.append(writer_text(str(version["source"]), 18))
    line.append(f" {cell_safe(str(version['operation'])):<26}")
    if version["operation"] != "seen":  # the first sight of a note changed nothing
        line.append(counts_text(int(version["added"]), int(version["removed"])))
    if version["hash"] is None:
        line.append("  deleted", style="dim italic")
    elif version["hash"] == now_hash:
        line.append("  = now", style="bold cyan")
    return line


class HistoryScreen(KbScreen):
    """The versions of one note (by vault path); a deleted note's too."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "leave",
            "Back",
            tooltip="Back; from the diff: to the versions",
            id="history.back",
        ),
        Binding("enter", "diff", "Diff with now", show=False, id="history.diff"),
        Binding(
            "r",
            "restore",
            "Restore…",
            tooltip="Restore this version (asks first)",
            id="history.restore",
        ),
    ]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.versions: list[dict[str, Any]] = []
        self.now_hash: str | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(id="history-title")
        yield EntityList(id="history-versions")
        yield DiffView(id="history-diff")

    def on_mount(self) -> None:
        self.query_one("#history-versions").border_title = "Versions (Enter: diff with now)"
        diff = self.query_one("#history-diff", DiffView)
        diff.border_title = "Diff"
        diff.query_one(Static).update(
            Text("Enter on a version shows what changed since.", style="dim italic")
        )
        self.query_one("#history-versions").focus()
        self.load()

    # -- loading ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="history")
    def load(self) -> None:
        answer = self.kb.tool("note_history", {"note": self.path})
        self.app.call_from_thread(self._show, answer)

    def _show(self, answer: Envelope) -> None:
        title = Text(f"History of {cell_safe(self.path)}", style="bold")
        versions = self.query_one("#history-versions", EntityList)
        if not answer.get("ok"):
            title.append(f"  ✗ {answer.get('message')}", style="red")
            self.query_one("#history-title", Static).update(title)
            versions.show([], empty="no history")
            return
        self.versions, self.now_hash = list(answer["versions"]), answer.get("hash")
        title.append(f"  {len(self.versions)} version(s)", style="dim")
        if self.now_hash is None:
            title.append("  · deleted: r brings a version back", style="yellow")
        self.query_one("#history-title", Static).update(title)
        options = [
            Option(version_line(v, self.now_hash), id=str(v["version"])) for v in self.versions
        ]
        versions.show(options, empty="no versions kept", keep=True)

    def notes_written(self) -> None:
        self.load()

    def _selected(self) -> dict[str, Any] | None:
        chosen = self.query_one("#history-versions", EntityList).current_id
        return next((v for v in self.versions if str(v["version"]) == chosen), None)

    # -- diff ------------------------------------------------------------------------------
    @on(EntityList.OptionSelected, "#history-versions")
    def _selected_version(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        self.action_diff()

    def action_diff(self) -> None:
        version = self._selected()
        if version is not None:
            self.show_diff(int(version["version"]))

    @work(thread=True, exclusive=True, group="history-diff")
    def show_diff(self, number: int) -> None:
        args = {"note": self.path, "action": "diff", "from": number}
        answer = self.kb.tool("note_history", args)
        self.app.call_from_thread(self._diff_shown, number, answer)

    def _diff_shown(self, number: int, answer: Envelope) -> None:
        view = self.query_one("#history-diff", DiffView)
        version = next((v for v in self.versions if v["version"] == number), None)
        if not answer.get("ok"):
            view.show(f"v{number}", "")
            view.query_one(Static).update(Text(f"✗ {answer.get('message')}", style="red"))
        else:
            to = "now" if self.now_hash else "deleted"
            who = f"{version['source']}, {age(version_time(version))}" if version else ""
            title = f"v{number} ({who}) → {to}  +{answer['added']} -{answer['removed']}"
            same = f"v{number} is what the note holds now"
            view.show(title, str(answer["diff"]), empty=same)
        view.focus()

    def action_leave(self) -> None:
        if self.focused is self.query_one("#history-diff"):
            self.query_one("#history-versions").focus()
        else:
            self.dismiss()

    # -- restore ---------------------------------------------------------------------------
    def action_restore(self) -> None:
        version = self._selected()
        if version is None:
            return
        number = int(version["version"])
        if version["hash"] is None:
            self.notify(
                f"v{number} is the note's deletion: restore a version before it", severity="warning"
            )
        elif version["hash"] == self.now_hash:
            self.notify(f"v{number} is what the note holds now", severity="warning")
        else:
            self.restore(number, self.now_hash, dry_run=True)

    @work(thread=True, group="history-restore")
    def restore(self, number: int, expected: str | None, dry_run: bool) -> None:
        args: dict[str, Any] = {
            "note": self.path,
            "action": "restore",
            "version": number,
            "dry_run": dry_run,
        }
        if expected is not None:  # the file listed: a save since then is refused as stale
            args["expected_hash"] = expected
        answer = self.kb.tool("note_history", args)
        self.app.call_from_thread(self._restored, number, expected, dry_run, answer)

    def _restored(self, number: int, expected: str | None, dry: bool, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            self.load()
            return
        if dry:
            body = Text.assemble(
                f"{self.path} becomes v{number} again (",
                counts_text(answer["added"], answer["removed"]),
                "). What it holds now stays in its history: a restore "
                "is a write like any other, and can be undone.\n\n",
                diff_text(str(answer.get("diff") or "")),
            )

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.restore(number, expected, dry_run=False)

            question = ConfirmWrite(f"Restore v{number} of {self.path}?", body, "Restore")
            self.app.push_screen(question, confirmed)
            return
        self.notify(str(answer.get("message")))
        self.kb.poll_status()  # the note view (and any list of changes) sees the write
        self.load()
