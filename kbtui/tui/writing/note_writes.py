"""The note view's writes and what it learns of others' (mixed into NoteScreen): `h` its
history, `d` delete it (the links it would leave unresolved shown first, then note_delete
with the hash the view read: a save since is refused), and a refresh when the open note is
written by anyone (an assistant's edit through `kbtui mcp`, a CLI command, a restore)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType

from kbtui.cells import cell_safe
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.writing.confirm import ConfirmWrite
from kbtui.tui.writing.history import HistoryScreen

Envelope = dict[str, Any]
SHOWN_LINKS = 40  # links listed in the delete question; the rest counted


def delete_question(path: str, answer: Envelope) -> Text:
    """What deleting does: where the note goes, and every link it leaves unresolved."""
    text = Text()
    trash = answer.get("trash")
    where = f"goes to {trash}" if trash else "is deleted (the vault keeps no trash)"
    text.append(f"{path} {where}. ", style="bold")
    text.append("Its text stays in kbtui's history: Changes (f2), then u, brings it back.\n\n")
    unresolved: list[dict[str, Any]] = list(answer.get("unresolved") or [])
    if not unresolved:
        text.append("No other note links to it.", style="green")
        return text
    links = sum(int(u["count"]) for u in unresolved)
    files = len({u["file"] for u in unresolved})
    text.append(f"{links} link(s) in {files} note(s) will reach no note:\n", style="bold yellow")
    for u in unresolved[:SHOWN_LINKS]:
        times = f" ×{u['count']}" if int(u["count"]) > 1 else ""
        text.append(f"  {cell_safe(str(u['file']))}: ", style="yellow")
        text.append(f"[[{cell_safe(str(u['link']))}]]{times}\n")
    if len(unresolved) > SHOWN_LINKS:
        text.append(f"  … and {len(unresolved) - SHOWN_LINKS} more\n", style="dim")
    return text


class NoteWrites(KbScreen):
    """Mixed into NoteScreen (which has `note`, `entity_id`, `load` and `action_back`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "h",
            "history",
            "History",
            show=False,
            tooltip="The note's versions: diff, restore",
            id="note.history",
        ),
        Binding(
            "d",
            "delete",
            "Delete…",
            show=False,
            tooltip="Delete the note (the links it leaves unresolved shown first)",
            id="note.delete",
        ),
    ]

    entity_id: str
    note: dict[str, Any] | None
    load: Callable[..., Any]  # NoteScreen's worker
    action_back: Callable[[], None]

    def note_path(self) -> str | None:
        note = self.note
        if note is None or not note.get("ok"):
            return None
        path = str(note["metadata"]["file_path"])
        return path if path.lower().endswith((".md", ".markdown")) else None  # what kbtui writes

    def action_history(self) -> None:
        path = self.note_path()
        if path is not None:
            self.app.push_screen(HistoryScreen(path))

    # -- delete ----------------------------------------------------------------------------
    def action_delete(self) -> None:
        path = self.note_path()
        if path is not None and self.note is not None:
            self.delete(path, self.note.get("hash"), dry_run=True)

    @work(thread=True, group="note-delete")
    def delete(self, path: str, expected: str | None, dry_run: bool) -> None:
        args: dict[str, Any] = {"note": path, "dry_run": dry_run}
        if expected:  # the file the view shows: a save since is refused, not deleted
            args["expected_hash"] = expected
        answer = self.kb.tool("note_delete", args)
        self.app.call_from_thread(self._deleted, path, expected, dry_run, answer)

    def _deleted(self, path: str, expected: str | None, dry: bool, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            return
        if dry:

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.delete(path, expected, dry_run=False)

            question = ConfirmWrite(f"Delete {path}?", delete_question(path, answer), "Delete")
            self.app.push_screen(question, confirmed)
            return
        self.notify(str(answer.get("message")))
        self.kb.poll_status()
        self.action_back()

    # -- others' writes --------------------------------------------------------------------
    def notes_written(self) -> None:
        """A note was written somewhere: this one again if its file is not what is shown."""
        path = self.note_path()
        if path is not None and self.note is not None:
            self.check_written(self.entity_id, path, self.note.get("hash"))

    @work(thread=True, exclusive=True, group="note-written")
    def check_written(self, entity_id: str, path: str, shown: str | None) -> None:
        now = self.kb.tool("note_read", {"note": path})
        if now.get("hash") != shown and entity_id == self.entity_id:
            self.app.call_from_thread(self.load, entity_id, mentions=False)
