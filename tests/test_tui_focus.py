"""Issue 28 item 16, driven by keys: Escape in a note's side panel goes back to the note (the
next keys are the note's, not the search box's); digits switch the graph's tabs from the
Path tab's empty fields and are typed into a field with text; the mentions panel fills while
the card is still loading; a header too long for the line ends in "…"."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.widgets import Input, Static, TabbedContent

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote, ShowGraph
from kbtui.tui.screens.graph import GraphScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList
from tests.tui_helpers import SIZE, make_app, settle, type_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_escape_in_a_panel_returns_to_the_note(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        search = app.screen
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        await pilot.press("u")
        assert app.focused is note.query_one("#note-mentions", EntityList)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is note and app.focused is note.query_one("#note-body-scroll")
        await pilot.press("b")  # the note's key, not a letter in the search box
        assert app.focused is note.query_one("#note-backlinks", EntityList)
        await pilot.press("escape", "escape")  # the panel, then the note
        await settle(pilot)
        assert app.screen is search and isinstance(search, SearchScreen)
        assert search.query_one(Input).value == ""


async def test_digits_switch_tabs_from_the_path_tab(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(ShowGraph(None, "path"))
        await settle(pilot)
        graph = app.screen
        assert isinstance(graph, GraphScreen)
        tabs = graph.query_one(TabbedContent)
        assert tabs.active == "path" and isinstance(app.focused, Input)
        await pilot.press("3")
        await settle(pilot)
        assert tabs.active == "entities"
        await pilot.press("2")
        await settle(pilot)
        assert tabs.active == "path"
        field = app.focused
        assert isinstance(field, Input) and field.value == ""
        await type_text(pilot, "Q3 2026")  # a digit inside a name is typed
        await settle(pilot)
        assert tabs.active == "path" and field.value == "Q3 2026"


async def test_mentions_do_not_wait_for_the_card(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """get_chunk held back (a cold start loading every vector): the mentions still show."""
    release = threading.Event()
    tool = runtime.call

    def slow(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        if name == "get_chunk":
            release.wait(30)
        return tool(name, args)

    monkeypatch.setattr(runtime, "call", slow)
    app = make_app(runtime)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle_until_idle_but(pilot)
            app.post_message(OpenNote("person:andrei_clodius"))
            note = None
            for _ in range(100):  # up to ~5 s, while get_chunk is still held
                await pilot.pause(0.05)
                note = app.screen
                if isinstance(note, NoteScreen) and note.mentions:
                    break
            assert isinstance(note, NoteScreen) and note.mentions, "mentions waited for the card"
            assert not release.is_set()
            release.set()
            await settle(pilot)
    finally:
        release.set()


async def settle_until_idle_but(pilot: Any) -> None:
    for _ in range(3):
        await pilot.pause()


async def test_a_long_header_ends_in_an_ellipsis(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=(60, 30)) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        title = app.screen.query_one("#note-title", Static)
        line = "".join(s.text for s in title.render_line(0)).rstrip()
        assert line.endswith("…"), line
        assert "Andrei Clodius" in line
