"""A base opened in the TUI: its views as tabs, the view's rows laid out as the view's type
says (a table; a list view as a bulleted list and a cards view as a grid of cards, see
kbtui.tui.widgets.base_layouts; a map view as a table with each row's coordinates), groups as
header lines, summaries under it; Enter opens the row's note; `s`/`S` or a click on a header
sort by a column (inside each group), as Obsidian's column menu does. Everything comes from
the base_query tool, like the CLI and MCP."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static, Tab, Tabs

from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.base_layouts import (
    BaseCards,
    BaseList,
    Card,
    Groups,
    cell,
    fill_table,
)

ROW_LIMIT = 1000


def sort_key(value: Any) -> tuple[int, float | str]:
    """Numbers by value, then text without case; empty cells last either way (see `_fill`)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value))
    return (1, cell(value).casefold())


def is_blank(value: Any) -> bool:
    return value is None or value == "" or value == []


class BaseScreen(KbScreen):
    """One base; `[`/`]` or a click switch views."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "back", "Back", id="base.back"),
        Binding("right_square_bracket", "view(1)", "Next view", id="base.next"),
        Binding("left_square_bracket", "view(-1)", "Previous view", id="base.previous"),
        Binding("s", "sort_next", "Sort by column", id="base.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="base.sort_reverse"),
        Binding("r", "reload", "Reload", show=False, id="base.reload"),
    ]

    def __init__(self, base: str, view: str | None = None, this: str | None = None) -> None:
        super().__init__()
        self.base = base
        self.view_name = view
        self.this = this  # the note embedding the base, `this` in its expressions
        self.views: list[str] = []
        self.row_ids: dict[str, str] = {}
        self.answer: dict[str, Any] | None = None
        self.sort_by: tuple[str, bool] | None = None  # (column id, descending); None: the view's

    def compose_body(self) -> ComposeResult:
        yield Static(id="base-title")
        yield Tabs(id="base-tabs")
        yield DataTable(id="base-table", cursor_type="row", zebra_stripes=True)
        yield BaseList(id="base-list")
        yield BaseCards(id="base-cards")
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

    def action_sort_next(self) -> None:
        """The next column ascending; past the last, back to the view's own order."""
        if not self.answer:
            return
        ids = [c["id"] for c in self.answer["columns"]]
        at = ids.index(self.sort_by[0]) + 1 if self.sort_by and self.sort_by[0] in ids else 0
        self.sort_by = (ids[at], False) if at < len(ids) else None
        self._fill(self.answer)

    def action_sort_reverse(self) -> None:
        if self.answer and self.sort_by:
            self.sort_by = (self.sort_by[0], not self.sort_by[1])
            self._fill(self.answer)

    @on(DataTable.HeaderSelected, "#base-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        """A click on a header sorts by it; a second click reverses."""
        pid = str(event.column_key.value)
        same = self.sort_by is not None and self.sort_by[0] == pid
        self.sort_by = (pid, not self.sort_by[1] if same and self.sort_by else False)
        if self.answer:
            self._fill(self.answer)

    def action_view(self, step: int) -> None:
        if self.views:
            at = self.views.index(self.view_name) if self.view_name in self.views else 0
            self.load(self.views[(at + step) % len(self.views)])

    @work(thread=True, exclusive=True, group="base")
    def load(self, view: str | None) -> None:
        args: dict[str, Any] = {"file": self.base, "limit": ROW_LIMIT}
        if view:
            args["view"] = view
        if self.this:
            args["this"] = self.this
        answer = self.kb.tool("base_query", args)
        self.app.call_from_thread(self.call_later, self.show, answer)  # async: tabs mount

    async def show(self, answer: dict[str, Any]) -> None:
        title = self.query_one("#base-title", Static)
        if not answer.get("ok"):
            title.update(Text(f"{self.base}: {answer.get('message')}", style="red"))
            return
        if answer["view"] != self.view_name:
            self.sort_by = None  # another view: its own order
        self.view_name = answer["view"]
        if answer["views"] != self.views:
            self.views = list(answer["views"])
            tabs = self.query_one("#base-tabs", Tabs)
            with tabs.prevent(Tabs.TabActivated):  # the first tab added is not a choice
                await tabs.clear()
                for i, name in enumerate(self.views):
                    await tabs.add_tab(Tab(name, id=f"view-{i}"))
        tabs = self.query_one("#base-tabs", Tabs)
        with tabs.prevent(Tabs.TabActivated):
            tabs.active = f"view-{self.views.index(self.view_name)}"
        shown, total = len(answer["rows"]), answer["total"]
        title.update(Text.assemble((answer["base"] or "", "bold"),
                                   f" · {answer['type']} · {shown} of {total} rows"))  # fmt: skip
        self._fill(answer)

    def _fill(self, answer: dict[str, Any]) -> None:
        first = self.answer is None or self.answer.get("view") != answer.get("view")
        self.answer = answer
        columns, rows = answer["columns"], answer["rows"]
        if self.sort_by and self.sort_by[0] not in {c["id"] for c in columns}:
            self.sort_by = None
        self.row_ids = {r["path"]: r.get("id", "") for r in rows}
        order = [(g, g["rows"]) for g in answer["groups"]] or [(None, range(len(rows)))]
        groups: Groups = [(group, self._sorted(rows, indices)) for group, indices in order]
        kind = answer.get("type")
        table = self.query_one("#base-table", DataTable)
        shown = {"list": BaseList, "cards": BaseCards}.get(kind or "", DataTable)
        for widget in (table, self.query_one(BaseList), self.query_one(BaseCards)):
            widget.display = isinstance(widget, shown)
        if kind == "list":
            self.query_one(BaseList).show(answer, groups)
            if first:
                self.query_one(BaseList).focus()
        elif kind == "cards":
            cards = self.query_one(BaseCards)
            cards.show(answer, groups)
            if first:
                cards.focus_card()
        else:
            fill_table(table, answer, groups, self.sort_by)
            if first or isinstance(self.focused, (Card, BaseList)):
                table.focus()  # the rows take the keys, as a list's or cards' do
        named = {c["id"]: c["name"] for c in columns}
        lines = [
            f"{s['summary']} of {named.get(pid, pid)}: {cell(s['value'])}"
            for pid, s in answer["summaries"].items()
        ]
        if self.sort_by and kind in ("list", "cards"):  # no header to carry the arrow
            arrow = "▼" if self.sort_by[1] else "▲"
            lines.insert(0, f"sorted by {named.get(self.sort_by[0])} {arrow}")
        self.query_one("#base-summary", Static).update(Text("\n".join(lines), style="dim"))

    def _sorted(self, rows: list[dict[str, Any]], indices: Any) -> list[int]:
        if self.sort_by is None:
            return list(indices)
        pid, desc = self.sort_by
        filled = [i for i in indices if not is_blank(rows[i]["values"].get(pid))]
        blank = [i for i in indices if is_blank(rows[i]["values"].get(pid))]
        filled.sort(key=lambda i: sort_key(rows[i]["values"].get(pid)), reverse=desc)
        return filled + blank

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
