"""```dataview and ```tasks blocks drawn where they stand in the note, as the plugins draw them
in Obsidian: a TABLE as a table, a LIST as a list, TASK results and a ```tasks block as a task
list under their group headings; `this` is the note holding the block. Enter opens a row's
note (a task's at its line), space toggles a task through task_update (the write path, whose
history makes it undoable) and the block runs again. A block that cannot run says why in its
place (the query language's message); a ```dataviewjs block says it is not run, never blank.
The answers come from app_dataview and app_tasks_query, like every other front end's."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from kbtui.tasksquery.render import task_count
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.tasks import toggle_task
from kbtui.tui.widgets.base_block import NoteBlock, fences, put_in_place
from kbtui.tui.widgets.base_layouts import cell

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

LANGUAGES = ("dataview", "tasks", "dataviewjs")
BLOCK_ROWS = 200  # rows drawn in the note; how many more is said under them
NOT_RUN = "not run: DataviewJS is not supported (kbtui runs Dataview's query language, DQL)"
LINK = re.compile(r"\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
TASK_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[(.)\]\s?)?")
DONE = frozenset("xX-")  # Obsidian's done and cancelled marks, drawn struck through

Target = dict[str, Any]  # what a row opens: {"file", "line"?, "text"?, "task"?}
Entry = tuple[RenderableType, Target | None]  # an item of the list; a heading opens nothing


def link_text(text: str) -> str:
    """Links as Obsidian draws them: their alias, else the note's name."""

    def shown(m: re.Match[str]) -> str:
        return m.group(2) or m.group(1).rsplit("/", 1)[-1].removesuffix(".md")

    return LINK.sub(shown, text)


def shown(value: Any) -> str:
    """A value of an answer as the plugins draw it: links by name, lists joined."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value)
    return link_text(cell(value))


def task_entries(tasks: list[dict[str, Any]], backlink: bool) -> list[Entry]:
    """A task list: a heading per group level where its name changes (as the Tasks plugin
    draws them), each task with its box and, indented under it, its sub-items."""
    out: list[Entry] = []
    last: list[str] = []

    def walk(items: list[dict[str, Any]], depth: int) -> None:
        nonlocal last
        for t in items:
            group = t.get("group")
            names = [group] if isinstance(group, str) else [str(g) for g in group or []]
            for level, name in enumerate(names if depth == 0 else []):
                if level >= len(last) or last[level] != name:
                    out.append((Text("  " * level + link_text(name), style="bold"), None))
                    last = [*last[:level], name]
            out.append((task_line(t, depth, backlink), task_target(t)))
            walk(t.get("children", []), depth + 1)

    walk(tasks, 0)
    return out


def task_line(task: dict[str, Any], depth: int, backlink: bool) -> Table:
    """The box (or a bullet: a list item under a task), then the text."""
    raw = str(task["text"]).split("\n", 1)[0]
    status = task.get("status")
    text = Text(link_text(TASK_MARK.sub("", raw, count=1)))
    text.stylize("dim strike" if status in DONE else "")
    if backlink:
        name = str(task["file"]).rsplit("/", 1)[-1].removesuffix(".md")
        text.append(f"  ({name})", style="dim")
    return item("  " * depth + (f"[{status}] " if status is not None else "• "), text)


def item(mark: str, text: Text) -> Table:
    """A list item: its mark, then its text wrapped under itself (not under the mark)."""
    line = Table.grid()
    line.add_column(no_wrap=True)
    line.add_column()
    line.add_row(Text(mark), text)  # Text: a task's `[x]` is no markup
    return line


def task_target(task: dict[str, Any]) -> Target:
    return {"file": task["file"], "line": int(task["line"]), "text": str(task["text"]),
            "task": task.get("status") is not None}  # fmt: skip


class BlockList(OptionList):
    """A LIST's items or a task list; Enter opens the item's note, space toggles a task."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_task", "Toggle task", id="note.block_toggle"),
    ]

    class Toggle(Message):
        def __init__(self, task: Target) -> None:
            super().__init__()
            self.task = task

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[Target | None] = []

    def show(self, entries: list[Entry]) -> None:
        highlighted = self.highlighted
        self.clear_options()
        self.add_options([Option(text, disabled=t is None) for text, t in entries])
        self.targets = [t for _, t in entries]
        self.move_to(highlighted)

    def move_to(self, at: int | None) -> None:
        """The cursor on item `at` (the next item when that is a heading; the last when past
        the end), else on the first."""
        items = [n for n, t in enumerate(self.targets) if t is not None]
        if not items or at is None:
            self.highlighted = items[0] if items else None
        else:
            self.highlighted = next((n for n in items if n >= at), items[-1])

    def current(self) -> Target | None:
        at = self.highlighted
        return self.targets[at] if at is not None and at < len(self.targets) else None

    def action_toggle_task(self) -> None:
        task = self.current()
        if task is not None and task.get("task"):
            self.post_message(self.Toggle(task))


class QueryBlock(NoteBlock):
    """One ```dataview, ```tasks or ```dataviewjs block of the note."""

    DEFAULT_CSS = """
    QueryBlock > BlockList { height: auto; max-height: 24; border: none; padding: 0; }
    QueryBlock > BlockList:focus { border: none; }
    QueryBlock > BlockList > .option-list--option-disabled { color: $text-accent; }
    """

    def __init__(self, language: str, query: str, this: str, cursor: int | None = None) -> None:
        super().__init__()
        self.language, self.source, self.this = language, query, this
        self.cursor = cursor  # focus this row once drawn: the note drawn again after a write
        self.border_title = f"{language} block"
        self.row_targets: list[Target | None] = []

    def compose(self) -> ComposeResult:
        yield Static(Text("…", style="dim"), classes="block-head")
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield BlockList()
        yield Static(classes="block-foot")

    def on_mount(self) -> None:
        for widget in (DataTable, BlockList, ".block-foot"):
            self.query_one(widget).display = False
        if self.language == "dataviewjs":
            self.head(NOT_RUN, "yellow")
        else:
            self.load()

    @work(thread=True, exclusive=True, group="query-block")
    def load(self) -> None:
        tool = "app_tasks_query" if self.language == "tasks" else "app_dataview"
        answer = cast("KbApp", self.app).tool(tool, {"query": self.source, "this": self.this})
        self.app.call_from_thread(self.show, answer)

    def show(self, answer: dict[str, Any]) -> None:
        if not answer.get("ok"):  # the query language's own message, naming the construct
            self.failed(answer.get("message"), DataTable, BlockList)
            self.foot("")
            return
        if self.language == "tasks":
            self._tasks(answer)
        elif answer["type"] == "table":
            self._table(answer)
        else:
            entries = self._list(answer) if answer["type"] == "list" else self._dv_tasks(answer)
            self._show_list(entries)
        if self.cursor is not None:
            self._refocus(self.cursor)
            self.cursor = None

    def row(self) -> int | None:
        """The row under the cursor of the list or table shown."""
        listed, table = self.query_one(BlockList), self.query_one(DataTable)
        return listed.highlighted if listed.display else table.cursor_row

    def _refocus(self, row: int) -> None:
        listed, table = self.query_one(BlockList), self.query_one(DataTable)
        if listed.display and listed.option_count:
            listed.move_to(row)
            listed.focus()
        elif table.display and table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
            table.focus()

    def _show_list(self, entries: list[Entry]) -> None:
        self.query_one(DataTable).display = False
        listed = self.query_one(BlockList)
        listed.display = bool(entries)
        listed.show(entries)

    def _tasks(self, answer: dict[str, Any]) -> None:
        found, parts = answer["results"], (answer.get("layout") or {}).get("shown", [])
        counted = f" · {task_count(len(found), answer['total'])}" if "task count" in parts else ""
        self.head(f"tasks{counted}")
        self._show_list(task_entries(found, "backlink" in parts))
        said = Text("" if found or counted else "no tasks")
        for warning in answer.get("warnings", []):  # a line's words no date was read from
            said.append(("\n" if said else "") + f"⚠ {warning}", style="yellow")
        self.foot(said)

    def _dv_tasks(self, answer: dict[str, Any]) -> list[Entry]:
        count = answer.get("count", len(answer["rows"]))
        self.head(f"dataview · TASK · {count} task{'' if count == 1 else 's'}")
        self.foot("" if answer["rows"] else "Dataview: No results to show for task query.")
        return task_entries(answer["rows"][:BLOCK_ROWS], backlink=True)

    def _list(self, answer: dict[str, Any]) -> list[Entry]:
        rows, columns = answer["rows"], answer["columns"]
        self._counted("LIST", len(rows))
        entries: list[Entry] = []
        for row, paths in zip(rows[:BLOCK_ROWS], answer["rowPaths"], strict=False):
            values = [shown(row.get(c)) for c in columns]
            text = Text(values[0], style="bold" if len(values) > 1 else "")
            if len(values) > 1:
                text.append(f"  {values[1]}", style="dim")
            entries.append((item("• ", text), {"file": paths} if paths else None))
        return entries

    def _table(self, answer: dict[str, Any]) -> None:
        rows, columns = answer["rows"], answer["columns"]
        self._counted("TABLE", len(rows))
        self.query_one(BlockList).display = False
        table = self.query_one(DataTable)
        table.display = True
        table.clear(columns=True)
        table.add_columns(*columns)
        for i, row in enumerate(rows[:BLOCK_ROWS]):
            table.add_row(*[shown(row.get(c)) for c in columns], key=str(i))
        self.row_targets = [{"file": p} if p else None for p in answer["rowPaths"]]

    def _counted(self, kind: str, total: int) -> None:
        self.head(f"dataview · {kind} · {total} result{'' if total == 1 else 's'}")
        more = total - BLOCK_ROWS
        empty = f"Dataview: No results to show for {kind.lower()} query."
        self.foot(f"{more} more not drawn" if more > 0 else "" if total else empty)

    # -- Enter and space -------------------------------------------------------------------
    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()
        at = int(str(event.row_key.value))
        if at < len(self.row_targets) and self.row_targets[at] is not None:
            self._open(cast(Target, self.row_targets[at]))

    @on(OptionList.OptionSelected)
    def _item(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        target = self.query_one(BlockList).targets[event.option_index]
        if target is not None:
            self._open(target)

    def _open(self, target: Target) -> None:
        files = target["file"]
        if isinstance(files, list) and len(files) != 1:  # a GROUP BY row: several notes
            self.notify(f"This row groups {len(files)} notes; its rows name them.")
            return
        self.open_note(files[0] if isinstance(files, list) else files, target)

    @work(thread=True, group="query-block-open")
    def open_note(self, path: str, target: Target) -> None:
        found = cast("KbApp", self.app).tool("kg_find_entity", {"name": path, "exact": True})
        if found.get("ok") and found["entities"]:
            line, text = target.get("line"), target.get("text", "")
            self.post_message(OpenNote(found["entities"][0]["id"], line=line, text=text))
        else:
            missing = f"{path} is not in the index"
            self.app.call_from_thread(self.notify, missing, severity="warning")

    @on(BlockList.Toggle)
    def _toggle(self, event: BlockList.Toggle) -> None:
        event.stop()
        self.toggle(event.task)

    @work(thread=True, exclusive=True, group="query-block-write")
    def toggle(self, task: Target) -> None:
        """As the Tasks screen's space does it; then the block runs again."""
        toggle_task(cast("KbApp", self.app), task)
        self.app.call_from_thread(self.load)


def place_query_blocks(body: Markdown, this: str) -> list[QueryBlock]:
    """A QueryBlock in place of each ```dataview, ```tasks and ```dataviewjs fence of the
    drawn note (the fence hidden); `this`: the note's path. The same note drawn again (a task
    toggled in it) keeps the focus on the block and row that had it."""
    kept: tuple[int, int | None] | None = None
    for n, old in enumerate(body.query(QueryBlock)):
        if old.this == this and old.has_focus_within:
            kept = (n, old.row())
        old.remove()
    placed = []
    for n, (fence, language) in enumerate(fences(body, LANGUAGES)):
        cursor = kept[1] if kept is not None and kept[0] == n else None
        block = QueryBlock(language, fence.code, this, cursor)
        put_in_place(fence, block)
        placed.append(block)
    return placed
