"""The TUI's main flows driven with Pilot, against real DuckDB files and a real VaultRuntime:
search → open → follow a link → back (real model), the path finder, merging duplicates with
and without confirmation, the status bar, editing a note, the palette, a locked index."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from textual.widgets import Markdown

from kbtui.config import Settings
from kbtui.indexing.watcher import ChangeBatch
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import StoreError
from kbtui.tui import VaultSession
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote, ShowGraph, StatusUpdated
from kbtui.tui.screens import search as search_screen
from kbtui.tui.screens.graph import GraphScreen
from kbtui.tui.screens.modals import ConfirmMerge, ErrorScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.widgets.status import StatusBar
from tests.tui_helpers import SIZE, make_app, settle, type_text, vault_digest

pytestmark = pytest.mark.anyio  # async tests run on anyio's pytest plugin (asyncio backend)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def option_ids(widget: EntityList) -> list[str]:
    return [
        str(widget.get_option_at_index(i).id)
        for i in range(widget.option_count)
        if widget.get_option_at_index(i).id
    ]


async def test_search_open_follow_back(real_runtime: VaultRuntime) -> None:
    """With the real model: a question finds the person, Enter opens the note, a link is
    followed and escape walks back through the history to the results."""
    app = make_app(real_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "who led the mobile team on the watch")
        await settle(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        assert search.last_query == "who led the mobile team on the watch"
        results = option_ids(search.query_one("#results", EntityList))
        assert results[0] == "person:andrei_clodius"

        await pilot.press("enter")
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        assert note.entity_id == "person:andrei_clodius"
        assert "Pairing over" in note.query_one("#note-body", Markdown).source
        outgoing = option_ids(note.query_one("#note-outgoing", EntityList))
        assert "organization:vector_studio" in outgoing
        backlinks = option_ids(note.query_one("#note-backlinks", EntityList))
        assert "project:tidepool_app" in backlinks

        await pilot.press("l")  # focus the outgoing links; the first is highlighted
        first = outgoing[0]
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is note and note.entity_id == first
        assert note.history == ["person:andrei_clodius"]

        await pilot.press("escape")
        await settle(pilot)
        assert note.entity_id == "person:andrei_clodius" and note.history == []
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is search


async def test_enter_typed_before_the_results_opens_the_top_result_of_that_query(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast typist presses Enter before the debounce ran: the note opened is the top hit
    of what they typed, not the first row of the list that was on screen (the title list)."""
    monkeypatch.setattr(search_screen, "DEBOUNCE_SECONDS", 30.0)  # Enter surely comes first
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        first_title = option_ids(search.query_one("#results", EntityList))[0]
        await type_text(pilot, "zephyr firmware")
        await pilot.press("enter")  # no pause: the debounce has not fired
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        assert search.last_query == "zephyr firmware"
        top = option_ids(search.query_one("#results", EntityList))[0]
        assert note.entity_id == top != first_title


def test_a_status_answer_after_the_screens_are_gone_is_dropped(runtime: VaultRuntime) -> None:
    """Status polls run in a worker; one answered while the app exits found no screen and
    raised ScreenStackError out of `run_test` (seen once in the full suite)."""
    app = make_app(runtime)  # never run: its screen stack is empty, as when exiting
    app._status_updated(StatusUpdated(runtime.status()))
    assert app.last_status is not None and app.last_status["stats"]["notes"] > 50


async def test_filters_narrow_the_search(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "watch")
        await settle(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        await pilot.press("ctrl+t")  # first type: the most common one (person)
        await settle(pilot)
        assert search.filters() == {"type": "person"}
        ids = option_ids(search.query_one("#results", EntityList))
        assert ids and all(i.startswith("person:") for i in ids)


async def test_find_path_by_names(runtime: VaultRuntime) -> None:
    """Names and aliases are resolved to entities; the path is the query layer's."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(ShowGraph(None, "path"))
        await settle(pilot)
        await type_text(pilot, "Andrei")  # an alias
        await pilot.press("enter")
        await type_text(pilot, "Harbor Fab")  # part of a name
        await pilot.press("enter")
        await settle(pilot)
        shown = option_ids(app.screen.query_one("#path-result", EntityList))
        assert shown[0] == "person:andrei_clodius"
        assert shown[-1] == "organization:harbor_fabrication"
        expected = runtime.call("kg_find_path", {"fromEntityId": shown[0], "toEntityId": shown[-1]})
        assert len(shown) == len(expected["path"]["entityIds"])  # a shortest path
        await pilot.press("tab", "o")  # into the result list, open the highlighted entity
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.entity_id == "person:andrei_clodius"


async def test_merge_needs_confirmation(runtime: VaultRuntime, tui_vault: Path) -> None:
    """Cancel leaves every vault file as it was; keeping React merges ReactJS into it."""
    before = vault_digest(tui_vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(ShowGraph(None, "duplicates"))
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmMerge)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        assert vault_digest(tui_vault) == before
        assert runtime.call("kg_get_entity", {"entityId": "technology:reactjs"})["ok"]

        await pilot.press("m")
        await settle(pilot)
        await pilot.press("enter")  # Cancel has the focus: Enter is safe
        await settle(pilot)
        assert vault_digest(tui_vault) == before

        await pilot.press("m")
        await settle(pilot)
        await pilot.press("1")  # keep the first: React
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        gone = runtime.call("kg_get_entity", {"entityId": "technology:reactjs"})
        assert gone["error_type"] == "NotFoundError"
        kept = runtime.call("kg_get_entity", {"entityId": "technology:react"})["entity"]
        assert "ReactJS" in kept["aliases"]
        assert not (tui_vault / "tech" / "reactjs.md").exists()
        pairs = app.screen.query_one("#pane-duplicates").pairs  # type: ignore[attr-defined]
        assert all(
            "technology:reactjs" not in (p["entity1"]["id"], p["entity2"]["id"]) for p in pairs
        )


async def test_status_bar_shows_counts(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one(StatusBar).render())
        assert "indexer idle" in text
        assert "64 notes" in text
        assert "123/123 chunks embedded" in text
        assert "1 skipped" in text


async def test_edit_reindexes_and_refreshes(
    runtime: VaultRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`e` runs $EDITOR on the note's file; the view shows the edit as soon as it returns,
    and the history has it as the TUI's."""
    editor = tmp_path / "editor.py"
    editor.write_text(
        textwrap.dedent("""
            import sys
            with open(sys.argv[1], "a", encoding="utf-8") as f:
                f.write("\\n\\nAdded in the editor: quokkas everywhere.\\n")
        """)
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        assert "quokkas everywhere" in note.query_one("#note-body", Markdown).source
        status = str(note.query_one(StatusBar).render())
        assert "last change: changed concepts/crdt.md" in status
    found = runtime.call("kb_search", {"query": "quokkas", "mode": "keyword"})
    assert [r["id"] for r in found["results"]] == ["concept:crdt"]
    edited, before = runtime.kb.history.versions("concepts/crdt.md")[:2]  # the write path's
    assert (edited.source, edited.operation) == ("tui", "edited in $EDITOR")
    assert edited.added == 3 and before.hash != edited.hash  # two blank lines and the text


async def test_palette_opens_a_note(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, "tomas lind")
        await settle(pilot)  # the palette's search worker is done: no race with enter
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.entity_id == "person:tomas_lindqvist"


async def test_locked_index_is_shown_not_raised(tui_vault: Path) -> None:
    """Another process holds the index: the app opens on an error screen saying so."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from kbtui.store import Store; from pathlib import Path; "
            "s = Store(Path(sys.argv[1])); print('ready', flush=True); time.sleep(60)",
            str(Settings.for_vault(tui_vault).db_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        session = VaultSession(Settings.for_vault(tui_vault), wait=0.5)
        with pytest.raises(StoreError):
            session.open()
        app = KbApp(opener=session.open, vault_name="vault")
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.monotonic() + 20
            while not isinstance(app.screen, ErrorScreen) and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert isinstance(app.screen, ErrorScreen)
            assert "does not share it" in app.screen.message
        session.close()
    finally:
        holder.kill()
        holder.wait()


async def test_wikilinks_in_the_body_are_followed(runtime: VaultRuntime) -> None:
    """A [[link]] in the rendered note resolves like Obsidian's (by name, alias, file name)."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        body = note.query_one("#note-body", Markdown)
        assert "[Maya](<wikilink:maya_okafor>)" in body.source
        body.post_message(Markdown.LinkClicked(body, "wikilink:maya_okafor"))
        await settle(pilot)
        assert note.entity_id == "person:maya_okafor"
        assert note.history == ["person:andrei_clodius"]


async def test_a_change_indexed_in_the_background_refreshes_the_view(
    runtime: VaultRuntime, tui_vault: Path
) -> None:
    """What the watcher hands the runtime's indexer shows up in the open note and the status
    bar once the app polls the status."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        note_file = tui_vault / "concepts" / "crdt.md"
        note_file.write_text(note_file.read_text() + "\nWritten elsewhere: axolotls.\n")
        runtime.worker.submit(ChangeBatch(paths=("concepts/crdt.md",)))
        assert runtime.worker.wait_idle(30)
        app.poll_status()
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        assert "axolotls" in note.query_one("#note-body", Markdown).source
        assert "last change: 1 changed" in str(note.query_one(StatusBar).render())
