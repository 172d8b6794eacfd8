"""A base view's rows drawn as Obsidian lays them out (help: Bases > Layouts): a list view as a
list (bullets, numbers or no markers; properties after the note or indented under it), a
cards view as a grid of cards as wide as the view's card size: the cover image named where a
terminal cannot draw it (a vault file's name, which `o` opens in the system's viewer), then the
title and the properties.
Groups are header lines in both. The rows come from the base_query answer the screen holds."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.events import Resize
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from kbtui.tui.messages import OpenNote

Groups = list[tuple[dict[str, Any] | None, list[int]]]  # (group or None, row indices in order)
Sort = tuple[str, bool] | None  # (column id, descending); None: the view's own order
CARD_WIDTH = 28  # columns a card takes, its border and gap included
CARDS_SHOWN = 200  # a widget per card: past this the screen says how many more there are
HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")
MD_IMAGE = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")
WIKI = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def row_title(row: dict[str, Any], columns: list[dict[str, str]]) -> str:
    """The primary item: the view's first property (Obsidian: the one at the top of the
    Properties menu), else the file's name."""
    first = cell(row["values"].get(columns[0]["id"])) if columns else ""
    return first or row["path"].rsplit("/", 1)[-1].removesuffix(".md")


def image_label(value: Any) -> Text | None:
    """What stands for a card's cover where no image can be drawn: a colour swatch for a hex
    code, the alt text of a link that has one, else the file's name (a URL's last part)."""
    text = cell(value).strip()
    if not text:
        return None
    if HEX.fullmatch(text):
        return Text.assemble(("██████", text), f" {text}")
    alt = ""
    if (md := MD_IMAGE.search(text)) is not None:
        alt, text = md.group(1), md.group(2)
    elif (wiki := WIKI.search(text)) is not None:
        alt, text = wiki.group(2) or "", wiki.group(1)
    name = text.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or text
    return Text(f"▨ {alt or name}", style="italic")


def group_label(group: dict[str, Any]) -> Text:
    """The group's value and rows count; rows without a value: "None", as Obsidian names them."""
    return Text(f"▸ {group['label'] or 'None'} ({len(group['rows'])})", style="bold")


class BaseList(OptionList):
    """A list view: each note with its marker (bullets, numbers restarting per group, or
    none), its primary property, then the others after it joined by the view's separator (a
    comma by default) or, with indentProperties, each on a line of its own under it; Enter
    opens the note."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[dict[str, Any]] = []

    def show(self, answer: dict[str, Any], groups: Groups) -> None:
        columns, rows = answer["columns"], answer["rows"]
        settings = answer.get("layout") or {}
        options: list[Option] = []
        for group, indices in groups:
            if group is not None:
                options.append(Option(group_label(group), disabled=True))
            for n, i in enumerate(indices, 1):
                options.append(Option(list_item(rows[i], columns, n, settings), id=f"{i}"))
        highlighted = self.highlighted
        self.clear_options()
        self.add_options(options)
        first = next((n for n, o in enumerate(options) if not o.disabled), None)
        keep = highlighted if highlighted is not None and highlighted < len(options) else None
        self.highlighted = keep if keep is not None and not options[keep].disabled else first
        self.rows = rows

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            entity_id = self.rows[int(event.option.id)].get("id")
            if entity_id:
                self.post_message(OpenNote(entity_id))


def list_item(
    row: dict[str, Any], columns: list[dict[str, str]], number: int, settings: dict[str, Any]
) -> Text:
    """One item of a list view as the view's settings (kbtui.bases.views.layout) say."""
    marker = {"number": f"{number}. ", "none": ""}.get(settings.get("markers", ""), "• ")
    line = Text.assemble(marker, (row_title(row, columns), "bold"))
    rest = [v for c in columns[1:] if (v := cell(row["values"].get(c["id"])))]
    if rest and settings.get("indentProperties"):
        pad = " " * max(2, len(marker))
        for value in rest:
            line.append("\n" + pad + value, style="dim")
    elif rest:
        line.append("  " + str(settings.get("separator", ", ")).join(rest), style="dim")
    return line


def fill_table(
    table: DataTable[Any], answer: dict[str, Any], groups: Groups, sort_by: Sort = None
) -> None:
    """A table view; a map view too, its rows' coordinates (latitude, longitude) last."""
    table.clear(columns=True)
    columns = answer["columns"]
    for column in columns:
        arrow = ""
        if sort_by and sort_by[0] == column["id"]:
            arrow = " ▼" if sort_by[1] else " ▲"
        table.add_column(column["name"] + arrow, key=column["id"])
    is_map = answer.get("type") == "map"
    if is_map:
        table.add_column("Coordinates", key="coordinates")
    rows = answer["rows"]
    width = len(columns) + is_map
    for group, indices in groups:
        if group is not None:
            label = group_label(group)
            table.add_row(label, *[""] * (width - 1), key=f"group:{group['label']}")
        for i in indices:
            row = rows[i]
            values = [cell(row["values"].get(c["id"])) for c in columns]
            if is_map:
                values.append(", ".join(str(x) for x in row.get("coordinates") or []))
            table.add_row(*values, key=row["path"])


def card_width(settings: dict[str, Any]) -> int:
    """Columns a card takes: the view's cardSize (pixels, Obsidian's default 200) scaled."""
    size = settings.get("cardSize")
    return CARD_WIDTH if not size else max(16, min(64, round(size * CARD_WIDTH / 200)))


class Card(Static, can_focus=True):
    """One note's card; the arrows move between cards as they stand in the grid."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(0, -1)", "Card above", show=False),
        Binding("down", "move(0, 1)", "Card below", show=False),
        Binding("left", "move(-1, 0)", "Card left", show=False),
        Binding("right", "move(1, 0)", "Card right", show=False),
        Binding("enter", "open", "Open note", id="base.card_open"),
        Binding("o", "open_cover", "Open image", id="base.card_cover"),
    ]

    def __init__(self, row: dict[str, Any], body: Text, place: tuple[int, int]) -> None:
        super().__init__(body, classes="base-card")
        self.row = row
        self.place = place  # (group number, index in the group)

    def action_move(self, dx: int, dy: int) -> None:
        for layout in self.ancestors:
            if isinstance(layout, BaseCards):
                layout.move(self, dx, dy)
                return

    def action_open(self) -> None:
        if self.row.get("id"):
            self.post_message(OpenNote(self.row["id"]))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`o` is offered (in the footer too) only on a card whose cover can be opened."""
        if action == "open_cover":
            image = self.row.get("image")
            web = isinstance(image, str) and image.startswith(("http://", "https://"))
            return bool(self.row.get("imagePath")) or web
        return True

    def action_open_cover(self) -> None:
        """The cover in the system's viewer: a vault file, or a web address."""
        image = self.row.get("image")
        if self.row.get("imagePath"):
            self.app.open_file(self.row["imagePath"])  # type: ignore[attr-defined]
        elif isinstance(image, str) and image.startswith(("http://", "https://")):
            self.app.open_url(image)
        else:
            self.notify("This card's cover is no file to open.", severity="warning")

    def on_click(self) -> None:
        self.focus()


class BaseCards(VerticalScroll):
    """A cards view: per group a header and a grid of cards as wide as the screen allows."""

    DEFAULT_CSS = """
    BaseCards { height: 1fr; }
    BaseCards > Grid { height: auto; grid-gutter: 0 1; grid-rows: auto; }
    BaseCards .base-card {
        height: auto; border: round $panel-lighten-2; padding: 0 1; width: 100%;
    }
    BaseCards .base-card:focus { border: round $accent; background: $boost; }
    BaseCards .base-group { margin: 1 0 0 0; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[list[Card]] = []
        self.card_width = CARD_WIDTH

    @property
    def columns(self) -> int:
        return max(1, (self.size.width - 2) // self.card_width)

    def show(self, answer: dict[str, Any], groups: Groups) -> None:
        columns, rows = answer["columns"], answer["rows"]
        self.card_width = card_width(answer.get("layout") or {})
        at = self.focused_place()
        self.remove_children()
        self.cards = []
        shown = 0
        for g, (group, indices) in enumerate(groups):
            if group is not None:
                self.mount(Static(group_label(group), classes="base-group"))
            cards: list[Card] = []
            for i in indices[: max(0, CARDS_SHOWN - shown)]:
                cards.append(Card(rows[i], card_body(rows[i], columns), (g, len(cards))))
            shown += len(cards)
            grid = Grid(*cards)
            grid.styles.grid_size_columns = self.columns
            self.mount(grid)
            self.cards.append(cards)
        if len(rows) > shown:
            left = len(rows) - shown
            self.mount(Static(Text(f"{left} more cards not drawn", style="dim")))
        if at is not None:  # a refresh after a save: the same place, not the top
            self.focus_card(at)

    def focused_place(self) -> tuple[int, int] | None:
        focused = self.screen.focused
        return (
            focused.place if isinstance(focused, Card) and focused.parent in self.children else None
        )

    def focus_card(self, place: tuple[int, int] = (0, 0)) -> None:
        """Focus the card at (group, index), the nearest one there is, once it is mounted."""
        g, i = place
        cards = self.cards[g] if g < len(self.cards) and self.cards[g] else None
        if cards is None:
            cards = next((c for c in self.cards if c), None)
            i = 0
        if cards:
            self.call_after_refresh(cards[min(i, len(cards) - 1)].focus)

    def on_resize(self, event: Resize) -> None:
        for grid in self.query(Grid):
            grid.styles.grid_size_columns = self.columns

    def move(self, card: Card, dx: int, dy: int) -> None:
        """Left/right: the card before/after (on to the next row); up/down: the same column a
        row away, across group headers."""
        g, i = card.place
        cols = self.columns
        if dx:
            flat = [c for group_cards in self.cards for c in group_cards]
            at = flat.index(card) + dx
            target = flat[at] if 0 <= at < len(flat) else None
        else:
            target = None
            j, here = i + dy * cols, self.cards[g]
            if 0 <= j < len(here):
                target = here[j]
            elif dy > 0 and (i // cols + 1) * cols < len(here):
                target = here[-1]  # a shorter last row below: its last card
            else:
                h = g + dy
                while 0 <= h < len(self.cards) and not self.cards[h]:
                    h += dy
                if 0 <= h < len(self.cards):
                    other = self.cards[h]
                    col = i % cols
                    row_start = 0 if dy > 0 else (len(other) - 1) // cols * cols
                    target = other[min(row_start + col, len(other) - 1)]
        if target is not None:
            target.focus()
            target.scroll_visible()


def card_body(row: dict[str, Any], columns: list[dict[str, str]]) -> Text:
    """The cover (named), the title, then each other property as "name value"."""
    lines: list[Text] = []
    if "imagePath" in row:  # a vault file: its name, underlined; `o` opens it
        name = str(row["imagePath"]).rsplit("/", 1)[-1]
        lines.append(Text.assemble(("▨ ", "italic"), (name, "underline")))
    elif "image" in row:
        lines.append(image_label(row.get("image")) or Text("▨ (no image)", style="dim italic"))
    lines.append(Text(row_title(row, columns), style="bold"))
    for column in columns[1:]:
        value = cell(row["values"].get(column["id"]))
        if value:
            lines.append(Text.assemble((column["name"], "dim"), " ", value))
    return Text("\n").join(lines)
