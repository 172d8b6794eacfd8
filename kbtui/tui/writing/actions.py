"""The app's writing keys and commands (mixed into KbApp): ctrl+n a new note, ctrl+l capture,
f2 the vault's changes; what the f1 help lists for the writing screens."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from textual.binding import Binding, BindingType

from kbtui.tui.writing.capture import CaptureModal
from kbtui.tui.writing.changes import ChangesScreen
from kbtui.tui.writing.confirm import ConfirmWrite
from kbtui.tui.writing.history import HistoryScreen
from kbtui.tui.writing.new_note import NewNoteModal, open_created

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

# show=False: the footer stays as it was; f1 lists them
WRITE_BINDINGS: list[BindingType] = [
    Binding(
        "ctrl+n",
        "new_note",
        "New note",
        show=False,
        tooltip="New note: title, folder, template",
        id="app.new_note",
    ),
    Binding(
        "ctrl+l",
        "capture",
        "Capture",
        show=False,
        tooltip="Capture: a line to today's note (or $KBTUI_CAPTURE)",
        id="app.capture",
    ),
    Binding(
        "f2",
        "changes",
        "Changes",
        show=False,
        tooltip="Changes: the vault's latest writes by who wrote; undo one",
        id="app.changes",
    ),
]


def help_sections() -> list[tuple[str, Iterable[BindingType]]]:
    return [
        ("Note history", HistoryScreen.BINDINGS),
        ("Changes", ChangesScreen.BINDINGS),
        ("New note", NewNoteModal.BINDINGS),
        ("Confirming a write", ConfirmWrite.BINDINGS),
    ]


class WriteActions:
    """Mixed into KbApp (a Textual App with `tool`, `notify`, `last_change`)."""

    def action_new_note(self) -> None:
        app = cast("KbApp", self)
        if app.handle is None or isinstance(app.screen, NewNoteModal):
            return
        current = getattr(app.screen, "note_path", None)
        path = current() if callable(current) else None

        def created(path: str | None) -> None:
            if path:
                open_created(app, path)

        app.push_screen(NewNoteModal(path), created)

    def action_capture(self) -> None:
        app = cast("KbApp", self)
        if app.handle is None or isinstance(app.screen, CaptureModal):
            return

        def captured(path: str | None) -> None:
            if path:
                app.last_change = f"captured to {path}"
                app.notify(f"Captured to {path}")
                app.poll_status()  # the status line says where it went, at once

        app.push_screen(CaptureModal(), captured)

    def action_changes(self) -> None:
        app = cast("KbApp", self)
        if app.handle is not None and not isinstance(app.screen, ChangesScreen):
            app.push_screen(ChangesScreen())
