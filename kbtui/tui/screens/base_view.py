"""A base opened in the TUI: its views as tabs, the view's rows as a table (groups as
header lines, summaries under it); Enter opens the row's note. Everything comes from the
base_query tool, like the CLI and MCP."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static, Tab, Tabs

from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen

ROW_LIMIT = 1000


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class BaseScreen(KbScreen):
    """One base; `[`/`]` or a click switch views."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "back", "Back", id="base.back"),
        Binding("right_square_bracket", "view(1)", "Next view", id="base.next"),
        Binding("left_square_bracket", "view(-1)", "Previous view", id="base.previous"),
        Binding("r", "reload", "Reload", show=False, id="base.reload"),
    ]

    def __init__(self, base: str, view: str | None = None) -> None:
        super().__init__()
        self.base = base
        self.view_name = view
        self.views: list[str] = []
        self.row_ids: dict[str, str] = {}

    def compose_body(self) -> ComposeResult:
        yield Static(id="base-title")
        yield Tabs(id="base-tabs")
        yield DataTable(id="base-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="base-summary")

    def on_mount(self) -> None:
        self.load(self.view_name)

    def vault_ready(self) -> None:
        self.load(self.view_name)

    def index_changed(self) -> None:
        self.load(self.view_name)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_reload(self) -> None:
        self.load(self.view_name)

    def action_view(self, step: int) -> None:
        if self.views:
            at = self.views.index(self.view_name) if self.view_name in self.views else 0
            self.load(self.views[(at + step) % len(self.views)])

    @work(thread=True, exclusive=True, group="base")
    def load(self, view: str | None) -> None:
        args: dict[str, Any] = {"file": self.base, "limit": ROW_LIMIT}
        if view:
            args["view"] = view
        answer = self.kb.tool("base_query", args)
        self.app.call_from_thread(self.show, answer)

    def show(self, answer: dict[str, Any]) -> None:
        title = self.query_one("#base-title", Static)
        if not answer.get("ok"):
            title.update(Text(f"{self.base}: {answer.get('message')}", style="red"))
            return
        self.view_name = answer["view"]
        if answer["views"] != self.views:
            self.views = list(answer["views"])
            tabs = self.query_one("#base-tabs", Tabs)
            tabs.clear()
            for i, name in enumerate(self.views):
                tabs.add_tab(Tab(name, id=f"view-{i}"))
        tabs = self.query_one("#base-tabs", Tabs)
        with tabs.prevent(Tabs.TabActivated):
            tabs.active = f"view-{self.views.index(self.view_name)}"
        shown, total = len(answer["rows"]), answer["total"]
        title.update(Text.assemble((answer["base"] or "", "bold"),
                                   f" · {answer['type']} · {shown} of {total} rows"))  # fmt: skip
        self._fill(answer)

    def _fill(self, answer: dict[str, Any]) -> None:
        table = self.query_one("#base-table", DataTable)
        table.clear(columns=True)
        columns = answer["columns"]
        for column in columns:
            table.add_column(column["name"], key=column["id"])
        rows = answer["rows"]
        self.row_ids = {r["path"]: r.get("id", "") for r in rows}
        order = [(g, g["rows"]) for g in answer["groups"]] or [(None, range(len(rows)))]
        for group, indices in order:
            if group is not None:
                label = Text(
                    f"▸ {group['label'] or '(empty)'} ({len(group['rows'])})", style="bold"
                )
                table.add_row(label, *[""] * (len(columns) - 1), key=f"group:{group['label']}")
            for i in indices:
                row = rows[i]
                table.add_row(*(cell(row["values"].get(c["id"])) for c in columns), key=row["path"])
        lines = [
            f"{s['summary']} of {pid}: {cell(s['value'])}" for pid, s in answer["summaries"].items()
        ]
        self.query_one("#base-summary", Static).update(Text("\n".join(lines), style="dim"))

    @on(Tabs.TabActivated, "#base-tabs")
    def _tab(self, event: Tabs.TabActivated) -> None:
        index = int(str(event.tab.id).split("-")[-1])
        if 0 <= index < len(self.views) and self.views[index] != self.view_name:
            self.load(self.views[index])

    @on(DataTable.RowSelected, "#base-table")
    def _open(self, event: DataTable.RowSelected) -> None:
        entity_id = self.row_ids.get(str(event.row_key.value))
        if entity_id:
            self.post_message(OpenNote(entity_id))
