"""The in-app editor (issue 40, item 3) driven with Pilot on a copy of vault_example with a
real VaultRuntime: `i` opens the note's file, `[[`, `[[Note#` and `#` complete from the index,
ctrl+s saves through the write path (history says tui; a BOM+CRLF note keeps both), and a
file changed on disk under unsaved text ends in the conflict view with nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from kbtui.runtime.runtime import VaultRuntime
from kbtui.textdiff import content_hash
from kbtui.tui.edit.completion import context, in_code_block, link_ranker, text_headings
from kbtui.tui.edit.conflict import ConflictScreen, LeaveEditor
from kbtui.tui.edit.editor import CountedWrap, EditorScreen, NoteArea, copy_path
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from tests.tui_helpers import SIZE, make_app, settle, type_text

pytestmark = pytest.mark.anyio

CRDT = "concepts/crdt.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def open_editor(pilot: Pilot[None], entity_id: str) -> EditorScreen:
    pilot.app.post_message(OpenNote(entity_id))
    await settle(pilot)
    assert isinstance(pilot.app.screen, NoteScreen)
    await pilot.press("i")
    await settle(pilot)
    editor = pilot.app.screen
    assert isinstance(editor, EditorScreen) and editor.hash is not None
    return editor


def at_end(editor: EditorScreen) -> NoteArea:
    area = editor.area
    area.move_cursor(area.document.end)
    return area


# -- what is completed (no app) --------------------------------------------------------------
def test_the_text_before_the_cursor_says_what_to_complete() -> None:
    assert context("See [[andr") == context("See [[andr", False)
    found = context("See [[andr")
    assert found is not None and (found.kind, found.query, found.start) == ("link", "andr", 6)
    heading = context("x [[atlas_sync#Us")
    assert heading is not None and (heading.kind, heading.note, heading.query) == (
        "heading",
        "atlas_sync",
        "Us",
    )
    tag = context("done #sy")
    assert tag is not None and (tag.kind, tag.query) == ("tag", "sy")
    assert context("#") is None and context("# Heading") is None  # a heading, not a tag
    assert context("[[done]] and more") is None
    assert context("See [[andr", in_code=True) is None
    assert in_code_block(["```", "[[x"], 1) and not in_code_block(["```", "x", "```", "[["], 3)
    assert text_headings("# A\n```\n# not\n```\n## B ##\n") == [(1, "A"), (2, "B")]


def test_a_note_is_offered_once_by_its_name_title_or_alias_typos_too() -> None:
    ranker = link_ranker(
        [
            {"path": "people/andrei_clodius.md", "link": "andrei_clodius",
             "title": "Andrei Clodius", "aliases": ["Andrei", "Andy"]},
            {"path": "people/dana.md", "link": "dana", "title": "Dana", "aliases": []},
        ]
    )  # fmt: skip
    assert [c.insert for c in ranker.rank("andr")] == ["andrei_clodius"]
    assert [c.insert for c in ranker.rank("clodius")] == ["andrei_clodius"]  # its own name first
    assert [c.insert for c in ranker.rank("andy")] == ["andrei_clodius|Andy"]  # an alias
    assert [c.insert for c in ranker.rank("andrie")][:1] == ["andrei_clodius"]  # a typo


def test_a_conflict_copy_goes_beside_the_note() -> None:
    import datetime as dt

    now = dt.datetime(2026, 12, 7, 14, 5)
    assert copy_path("projects/Plan.md", now) == "projects/Plan (conflict 2026-12-07 1405)"
    assert copy_path("Plan.md", now) == "/Plan (conflict 2026-12-07 1405)"


# -- the editor in the app -------------------------------------------------------------------
async def test_i_opens_the_note_link_completion_and_save_through_the_write_path(
    runtime: VaultRuntime,
) -> None:
    vault = runtime.settings.vault
    before = (vault / CRDT).read_text()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_editor(pilot, "concept:crdt")
        assert editor.area.text == before and editor.hash == content_hash(before.encode())
        assert editor.area.language == "markdown" and editor.area.soft_wrap
        assert editor.area._highlights  # tree-sitter's grammar is there: headings coloured
        at_end(editor)
        await pilot.press("enter")
        await type_text(pilot, "Wombats with [[andr")
        await settle(pilot)
        assert editor.completion.shown
        assert editor.completion.choices[0].insert == "andrei_clodius"
        await pilot.press("tab")
        await type_text(pilot, " about #sy")
        await settle(pilot)
        assert [c.label for c in editor.completion.choices][:1] == ["#sync"]
        await pilot.press("enter")
        await type_text(pilot, " in [[atlas_sync#De")
        await settle(pilot)  # the note's outline, read on a worker
        assert editor.completion.choices[0].insert == "Design notes"
        await pilot.press("enter")
        assert editor.modified
        wrapped = editor.area.wrapped_document  # its height counted, as Textual sums it
        assert isinstance(wrapped, CountedWrap)
        assert wrapped.height == sum(len(o) + 1 for o in wrapped._wrap_offsets) > 0
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not editor.modified
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
    added = "Wombats with [[andrei_clodius]] about #sync in [[atlas_sync#Design notes]]"
    assert (vault / CRDT).read_text() == before + "\n" + added
    history = runtime.kb.tools.parts.history
    assert history is not None and history.versions(CRDT)[0].source == "tui"
    found = runtime.call("kb_search", {"query": "wombats", "mode": "keyword"})
    assert [r["id"] for r in found["results"]] == ["concept:crdt"]  # indexed before the answer


async def test_escape_closes_the_list_then_asks_before_dropping_unsaved_text(
    runtime: VaultRuntime,
) -> None:
    vault = runtime.settings.vault
    before = (vault / CRDT).read_bytes()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_editor(pilot, "concept:crdt")
        at_end(editor)
        await type_text(pilot, "[[ti")
        await settle(pilot)
        assert editor.completion.shown
        await pilot.press("escape")
        assert not editor.completion.shown and isinstance(app.screen, EditorScreen)
        await type_text(pilot, "de")  # the same link: the list stays closed
        await settle(pilot)
        assert not editor.completion.shown
        await pilot.press("down", "escape")  # the cursor moves; then leave: asked first
        await settle(pilot)
        assert isinstance(app.screen, LeaveEditor)
        await pilot.press("escape")  # stay
        await settle(pilot)
        assert app.screen is editor
        await pilot.press("escape", "d")  # discard
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
    assert (vault / CRDT).read_bytes() == before


async def test_a_bom_crlf_note_keeps_its_bytes_where_it_was_not_edited(
    runtime: VaultRuntime,
) -> None:
    path = runtime.settings.vault / "_broken" / "crlf_bom.md"
    before = path.read_bytes()
    assert before.startswith(b"\xef\xbb\xbf") and b"\r\n" in before
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_editor(pilot, "note:crlf_bom")
        assert "UTF-8 with BOM · CRLF" in editor.details
        at_end(editor)
        await pilot.press("enter")
        await type_text(pilot, "A line typed in kbtui.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not editor.modified
    after = path.read_bytes()
    assert after == before + b"\r\nA line typed in kbtui."  # a new line after the last one
    assert b"\n" not in after.replace(b"\r\n", b"")  # no bare LF anywhere


async def edit_then_conflict(pilot: Pilot[None], vault: Path) -> EditorScreen:
    """Unsaved text in the editor, another program's save on disk, ctrl+s: the conflict."""
    editor = await open_editor(pilot, "concept:crdt")
    at_end(editor)
    await pilot.press("enter")
    await type_text(pilot, "Mine: typed in kbtui.")
    with (vault / CRDT).open("a", encoding="utf-8") as other:
        other.write("\nTheirs: saved by another program.\n")
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConflictScreen)
    return editor


async def test_keep_mine_after_a_save_on_disk_keeps_both_texts(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await edit_then_conflict(pilot, vault)
        theirs = (vault / CRDT).read_bytes()
        await pilot.press("m")
        await settle(pilot)
        assert app.screen is editor and not editor.modified
    now = (vault / CRDT).read_text()
    assert now.endswith("Mine: typed in kbtui.") and "Theirs:" not in now
    history = runtime.kb.tools.parts.history
    assert history is not None
    kept = [history.data(v.hash) for v in history.versions(CRDT) if v.hash]
    assert theirs in kept  # theirs is in the note's history: both texts kept


async def test_mine_as_a_copy_leaves_theirs_in_the_note(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await edit_then_conflict(pilot, vault)
        await pilot.press("c")
        await settle(pilot)
        assert editor.path.startswith("concepts/crdt (conflict ") and not editor.modified
        copy = vault / editor.path
    assert (vault / CRDT).read_text().endswith("Theirs: saved by another program.\n")
    assert copy.read_text().endswith("Mine: typed in kbtui.")
    assert "Theirs:" not in copy.read_text()


async def test_keep_theirs_takes_the_file_and_escape_decides_nothing(
    runtime: VaultRuntime,
) -> None:
    vault = runtime.settings.vault
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await edit_then_conflict(pilot, vault)
        await pilot.press("escape")  # later: the text is still there, unsaved
        await settle(pilot)
        assert app.screen is editor and editor.modified
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert not editor.modified and "Theirs: saved" in editor.area.text
    assert (vault / CRDT).read_text().endswith("Theirs: saved by another program.\n")


async def test_f1_lists_the_editor_conflict_and_review_keys(runtime: VaultRuntime) -> None:
    import io

    from rich.console import Console
    from textual.widgets import Static

    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(app.screen.query_one(Static).content)
        text = console.export_text()
    for section, words in (
        ("Note", ("Edit in kbtui",)),
        ("Editor", ("Save", "Accept the highlighted completion", "Close the completion list")),
        ("Conflict (a save met a changed file)", ("Keep mine", "Keep theirs", "Mine as a copy")),
        ("Review", ("Write it as proposed", "Write nothing", "Save the proposed text")),
    ):
        part = text.split(f"\n{section}\n", 1)
        assert len(part) == 2, section
        for word in words:
            assert word in part[1].split("\n\n", 1)[0], (section, word)
    assert "what assistants asked to write" in text  # f3


async def test_an_assistants_write_reaches_the_open_editor(runtime: VaultRuntime) -> None:
    """Nothing unsaved: the editor shows the note as written; unsaved text: it says so."""
    from kbtui.tools.write.origin import Origin, acting_as

    def assistant_appends(text: str) -> None:
        with acting_as(Origin("mcp:claude")):
            args = {"path": "crdt", "mode": "append", "content": text}
            assert runtime.call("note_write", args)["ok"]

    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_editor(pilot, "concept:crdt")
        assistant_appends("- from the assistant")
        app.poll_status()
        await settle(pilot)
        assert editor.area.text.endswith("- from the assistant\n") and not editor.modified
        at_end(editor)
        await type_text(pilot, "mine")
        assistant_appends("- and again")
        app.poll_status()
        await settle(pilot)
        assert editor.disk_changed and editor.area.text.endswith("mine")
