"""List, cards and map views in the TUI, driven with Pilot against a real index: a list view is
a bulleted list (each note, then its other properties), a cards view a grid of cards (cover
named, title, properties) walked with the arrows, a map view a table with coordinates; Enter
opens the note, groups stay; the help's Layouts pages are the reference."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Markdown, Static

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.base_embed import EMBED_ROWS, BaseEmbed, embed_body
from kbtui.tui.widgets.base_layouts import BaseCards, BaseList, Card, image_label
from tests.conftest import open_runtime
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

LAYOUTS = """\
filters: type == "concept"
views:
  - type: list
    name: List
    order: [file.basename, tags]
  - type: cards
    name: Cards
    order: [file.basename, tags]
    image: note.cover
  - type: cards
    name: By type
    filters: file.hasTag("sync") || file.hasTag("ml")
    groupBy: {property: type, direction: ASC}
    order: [file.basename]
  - type: list
    name: Grouped list
    groupBy: {property: cover, direction: ASC}
    order: [file.basename]
  - type: map
    name: Map
    order: [file.basename]
    coordinates: note.where
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def add_layouts(vault: Path) -> None:
    """The base, and two concepts given a cover (a wiki link with alt text, a hex colour) and
    a place (Obsidian's Maps: "lat, lng" text or a two-item list)."""
    (vault / "Layouts.base").write_text(LAYOUTS, encoding="utf-8")
    for name, extra in (
        ("crdt", 'cover: "[[crdt-diagram.png|Merge diagram]]"\nwhere: "48.85837, 2.294481"'),
        ("glanceable_design", 'cover: "#ff8800"\nwhere: ["-33.8568", "151.2153"]'),
    ):
        note = vault / "concepts" / f"{name}.md"
        text = note.read_text(encoding="utf-8")
        note.write_text(text.replace("---\n", f"---\n{extra}\n", 1), encoding="utf-8")


@pytest.fixture
def layouts_runtime(tui_vault: Path) -> Iterator[VaultRuntime]:
    add_layouts(tui_vault)
    rt = open_runtime(tui_vault, HashEmbedder())
    yield rt
    rt.close()


def plain(embed: BaseEmbed) -> str:
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(embed.body)
    return console.export_text()


def prompts(listed: BaseList) -> list[str]:
    return [str(o.prompt) for o in listed.options]


def card_text(card: Card) -> str:
    return str(card.render())


async def test_a_list_view_is_a_bulleted_list_and_enter_opens_the_note(
    layouts_runtime: VaultRuntime,
) -> None:
    app = make_app(layouts_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(BaseScreen("Layouts", "List"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BaseScreen)
        listed = screen.query_one(BaseList)
        assert listed.display and not screen.query_one(DataTable).display
        assert prompts(listed) == [
            "• Café des idées  concept, culture, français",
            "• crdt  concept, sync, data-structures",
            "• glanceable_design  concept, design, wearable",
            "• on_device_inference  concept, ml, embedded",
        ]
        assert app.focused is listed
        await pilot.press("s", "S")  # sorted by the first property, then reversed
        await settle(pilot)
        assert prompts(listed)[0].startswith("• on_device_inference")
        summary = screen.query_one("#base-summary", Static)
        assert str(summary.render()).startswith("sorted by Base name ▼")
        await pilot.press("s", "s")  # past the last property: the view's own order
        await settle(pilot)
        assert prompts(listed)[0].startswith("• Café des idées")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"


async def test_a_grouped_list_keeps_its_group_lines_out_of_the_cursor(
    layouts_runtime: VaultRuntime,
) -> None:
    app = make_app(layouts_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(BaseScreen("Layouts", "Grouped list"))
        await settle(pilot)
        listed = app.screen.query_one(BaseList)
        lines = prompts(listed)
        assert lines[0].startswith("▸ #ff8800 (1)") and "• glanceable_design" in lines
        assert lines[-3:] == ["▸ None (2)", "• Café des idées", "• on_device_inference"]
        assert not listed.options[listed.highlighted or 0].disabled
        await pilot.press("down")  # over the next group's line, onto its note
        await settle(pilot)
        assert prompts(listed)[listed.highlighted or 0] == "• crdt"


async def test_cards_are_a_grid_walked_with_the_arrows(layouts_runtime: VaultRuntime) -> None:
    """At 120 columns the four concepts sit in one row of four cards; the cover is named (its
    alt text, a colour swatch), then the title and the properties; Enter opens the note."""
    app = make_app(layouts_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(BaseScreen("Layouts", "Cards"))
        await settle(pilot)
        screen = app.screen
        cards = list(screen.query(Card))
        assert [card_text(c).split("\n")[1] for c in cards] == [
            "Café des idées", "crdt", "glanceable_design", "on_device_inference",
        ]  # fmt: skip
        assert card_text(cards[1]) == "▨ Merge diagram\ncrdt\ntags concept, sync, data-structures"
        assert card_text(cards[2]).startswith("██████ #ff8800\n")
        tops = {c.region.y for c in cards}
        assert len(tops) == 1, "one row of four cards at 120 columns"
        assert app.focused is cards[0]
        await pilot.press("right", "right")
        assert app.focused is cards[2]
        await pilot.press("left")
        assert app.focused is cards[1]
        await pilot.press("right_square_bracket", "right_square_bracket")  # grouped list
        await settle(pilot)
        assert app.focused is screen.query_one(BaseList)
        await pilot.press("right_square_bracket")  # the map: a table, which takes the keys
        await settle(pilot)
        assert app.focused is screen.query_one(DataTable)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert isinstance(app.focused, Card) and app.focused.row["path"].endswith(
            "Café des idées.md"
        )
        await pilot.press("right")
        cards = list(screen.query(Card))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"


async def test_cards_wrap_to_the_width_and_down_crosses_groups(
    layouts_runtime: VaultRuntime,
) -> None:
    app = make_app(layouts_runtime)
    async with app.run_test(size=(62, 30)) as pilot:  # two cards a row
        await settle(pilot)
        app.push_screen(BaseScreen("Layouts", "Cards"))
        await settle(pilot)
        cards = list(app.screen.query(Card))
        assert app.screen.query_one(BaseCards).columns == 2
        assert cards[0].region.y == cards[1].region.y < cards[2].region.y
        await pilot.press("down")
        assert app.focused is cards[2]
        await pilot.press("right", "up")
        assert app.focused is cards[1]
        app.screen.action_view(1)  # "By type": grouped by type, one group per value
        await settle(pilot)
        headers = [str(s.render()) for s in app.screen.query(".base-group").results(Static)]
        assert headers == ["▸ concept (2)"]
        assert [str(c.render()) for c in app.screen.query(Card)] == ["crdt", "on_device_inference"]


async def test_a_map_view_lists_coordinates(layouts_runtime: VaultRuntime) -> None:
    app = make_app(layouts_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(BaseScreen("Layouts", "Map"))
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["Base name", "Coordinates"]
        got = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[1]) for i in range(4)}
        assert got["crdt"] == "48.85837, 2.294481"
        assert got["glanceable_design"] == "-33.8568, 151.2153"
        assert got["on_device_inference"] == ""


def test_an_embed_that_cannot_run_says_why() -> None:
    """A missing base or view: the tool's error where the rows would be, never a traceback."""
    console = Console(width=80, file=io.StringIO(), record=True)
    console.print(embed_body({"ok": False, "message": "no base 'Nope' in the vault"}))
    assert console.export_text().strip() == "✗ no base 'Nope' in the vault"


def test_a_cover_is_named_where_it_cannot_be_drawn() -> None:
    assert str(image_label("[[Attachments/photo.jpg]]")) == "▨ photo.jpg"
    assert str(image_label("![a sunset](https://example.org/img/sun.png?w=2)")) == "▨ a sunset"
    assert str(image_label("https://example.org/img/sun.png")) == "▨ sun.png"
    assert str(image_label("Attachments/scan.png")) == "▨ scan.png"
    assert str(image_label("#000")) == "██████ #000"
    assert image_label(None) is None and image_label("") is None


EMBEDDER = """\
views:
  - type: table
    name: People
    filters: type == "person"
    order: [file.basename]
    sort: [{property: file.basename, direction: ASC}]
  - type: list
    name: From here
    filters: this.file.hasLink(file)
    order: [file.basename]
"""
TEAM = (
    "# Team\n\nEveryone:\n\n![[People.base#People]]\n\nWho I link: [[crdt]], "
    "[[maya_okafor]]. ![[People.base#From here]]\n\nThe end.\n"
)


async def test_an_embedded_base_is_drawn_under_its_line(tui_vault: Path) -> None:
    """`![[People.base#People]]` draws the view's first rows inside the note, under the
    paragraph holding it, with how many more there are; `this` is the embedding note (its
    links); the link stays; Enter on the drawn view opens the whole view."""
    (tui_vault / "People.base").write_text(EMBEDDER, encoding="utf-8")
    (tui_vault / "Team.md").write_text(TEAM, encoding="utf-8")
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        people = runtime.call("base_query", {"file": "People.base", "view": "People"})
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            found = app.tool("kg_find_entity", {"name": "Team", "exact": True})
            app.post_message(OpenNote(found["entities"][0]["id"]))
            await settle(pilot)
            note = app.screen
            assert isinstance(note, NoteScreen)
            embeds = list(note.query(BaseEmbed))
            assert [(e.base, e.view) for e in embeds] == [
                ("People.base", "People"), ("People.base", "From here"),
            ]  # fmt: skip
            first = plain(embeds[0])
            shown = [r["values"]["file.basename"] for r in people["rows"][:EMBED_ROWS]]
            assert all(name in first for name in shown)
            hidden = people["rows"][EMBED_ROWS]["values"]["file.basename"]
            assert hidden not in first
            assert f"{people['total'] - EMBED_ROWS} more — Enter to open" in first
            second = plain(embeds[1])
            bullets = {line.strip() for line in second.splitlines() if "•" in line}
            assert bullets == {"• People", "• crdt", "• maya_okafor"}  # Team's links, embed too
            body = note.query_one("#note-body", Markdown)
            blocks = list(body.children)
            href = "wikilink:People.base#People"
            links = [b for b in blocks if href in str(getattr(b, "source", ""))]
            assert blocks.index(embeds[0]) == blocks.index(links[0]) + 1, "under its line"
            assert "(<wikilink:People.base#People>)" in body.source  # the link stays
            embeds[1].focus()
            await pilot.press("enter")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, BaseScreen) and screen.view_name == "From here"
            assert screen.this == note.entity_id
    finally:
        runtime.close()
