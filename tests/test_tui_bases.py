"""A base in the TUI, driven with Pilot against a real index and VaultRuntime: "concepts base"
finds the .base file, Enter shows its first view as a table with its views as tabs, `]`
switches view, Enter on a row opens that note."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.command import CommandList
from textual.widgets import DataTable, Markdown, Tabs
from textual.widgets._markdown import MarkdownBlock

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.base_embed import BaseEmbed
from kbtui.tui.widgets.base_layouts import BaseList
from tests.conftest import open_runtime
from tests.tui_helpers import SIZE, make_app, settle, type_text

pytestmark = pytest.mark.anyio

CONCEPTS = """\
filters: type == "concept"
views:
  - type: table
    name: All concepts
    order: [file.basename, tags]
    sort: [{property: file.basename, direction: ASC}]
  - type: list
    name: Sync
    filters: file.hasTag("sync")
    order: [file.basename]
"""
# `this` is the note that embeds the base: the files it links to
LINKED = """\
views:
  - type: table
    name: From here
    filters: this.file.hasLink(file)
    order: [file.basename]
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def base_runtime(tui_vault: Path) -> Iterator[VaultRuntime]:
    (tui_vault / "Concepts.base").write_text(CONCEPTS, encoding="utf-8")
    rt = open_runtime(tui_vault, HashEmbedder())
    yield rt
    rt.close()


def cells(table: DataTable) -> list[str]:  # type: ignore[type-arg]
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_a_base_opens_as_a_table_with_view_tabs(base_runtime: VaultRuntime) -> None:
    app = make_app(base_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "concepts base")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BaseScreen)
        table = screen.query_one("#base-table", DataTable)
        assert cells(table) == [
            "Café des idées",
            "crdt",
            "glanceable_design",
            "on_device_inference",
        ]
        tabs = screen.query_one("#base-tabs", Tabs)
        assert [str(t.label) for t in tabs.query("Tab")] == ["All concepts", "Sync"]
        assert app.focused is table  # the rows take the keys when the base opens
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and app.focused is table
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.view_name == "Sync"  # a list view: a bulleted list, not the table
        listed = screen.query_one(BaseList)
        assert listed.display and not table.display
        assert [str(o.prompt) for o in listed.options] == ["• crdt"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"


async def test_columns_sort_by_key_and_by_a_click_on_the_header(
    base_runtime: VaultRuntime,
) -> None:
    """`s` sorts by the next column (inside the view's rows), `S` reverses, a header click
    sorts by that column; the header shows the direction. Headers without a displayName are
    Obsidian's: a file property by its words in the help, a note property by its name."""
    app = make_app(base_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(BaseScreen("Concepts"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BaseScreen)
        table = screen.query_one("#base-table", DataTable)
        headers = [str(c.label) for c in table.columns.values()]
        assert headers == ["Base name", "tags"]
        view_order = cells(table)
        await pilot.press("s")
        await settle(pilot)
        assert [str(c.label) for c in table.columns.values()] == ["Base name ▲", "tags"]
        assert cells(table) == sorted(view_order, key=str.casefold)
        await pilot.press("S")
        await settle(pilot)
        assert cells(table) == sorted(view_order, key=str.casefold, reverse=True)
        assert str(next(iter(table.columns.values())).label) == "Base name ▼"
        await pilot.press("s")  # the next column: tags, empty ones last
        await settle(pilot)
        tags = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        filled = [t for t in tags if t]
        assert filled == sorted(filled, key=str.casefold) and tags[: len(filled)] == filled
        await pilot.press("s")  # past the last column: the view's own order again
        await settle(pilot)
        assert cells(table) == view_order
        assert screen.sort_by is None
        await pilot.click("#base-table", offset=(3, 1))  # the first header
        await settle(pilot)
        assert screen.sort_by == ("file.basename", False)
        await pilot.click("#base-table", offset=(3, 1))
        await settle(pilot)
        assert screen.sort_by == ("file.basename", True)
        assert cells(table) == sorted(view_order, key=str.casefold, reverse=True)


async def test_an_embedded_base_view_in_a_note_opens_that_view(tui_vault: Path) -> None:
    """`![[Concepts.base#Sync]]` in a note is a link; following it opens the base on Sync.
    An embedded base's `this` is the note embedding it, as in Obsidian."""
    (tui_vault / "Concepts.base").write_text(CONCEPTS, encoding="utf-8")
    (tui_vault / "Linked.base").write_text(LINKED, encoding="utf-8")
    (tui_vault / "Reading list.md").write_text(
        "# Reading list\n\nThe sync concepts:\n\n![[Concepts.base#Sync]]\n\n"
        "Read [[crdt]] first. ![[Linked.base#From here]]\n",
        encoding="utf-8",
    )
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            found = app.tool("kg_find_entity", {"name": "Reading list", "exact": True})
            app.post_message(OpenNote(found["entities"][0]["id"]))
            await settle(pilot)
            note = app.screen
            assert isinstance(note, NoteScreen)
            body = note.query_one("#note-body", Markdown)
            assert "(<wikilink:Concepts.base#Sync>)" in body.source
            body.post_message(Markdown.LinkClicked(body, "wikilink:Concepts.base#Sync"))
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, BaseScreen) and screen.view_name == "Sync"
            assert [str(o.prompt) for o in screen.query_one(BaseList).options] == ["• crdt"]
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is note
            body.post_message(Markdown.LinkClicked(body, "wikilink:Linked.base#From here"))
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, BaseScreen) and screen.view_name == "From here"
            # what Reading list links to, its two embeds included (as Obsidian's resolved
            # links count them)
            assert cells(screen.query_one("#base-table", DataTable)) == [
                "Concepts",
                "Linked",
                "crdt",
            ]
    finally:
        runtime.close()


async def test_the_palette_opens_a_base(base_runtime: VaultRuntime) -> None:
    app = make_app(base_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, "open base concepts")
        await settle(pilot)  # the palette's search worker is done: no race with enter
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BaseScreen) and app.screen.base == "Concepts.base"
        assert cells(app.screen.query_one("#base-table", DataTable))[:2] == [
            "Café des idées",
            "crdt",
        ]


async def test_the_palette_names_the_view_a_base_opens_on(tui_vault: Path) -> None:
    """A base whose first view is cards is not announced as a table."""
    (tui_vault / "Gallery.base").write_text(
        "views:\n  - type: cards\n    name: Covers\n  - type: table\n    name: All\n",
        encoding="utf-8",
    )
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+p")
            await type_text(pilot, "open base gallery")
            await settle(pilot)
            hits = app.screen.query_one(CommandList)
            shown = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
            gallery = [line for line in shown if "Gallery.base" in line]
            assert len(gallery) == 1 and "Covers (cards)" in gallery[0], shown
            assert "table" not in gallery[0]
    finally:
        runtime.close()


async def test_a_note_opened_after_one_with_embedded_bases_shows_none(tui_vault: Path) -> None:
    """kepano's "Kevin Kelly" embeds three bases, each under its own heading; every note
    opened after it showed those tables at the top of its body until a restart (the embeds
    were mounted in the body and a new body's blocks went after them)."""
    (tui_vault / "Concepts.base").write_text(CONCEPTS, encoding="utf-8")
    (tui_vault / "Reading list.md").write_text(
        "## Concepts\n\n![[Concepts.base#Sync]]\n\n# All\n\n![[Concepts.base]]\n",
        encoding="utf-8",
    )
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            found = app.tool("kg_find_entity", {"name": "Reading list", "exact": True})
            app.post_message(OpenNote(found["entities"][0]["id"]))
            await settle(pilot)
            note = app.screen
            assert isinstance(note, NoteScreen)
            body = note.query_one("#note-body", Markdown)
            assert len(body.query(BaseEmbed)) == 2
            app.post_message(OpenNote("person:andrei_clodius"))
            await settle(pilot)
            assert note.entity_id == "person:andrei_clodius"
            assert list(body.query(BaseEmbed)) == []
            first = next(iter(body.children))
            assert isinstance(first, MarkdownBlock) and "Andrei" in (first.source or "")
            await pilot.press("escape")  # back to the note that embeds them: drawn again
            await settle(pilot)
            assert len(body.query(BaseEmbed)) == 2
    finally:
        runtime.close()
