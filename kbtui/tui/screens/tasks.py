"""The Tasks screen: open tasks grouped by note, with their due dates; space toggles the
highlighted task (task_update writes only its line, and refuses if the line changed), Enter
opens its note at the task."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from kbtui.cells import cell_safe
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

MAX_TASKS = 5000


def toggle_task(kb: KbApp, task: dict[str, Any]) -> None:
    """Space on a task, here and in a note's task lists (kbtui.tui.widgets.query_block), from a
    worker thread: task_update writes only its line (through the write path) and refuses if
    the line changed; the outcome is told in a notification."""
    args = {"file": task["file"], "line": task["line"], "status": "toggle", "text": task["text"]}
    answer = kb.tool("task_update", args)
    if answer.get("ok"):
        kb.call_from_thread(kb.notify, str(answer["message"]))
    else:
        kb.call_from_thread(kb.report_failure, answer)


class TasksScreen(KbScreen):
    """Open tasks by note; `a` shows done ones too."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="tasks.back"),
        Binding("space", "toggle_task", "Toggle", id="tasks.toggle"),
        Binding("enter", "open", "Open note", id="tasks.open"),
        Binding("a", "all", "All / open", id="tasks.all"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.status = "todo"
        self.rows: dict[str, dict[str, Any]] = {}  # row key -> task

    def compose_body(self) -> ComposeResult:
        table: DataTable[Text] = DataTable(id="tasks-table", cursor_type="row")
        yield table

    def on_mount(self) -> None:
        table = self.query_one("#tasks-table", DataTable)
        table.add_columns("", "task", "due")
        self.load()

    @work(thread=True, exclusive=True, group="tasks")
    def load(self) -> None:
        answer = self.kb.tool("tasks_list", {"status": self.status, "limit": MAX_TASKS})
        self.app.call_from_thread(self._show, answer)

    def _show(self, answer: dict[str, Any]) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            return
        table = self.query_one("#tasks-table", DataTable)
        keep = table.cursor_row
        table.clear()
        self.rows = {}
        last = None
        for task in answer["results"]:
            if task["file"] != last:
                last = task["file"]
                table.add_row(Text(""), Text(cell_safe(last), style="bold cyan"), Text(""))
            key = f"{task['file']}:{task['line']}"
            self.rows[key] = task
            text = task["text"].strip()
            done = task.get("statusType") in ("DONE", "CANCELLED", "NON_TASK")
            table.add_row(
                Text(f"{task['line']:>5}", style="dim"),
                Text(cell_safe(text), style="dim strike" if done else ""),
                Text(task.get("due", ""), style="yellow"),
                key=key,
            )
        table.border_title = f"Tasks ({answer['total']} {self.status})"
        table.move_cursor(row=min(keep, max(table.row_count - 1, 0)))
        table.focus()

    def _current(self) -> dict[str, Any] | None:
        table = self.query_one("#tasks-table", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.rows.get(key or "")

    def action_toggle_task(self) -> None:
        task = self._current()
        if task is not None:
            self._toggle(task)

    @work(thread=True, exclusive=True, group="tasks-write")
    def _toggle(self, task: dict[str, Any]) -> None:
        toggle_task(self.kb, task)
        self.app.call_from_thread(self.load)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # the table takes Enter itself: open the note from here
        self.action_open()

    def action_open(self) -> None:
        task = self._current()
        if task is not None:
            self.post_message(OpenNote(task["id"], line=task["line"], text=task["text"]))

    def action_all(self) -> None:
        self.status = "all" if self.status == "todo" else "todo"
        self.load()

    def action_back(self) -> None:
        self.dismiss()

    def index_changed(self) -> None:
        self.load()
