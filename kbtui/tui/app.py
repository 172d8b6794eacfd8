"""The kbtui Textual app: screens, the live status poll and the one way to reach the vault.

The app only ever talks to a `VaultHandle` (tool calls, note pages, status). It gets one
directly (tests) or an `opener` that builds one in a worker thread (kbtui.tui.run_app), so
the first frame never waits for the index or the embedding model.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ScreenStackError, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.screen import Screen

from kbtui.runtime.runtime import VaultHandle
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tui.commands import KbCommands
from kbtui.tui.edit.app_parts import EditApp
from kbtui.tui.messages import OpenNote, ShowGraph, StatusUpdated, VaultFailed
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.graph import GraphScreen
from kbtui.tui.screens.modals import ErrorScreen, HelpScreen, PromptModal, ReportModal
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.screens.tasks import TasksScreen
from kbtui.tui.widgets.base_layouts import Card
from kbtui.tui.widgets.graph_browse import DuplicatesPane
from kbtui.tui.widgets.graph_map import CanvasPane, MapPane, OverviewPane
from kbtui.tui.widgets.graph_walk import NeighboursPane
from kbtui.tui.widgets.status import pass_summary, report_summary
from kbtui.tui.writing.actions import WRITE_BINDINGS, WriteActions, help_sections
from kbtui.tui.writing.note_writes import NoteWrites

log = logging.getLogger("kbtui.tui")
TUI = Origin("tui")

Opener = Callable[[Path | None], VaultHandle]
Envelope = dict[str, Any]
STATUS_SECONDS = 1.0
STYLES = Path(__file__).parent
STYLE_FILES = (
    "app.tcss",
    "screens/search.tcss",
    "screens/note.tcss",
    "screens/graph.tcss",
    "writing/writing.tcss",
)


def failed(error_type: str, message: str) -> Envelope:
    """The envelope shape for a failure that happened before the query layer answered."""
    return {
        "ok": False,
        "success": False,
        "error": {"type": "TRANSIENT", "message": message, "retryable": True, "field": None},
        "error_type": error_type,
        "message": message,
    }


class KbApp(WriteActions, EditApp):
    """Search, read and walk one vault from the keyboard."""

    # Every screen's styles load with the app (a default screen's own CSS_PATH is not read),
    # by absolute path so that a subclass elsewhere (bench, tests) finds them too.
    CSS_PATH = [str(STYLES / name) for name in STYLE_FILES]  # noqa: RUF012 (Textual's type)
    TITLE = "kbtui"
    COMMANDS = EditApp.COMMANDS | {KbCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("question_mark", "help", "Help", show=False, id="app.help_key"),
        Binding("ctrl+g", "graph", "Graph", id="app.graph"),
        Binding("ctrl+r", "reindex", "Reindex", id="app.reindex"),
        Binding("ctrl+o", "tasks", "Tasks", show=False, id="app.tasks"),
        *WRITE_BINDINGS,
        Binding(
            "f3",
            "review_waiting",
            "Review",
            tooltip="Review: what assistants asked to write, held for you",
            id="app.review",
        ),  # in the footer while a proposal waits; f3 opens the Review screen at any time:
        Binding("f3", "review", show=False, id="app.review_any"),
    ]

    def __init__(
        self,
        handle: VaultHandle | None = None,
        *,
        opener: Opener | None = None,
        vault_name: str = "",
        status_seconds: float = STATUS_SECONDS,
    ) -> None:
        super().__init__()
        self.handle = handle
        self.opener = opener
        self.vault_name = vault_name
        self.status_seconds = status_seconds
        self.last_status: Envelope | None = None
        self.last_change: str | None = None  # what the index last took in, for the status bar
        self._passes: int | None = None
        self._writes: int | None = None  # the history's count of versions, last seen

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that need an open vault are hidden until there is one."""
        needs_vault = ("graph", "reindex", "new_note", "capture", "changes")
        if action == "review_waiting":  # while a proposal waits (as the status bar's badge)
            return self.review_applies()
        return not (action in needs_vault and self.handle is None)

    def get_default_screen(self) -> Screen[Any]:
        return SearchScreen()

    def on_mount(self) -> None:
        self.set_interval(self.status_seconds, self.poll_status)
        if self.handle is not None:
            self.poll_status()  # the screens load their own data when they mount
        elif self.opener is not None:
            self.open_vault(None)
        else:
            self.push_screen(ErrorScreen("No vault was given to open."))

    # -- the vault -------------------------------------------------------------------------
    def tool(self, name: str, args: dict[str, Any] | None = None) -> Envelope:
        """One query-layer call (any thread). Never raises: a handle that fails (a closed
        index, a lost owner process) gives an error envelope like the tools do."""
        handle = self.handle
        if handle is None:
            return failed("UnavailableError", "the vault is not open yet")
        try:
            with acting_as(TUI):  # the history names the TUI as the writer
                return handle.call(name, args or {})
        except Exception as exc:
            log.exception("%s failed", name)
            return failed(type(exc).__name__, str(exc) or type(exc).__name__)

    def report_failure(self, envelope: Envelope) -> None:
        self.notify(
            str(envelope.get("message") or "unknown error"),
            title=str(envelope.get("error_type") or "Error"),
            severity="error",
        )

    @work(thread=True, exclusive=True, group="open")
    def open_vault(self, vault: Path | None) -> None:
        assert self.opener is not None
        try:
            handle = self.opener(vault)
        except Exception as exc:  # locked, missing, no model: all shown, none a traceback
            log.warning("cannot open %s: %s", vault or "the vault", exc)
            self.post_message(VaultFailed(str(exc) or type(exc).__name__))
            return
        self.call_from_thread(self._use_handle, handle)

    def _use_handle(self, handle: VaultHandle) -> None:
        self.handle, self.last_status, self._passes = handle, None, None
        self._writes = None
        self.last_change = None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.refresh_bindings()  # keys that need a vault appear in the footer
        self._vault_ready()

    def _vault_ready(self) -> None:
        self.poll_status()
        for screen in self.screen_stack:
            if isinstance(screen, KbScreen) and screen.is_mounted:
                screen.vault_ready()

    @on(VaultFailed)
    def _vault_failed(self, message: VaultFailed) -> None:
        if self.handle is None:
            self.push_screen(ErrorScreen(message.message))
        else:
            self.notify(message.message, title="Cannot switch vault", severity="error")

    # -- status ----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="status")
    def poll_status(self) -> None:
        handle = self.handle
        if handle is None:
            return
        try:
            status = handle.status()
        except Exception as exc:
            status = {"index": {"state": f"failed: {exc}"}, "stats": {}}
        status["review"] = self.review_status()  # the badge: proposals waiting for review
        self.post_message(StatusUpdated(status))

    @on(StatusUpdated)
    def _status_updated(self, message: StatusUpdated) -> None:
        recovered = message.status.get("recovered")
        if recovered and (self.last_status or {}).get("recovered") != recovered:
            self.notify(str(recovered), title="Index rebuilt", severity="warning", timeout=30)
        self.last_status = message.status
        index = message.status.get("index") or {}
        passes, last = index.get("passes"), index.get("last_pass") or {}
        summary = pass_summary(last)
        if passes != self._passes and summary is not None:
            self.last_change = summary
            if self._passes is not None:  # not the pass that was done before the app looked
                for screen in self.screen_stack:
                    if isinstance(screen, KbScreen):
                        screen.index_changed()
        self._passes = passes
        writes = message.status.get("writes")
        if writes != self._writes and self._writes is not None:  # a note written, by anyone
            for screen in self.screen_stack:
                if isinstance(screen, KbScreen):
                    screen.notes_written()
        self._writes = writes
        try:
            screen = self.screen
        except ScreenStackError:  # a poll answered while the app exits: nothing to show it on
            return
        if isinstance(screen, KbScreen):
            screen.show_status(message.status)

    def vault_path(self) -> Path | None:
        status = self.last_status
        if status is None and self.handle is not None:
            status = self.handle.status()
        return Path(status["vault"]) if status and status.get("vault") else None

    # -- navigation ------------------------------------------------------------------------
    @on(OpenNote)
    def _open_note(self, message: OpenNote) -> None:
        if message.entity_id.startswith("base:"):  # a base from search: its views, not a note
            self.push_screen(BaseScreen(message.entity_id))
        elif isinstance(self.screen, NoteScreen):
            self.screen.show_entity(message.entity_id, message.page, (message.line, message.text))
        else:
            at = (message.line, message.text)
            self.push_screen(NoteScreen(message.entity_id, message.page, at))

    @on(ShowGraph)
    def _show_graph(self, message: ShowGraph) -> None:
        screen = self.screen
        if isinstance(screen, GraphScreen):
            if message.entity_id is not None:
                screen.centre_on(message.entity_id, message.tab)
            else:
                screen.action_tab(message.tab)
        else:
            self.push_screen(GraphScreen(message.entity_id, message.tab))

    def action_graph(self, tab: str = "neighbours") -> None:
        screen = self.screen
        entity_id = screen.entity_id if isinstance(screen, NoteScreen) else None
        if entity_id is None and tab in ("neighbours", "map"):
            # no entity to centre on: start from the list of entities, or the vault's groups
            tab = "entities" if tab == "neighbours" else "overview"
        self.post_message(ShowGraph(entity_id, tab))

    def action_tasks(self) -> None:
        if not isinstance(self.screen, TasksScreen):
            self.push_screen(TasksScreen())

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(
            HelpScreen(
                [
                    ("Everywhere", self.BINDINGS),
                    ("Search", SearchScreen.BINDINGS),
                    ("Note", NoteScreen.BINDINGS + NoteWrites.BINDINGS),
                    ("Base", BaseScreen.BINDINGS + Card.BINDINGS),
                    ("Graph", GraphScreen.BINDINGS + NeighboursPane.BINDINGS),
                    ("Graph map", CanvasPane.BINDINGS + MapPane.BINDINGS),
                    ("Graph overview", OverviewPane.BINDINGS),
                    ("Tasks", TasksScreen.BINDINGS),
                    ("Duplicates", DuplicatesPane.BINDINGS),
                    *help_sections(),
                    *self.edit_help(),
                ]
            )
        )

    def action_switch_vault(self) -> None:
        if self.opener is None:
            self.notify("This app was given one vault; it cannot switch.", severity="warning")
            return

        def chosen(path: str | None) -> None:
            if path:
                self.notify(f"Opening {path}…")
                self.open_vault(Path(path).expanduser())

        current = self.vault_path() if self.handle is not None else None
        self.push_screen(
            PromptModal("Open which vault folder?", "/path/to/vault", str(current or "")), chosen
        )

    # -- indexing and editing --------------------------------------------------------------
    def action_reindex(self) -> None:
        self.notify("Re-indexing the vault…")
        self.reindex(None)

    @work(thread=True, exclusive=True, group="reindex")
    def reindex(self, paths: list[str] | None, then: Callable[[], None] | None = None) -> None:
        """Index now; a whole-vault pass ends in the report (skipped notes and why)."""
        envelope = self.tool("app_reindex", {"paths": paths})
        if not envelope.get("ok"):
            self.call_from_thread(self.report_failure, envelope)
        else:
            self.last_change = report_summary(envelope["report"]) or self.last_change
            if paths is None:
                self.call_from_thread(self.push_screen, ReportModal(envelope["report"]))
        self.call_from_thread(self.poll_status)
        if then is not None:
            self.call_from_thread(then)

    def open_file(self, rel_path: str) -> None:
        """Open a vault file (a PDF) in the system's viewer: xdg-open, or macOS's open."""
        vault = self.vault_path()
        opener = shutil.which("xdg-open") or shutil.which("open")
        if vault is None or opener is None:
            self.notify("No viewer to open files with (xdg-open or open).", severity="error")
            return
        try:
            subprocess.Popen(  # detached: the viewer outlives nothing of ours
                [opener, str(vault / rel_path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            self.notify(f"Cannot start {opener}: {exc}", severity="error")
            return
        self.notify(f"Opening {rel_path}")

    def edit_note(self, entity_id: str, rel_path: str) -> None:
        """Open the note's file in $VISUAL / $EDITOR with the app suspended. Its bytes go to
        the history first; on return the edit is recorded as the TUI's ("edited in $EDITOR",
        kbtui.tools.write.editor) and indexed, and the view shows it. The calls run in a
        worker (a save may hold the index a moment); the editor on the app's thread."""
        vault = self.vault_path()
        if vault is None:
            self.notify("The vault's folder is unknown.", severity="error")
            return
        screen = self.screen
        reload = screen.action_reload if isinstance(screen, NoteScreen) else None
        self.hand_to_editor(vault, rel_path, reload)

    @work(thread=True, group="editor")
    def hand_to_editor(
        self, vault: Path, rel_path: str, then: Callable[[], None] | None = None
    ) -> None:
        opened = self.tool("app_editor", {"path": rel_path, "action": "open"})  # as the TUI
        if not opened.get("ok"):
            self.call_from_thread(self.report_failure, opened)
            return
        try:
            self.call_from_thread(self.run_editor, vault / rel_path)
        finally:  # the hand-over ends even when the editor did not start
            back = {"path": rel_path, "action": "closed", "hash": opened["hash"]}
            envelope = self.tool("app_editor", back)
        if not envelope.get("ok"):
            self.call_from_thread(self.report_failure, envelope)
        elif envelope.get("report"):
            self.last_change = report_summary(envelope["report"]) or self.last_change
        self.call_from_thread(self.poll_status)
        if then is not None:
            self.call_from_thread(then)

    def run_editor(self, file: Path) -> None:
        """$VISUAL / $EDITOR on `file`, the app suspended while it runs."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        command = [*shlex.split(editor), str(file)]
        try:
            try:
                with self.suspend():
                    code = subprocess.call(command)
            except SuspendNotSupported:  # headless (tests): the editor needs no terminal
                code = subprocess.call(command, stdin=subprocess.DEVNULL)
        except OSError as exc:
            self.notify(f"Cannot start {editor!r}: {exc}", severity="error")
            return
        if code != 0:
            self.notify(f"{editor} exited with status {code}", severity="warning")
