"""A ```base code block drawn where it stands in the note, as Obsidian draws it: the block's
first view (its views as tabs when there are several), `this` being the note that holds it,
the rows laid out as the view's type says, its summaries and how many rows more under them;
Enter opens a row's note, `v` the whole view. A
block that cannot run shows why in its place, and the rest of the note still shows. The rows
come from base_query (file `Note.md#N`, the note's Nth block) like every other front end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Markdown, Static, Tab, Tabs
from textual.widgets._markdown import MarkdownFence

from kbtui.bases.syntax import base_blocks
from kbtui.tui.messages import OpenNote
from kbtui.tui.widgets.base_layouts import BaseCards, BaseList, Groups, cell, fill_table

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

BLOCK_ROWS = 20  # rows drawn in the note; the rest are in the whole view (`v`)
Kept = tuple[str | None, int | None]  # a block's view and row, kept over a redraw


class NoteBlock(Vertical):
    """What a query block drawn in a note shares (a ```base block here, ```dataview and
    ```tasks in kbtui.tui.widgets.query_block): its frame, its head line saying what it
    shows or, in red, why it cannot run, and its foot."""

    DEFAULT_CSS = """
    NoteBlock { height: auto; border: round $panel-lighten-2; padding: 0 1; margin: 0 0 1 0; }
    NoteBlock:focus-within { border: round $accent; }
    NoteBlock > DataTable { height: auto; max-height: 24; }
    NoteBlock > .block-foot { color: $text-muted; }
    """

    def head(self, text: str, style: str = "dim") -> None:
        self.query_one(".block-head", Static).update(Text(text, style=style))

    def failed(self, message: object, *shown: type[Widget]) -> None:
        """Said in place (broken YAML, an unknown function...), the rest of the note shown."""
        self.head(f"✗ {message}", "red")
        for widget in shown:
            self.query_one(widget).display = False

    def foot(self, text: str | Text) -> None:
        foot_line = self.query_one(".block-foot", Static)
        foot_line.update(text)
        foot_line.display = bool(text)


class BaseBlock(NoteBlock):
    """One ```base block; `[`/`]` or a click on a tab switch its views."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_square_bracket", "view(1)", "Next view", id="note.block_next"),
        Binding("left_square_bracket", "view(-1)", "Previous view", id="note.block_prev"),
        Binding("v", "open_view", "Whole view", id="note.block_open"),
    ]
    DEFAULT_CSS = """
    BaseBlock > Tabs { margin: 0 0 0 0; }
    BaseBlock > BaseList { height: auto; max-height: 24; border: none; padding: 0; }
    BaseBlock > BaseCards { height: auto; }
    """

    class Opened(Message):
        """The whole view asked for (`v`): the note screen opens it as a base screen."""

        def __init__(self, file: str, view: str | None) -> None:
            super().__init__()
            self.file, self.view = file, view

    def __init__(self, file: str, this: str, number: int, keep: Kept | None = None) -> None:
        super().__init__()
        self.file = file  # "Note.md#N": what base_query takes for this block
        self.this = this  # the note holding the block
        self.keep = keep  # the view and row to show, focused: the note drawn again
        self.border_title = f"base block {number}"
        self.answer: dict[str, Any] | None = None
        self.views: list[str] = []
        self.view_name: str | None = None
        self.row_ids: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Static(Text("…", style="dim"), classes="block-head")
        yield Tabs()
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield BaseList()
        yield BaseCards()
        yield Static(classes="block-foot")

    def on_mount(self) -> None:
        for widget in (Tabs, DataTable, BaseList, BaseCards, ".block-foot"):
            self.query_one(widget).display = False
        self.load(self.keep[0] if self.keep else None)

    @work(thread=True, exclusive=True, group="base-block")
    def load(self, view: str | None) -> None:
        args: dict[str, Any] = {"file": self.file, "this": self.this, "limit": BLOCK_ROWS}
        if view:
            args["view"] = view
        answer = cast("KbApp", self.app).tool("base_query", args)
        self.app.call_from_thread(self.call_later, self.show, answer)

    async def show(self, answer: dict[str, Any]) -> None:
        if not answer.get("ok") and self.keep is not None and self.keep[0] is not None:
            self.keep = (None, self.keep[1])  # the view kept is gone (renamed): the first
            self.load(None)
            return
        if not answer.get("ok"):
            self.failed(answer.get("message"), Tabs, DataTable, BaseList, BaseCards)
            return
        self.answer, self.view_name = answer, answer["view"]
        tabs = self.query_one(Tabs)
        if answer["views"] != self.views:
            self.views = list(answer["views"])
            with tabs.prevent(Tabs.TabActivated):
                await tabs.clear()
                for i, name in enumerate(self.views):
                    await tabs.add_tab(Tab(name, id=f"block-view-{i}"))
        tabs.display = len(self.views) > 1
        with tabs.prevent(Tabs.TabActivated):
            tabs.active = f"block-view-{self.views.index(answer['view'])}"
        shown, total = len(answer["rows"]), answer["total"]
        self.head(f"{answer['view']} · {answer['type']} · {total} row{'' if total == 1 else 's'}")
        self._fill(answer)
        named = {c["id"]: c["name"] for c in answer["columns"]}
        lines = [f"{s['summary']} of {named.get(pid, pid)}: {cell(s['value'])}"
                 for pid, s in answer["summaries"].items()]  # fmt: skip
        if total > shown:
            lines.append(f"{total - shown} more — v opens the whole view")
        self.foot("\n".join(lines))
        if self.keep is not None:
            self._refocus(self.keep[1])
            self.keep = None

    def kept(self) -> Kept:
        """The view shown and the row under the cursor, to show again after a redraw."""
        table, listed = self.query_one(DataTable), self.query_one(BaseList)
        row = table.cursor_row if table.display else listed.highlighted if listed.display else 0
        return self.view_name, row

    def _refocus(self, row: int | None) -> None:
        shown = next((w for w in self.query("DataTable, BaseList, BaseCards") if w.display), None)
        if isinstance(shown, DataTable) and shown.row_count and row is not None:
            shown.move_cursor(row=min(row, shown.row_count - 1))
        elif isinstance(shown, BaseList) and row is not None and row < shown.option_count:
            shown.highlighted = row
        (shown or self).focus()

    def _fill(self, answer: dict[str, Any]) -> None:
        rows = answer["rows"]
        self.row_ids = {r["path"]: r.get("id", "") for r in rows}
        kept = [(g, [i for i in g["rows"] if i < len(rows)]) for g in answer["groups"]]
        groups: Groups = [(g, i) for g, i in kept if i] or [(None, list(range(len(rows))))]
        kind = answer["type"]
        shown: type[Widget] = {"list": BaseList, "cards": BaseCards}.get(kind, DataTable)
        for widget in (DataTable, BaseList, BaseCards):
            self.query_one(widget).display = widget is shown
        if kind == "list":
            self.query_one(BaseList).show(answer, groups)
        elif kind == "cards":
            self.query_one(BaseCards).show(answer, groups)
        else:
            fill_table(self.query_one(DataTable), answer, groups)

    def action_view(self, step: int) -> None:
        if len(self.views) > 1:
            at = self.views.index(self.view_name) if self.view_name in self.views else 0
            self.load(self.views[(at + step) % len(self.views)])

    def action_open_view(self) -> None:
        self.post_message(self.Opened(self.file, self.view_name))

    @on(Tabs.TabActivated)
    def _tab(self, event: Tabs.TabActivated) -> None:
        event.stop()
        index = int(str(event.tab.id).rsplit("-", 1)[-1])
        if 0 <= index < len(self.views) and self.views[index] != self.view_name:
            self.load(self.views[index])

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        entity_id = self.row_ids.get(str(event.row_key.value))
        if entity_id:
            self.post_message(OpenNote(entity_id))


def fences(body: Markdown, languages: tuple[str, ...]) -> Iterator[tuple[MarkdownFence, str]]:
    """The drawn note's fenced code blocks in these languages, with their language."""
    for fence in body.query(MarkdownFence):
        language = fence.lexer.strip().lower()
        if language in languages and isinstance(fence.parent, Widget):
            yield fence, language


def put_in_place(fence: MarkdownFence, block: NoteBlock) -> None:
    """The block drawn where the fence stands, the fence's code hidden."""
    fence.display = False
    cast(Widget, fence.parent).mount(block, after=fence)


def place_blocks(body: Markdown, content: str, path: str, this: str) -> list[BaseBlock]:
    """Put a BaseBlock in place of each ```base fence of the drawn note (the fence hidden);
    fences are matched to the note's blocks by their YAML, in order."""
    kept: dict[str, Kept] = {}  # the block that had the keyboard, the same note drawn again
    for old in body.query(BaseBlock):
        if old.this == this and old.has_focus_within:
            kept[old.file] = old.kept()
        old.remove()
    blocks = [yaml.strip() for _, yaml in base_blocks(content)]
    placed: list[BaseBlock] = []
    used = 0
    for fence, _ in fences(body, ("base",)):
        code = fence.code.strip()
        at = next((n for n in range(used, len(blocks)) if blocks[n] == code), None)
        if at is None:
            continue  # not a block the index knows (inside a list?): left as code
        used = at + 1
        file = f"{path}#{at + 1}"
        widget = BaseBlock(file, this, at + 1, kept.get(file))
        put_in_place(fence, widget)
        placed.append(widget)
    return placed
