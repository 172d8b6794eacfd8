"""A base embedded in a note (`![[X.base]]`, `![[X.base#View]]`) drawn inside the note view,
under the paragraph that embeds it, as Obsidian draws an embedded base: the view's first rows
as a compact table (a list view as a list), `this` being the note; how many more there are,
and Enter (or a click) opens the whole view. The rows come from base_query like every view."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownBlock

from kbtui.tui.widgets.base_layouts import cell, row_title
from kbtui.tui.widgets.note_parts import WIKILINK_SCHEME

EMBED_ROWS = 5  # rows drawn inside the note; the rest are one Enter away
# code first, so an embed written inside code is left alone (as Obsidian does)
_EMBED = re.compile(
    r"(```.*?```|~~~.*?~~~|`[^`\n]*`)"
    r"|!\[\[([^\[\]\n|#]+\.base)(?:#([^\[\]\n|]*))?(?:\|[^\]\n]*)?\]\]",
    re.DOTALL | re.IGNORECASE,
)

Embed = tuple[str, str | None]  # (base file as written, view or None: the first)


def base_embeds(markdown: str) -> list[Embed]:
    """The base embeds of a note's text, in order, once each."""
    found: list[Embed] = []
    for match in _EMBED.finditer(markdown):
        if match.group(2):
            embed = (match.group(2).strip(), (match.group(3) or "").strip() or None)
            if embed not in found:
                found.append(embed)
    return found


class BaseEmbed(Static, can_focus=True):
    """One embedded view; Enter opens it as a full base screen (`Opened`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open base view", id="note.open_embed")
    ]
    DEFAULT_CSS = """
    BaseEmbed { border: round $panel-lighten-2; padding: 0 1; margin: 0 0 1 0; height: auto; }
    BaseEmbed:focus { border: round $accent; }
    """

    class Opened(Message):
        def __init__(self, base: str, view: str | None) -> None:
            super().__init__()
            self.base, self.view = base, view

    def __init__(self, embed: Embed, answer: dict[str, Any]) -> None:
        self.body = embed_body(answer)  # kept: what it shows, for a look without a screen
        super().__init__(self.body)
        self.base, self.view = embed
        self.after_block: Widget | None = None  # the block of the note holding its link
        self.border_title = f"{embed[0]} › {embed[1]}" if embed[1] else embed[0]

    def action_open(self) -> None:
        self.post_message(self.Opened(self.base, self.view))

    def on_click(self) -> None:
        self.action_open()


def embed_body(answer: dict[str, Any]) -> RenderableType:
    if not answer.get("ok"):
        return Text(f"✗ {answer.get('message')}", style="red")
    columns, rows, total = answer["columns"], answer["rows"], answer["total"]
    head = Text(f"{answer['type']} view · {total} row{'' if total == 1 else 's'}", style="dim")
    if not rows:
        return Group(head, Text("no rows", style="dim italic"))
    if answer["type"] == "list":
        shown: RenderableType = Text("\n").join(
            Text.assemble("• ", (row_title(r, columns), "bold"),
                          ("  " + ", ".join(v for c in columns[1:]
                                            if (v := cell(r["values"].get(c["id"])))), "dim"))
            for r in rows
        )  # fmt: skip
    else:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False)
        for column in columns:
            table.add_column(column["name"], overflow="ellipsis", no_wrap=True, max_width=40)
        for r in rows:
            table.add_row(*(cell(r["values"].get(c["id"])) for c in columns))
        shown = table
    more = total - len(rows)
    foot = f"{more} more — Enter to open" if more > 0 else "Enter to open the view"
    return Group(head, shown, Text(foot, style="dim italic"))


def clear_embeds(body: Markdown) -> int | None:
    """Take the embeds out of the body: they are not markdown blocks, so a new text
    (`Markdown.update`) leaves them, above the next note's blocks. Returns the number of the
    one that had the keyboard, to give it back once the same note's embeds are drawn again."""
    focused = None
    for n, old in enumerate(body.query(BaseEmbed)):
        if old.has_focus:
            focused = n
        old.remove()
    return focused


def place_embeds(body: Markdown, drawn: list[tuple[Embed, dict[str, Any]]]) -> list[BaseEmbed]:
    """Mount each embed's widget right after the innermost block of the body holding its
    link (the body keeps the link itself); one past the end when no block holds it."""
    clear_embeds(body)
    placed: list[BaseEmbed] = []
    blocks = [b for b in body.query(MarkdownBlock) if not isinstance(b, BaseEmbed)]
    for embed, answer in drawn:
        wanted = WIKILINK_SCHEME + embed[0] + (f"#{embed[1]}" if embed[1] else "")
        holding = [b for b in blocks if b.source and f"<{wanted}>" in b.source]
        block = min(holding, key=lambda b: len(b.source or ""), default=None)
        widget = BaseEmbed(embed, answer)
        if block is not None and isinstance(block.parent, Widget):
            after = next((w for w in reversed(placed) if w.after_block is block), block)
            widget.after_block = block
            block.parent.mount(widget, after=after)
        else:
            body.mount(widget)
        placed.append(widget)
    return placed
