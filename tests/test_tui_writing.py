"""Writing in the TUI (issue 40, items 1, 2, 4, 5 and 7) driven with Pilot against a copy of
vault_example, its real DuckDB index and a real VaultRuntime: a new note from a template (and
a name in use refused in the dialog), capture to the daily note and to $KBTUI_CAPTURE with
`[[` completion, a note's history (diff, restore), the vault's changes (grouped by who
wrote, diff, undo, a refused undo), delete with the links it leaves unresolved, and the note
view following an assistant's edit. Every write is checked on the files themselves."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Input, Markdown, OptionList, Static

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tui.edit.editor import EditorScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.widgets.status import StatusBar
from kbtui.tui.writing.capture import CaptureArea, CaptureModal
from kbtui.tui.writing.changes import ChangesScreen
from kbtui.tui.writing.confirm import ConfirmWrite
from kbtui.tui.writing.diff_view import DiffView
from kbtui.tui.writing.history import HistoryScreen
from kbtui.tui.writing.new_note import NewNoteModal
from tests.tui_helpers import SIZE, make_app, settle, type_text, vault_digest

pytestmark = pytest.mark.anyio

MEETING = "---\ntype: meeting\ndate: {{date}}\n---\n# {{title}}\n\nAt {{time}}.\n\n## Notes\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def add_templates(vault: Path) -> None:
    """The Templates plugin's folder and Obsidian's new-note folder, as a vault sets them."""
    (vault / "Templates").mkdir()
    (vault / "Templates" / "Meeting.md").write_text(MEETING)
    (vault / "Templates" / "Idea.md").write_text("# {{title}}\n")
    obsidian = vault / ".obsidian"
    (obsidian / "templates.json").write_text(json.dumps({"folder": "Templates"}))
    app_json = {"newFileLocation": "folder", "newFileFolderPath": "concepts"}
    (obsidian / "app.json").write_text(json.dumps(app_json))


def shown(widget: Static) -> str:
    """What a Static shows, as text."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def options(widget: OptionList) -> list[str]:
    return [str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)]


def call(runtime: VaultRuntime, source: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A write by another front end: an assistant through `kbtui mcp`, the CLI."""
    with acting_as(Origin(source)):
        answer = runtime.call(tool, args)
    assert answer["ok"], answer
    return answer


# -- new note ------------------------------------------------------------------------------
async def test_new_note_from_a_template_in_a_picked_folder_opens(
    runtime: VaultRuntime, tui_vault: Path
) -> None:
    add_templates(tui_vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewNoteModal)
        folder = dialog.query_one("#new-folder", Input)
        assert folder.value == "concepts"  # .obsidian/app.json's new-note folder
        assert options(dialog.query_one("#new-templates", OptionList)) == [
            "No template",
            "Idea",
            "Meeting",
        ]
        await type_text(pilot, "Weekly sync")
        await pilot.press("down")  # to the folder
        folder.value = ""
        await type_text(pilot, "meet")
        await settle(pilot)
        assert options(dialog.query_one("#new-folders", OptionList))[0] == "meetings"
        await pilot.press("enter")  # takes the match, then on to the templates
        await settle(pilot)
        assert folder.value == "meetings"
        assert dialog.focused is dialog.query_one("#new-templates")
        await pilot.press("down", "down", "enter")  # Meeting
        await settle(pilot)
        editor = app.screen  # the new note opens in the editor; escape: its note view
        assert isinstance(editor, EditorScreen) and editor.path == "meetings/Weekly sync.md"
        await pilot.press("escape")
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        assert note.note is not None and note.note["metadata"]["file_path"] == (
            "meetings/Weekly sync.md"
        )
        text = (tui_vault / "meetings" / "Weekly sync.md").read_text()
        today = dt.date.today().isoformat()
        assert text.startswith(f"---\ntype: meeting\ndate: {today}\n---\n# Weekly sync\n")
        assert "{{" not in text
        assert "Weekly sync" in note.query_one("#note-body", Markdown).source


async def test_new_note_with_a_name_in_use_is_refused_in_the_dialog(
    runtime: VaultRuntime, tui_vault: Path
) -> None:
    add_templates(tui_vault)
    before = vault_digest(tui_vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        await type_text(pilot, "CRDT")
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewNoteModal)  # still open, with note_write's refusal
        error = shown(dialog.query_one("#new-error", Static))
        assert "[[CRDT]] already reaches concepts/crdt.md" in error
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
    assert vault_digest(tui_vault) == before


async def test_new_note_at_the_root_without_a_template(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    vault = runtime.settings.vault
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewNoteModal)
        assert dialog.query_one("#new-folder", Input).value == ""  # no setting: the root
        await type_text(pilot, "Loose idea")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
    assert (vault / "Loose idea.md").read_text() == ""


# -- capture -------------------------------------------------------------------------------
async def test_capture_appends_to_todays_note_with_a_link_completed(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KBTUI_CAPTURE", raising=False)
    app = make_app(runtime)
    vault = runtime.settings.vault
    daily = vault / f"{dt.date.today().isoformat()}.md"  # vault_example sets no daily folder
    assert not daily.exists()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CaptureModal)
        assert f"today's note, {daily.name}" in shown(dialog.query_one("#capture-title", Static))
        await type_text(pilot, "Ask [[atlas")
        await settle(pilot)
        links = dialog.query_one("#capture-links", OptionList)
        assert links.display and options(links)[0].startswith("atlas_sync")
        await pilot.press("tab")  # takes it
        await type_text(pilot, " about sync")
        await pilot.press("ctrl+j")
        await type_text(pilot, "second line")
        await settle(pilot)
        area = dialog.query_one("#capture-text", CaptureArea)
        assert area.text == "Ask [[atlas_sync]] about sync\nsecond line"
        assert not links.display
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        status = shown(app.screen.query_one(StatusBar))
        assert f"captured to {daily.name}" in status
    assert daily.read_text().endswith("Ask [[atlas_sync]] about sync\nsecond line\n")


async def test_capture_goes_to_the_note_kbtui_capture_names(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBTUI_CAPTURE", "Inbox")
    app = make_app(runtime)
    inbox = runtime.settings.vault / "Inbox.md"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for line in ("first thought", "second thought"):
            await pilot.press("ctrl+l")
            await settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, CaptureModal)
            assert "Inbox ($KBTUI_CAPTURE)" in shown(dialog.query_one("#capture-title", Static))
            await type_text(pilot, line)
            await pilot.press("enter")
            await settle(pilot)
            assert "captured to Inbox.md" in shown(app.screen.query_one(StatusBar))
    assert inbox.read_text() == "first thought\nsecond thought\n"  # created, then appended
    versions = runtime.call("note_history", {"note": "Inbox"})["versions"]
    assert [(v["source"], v["operation"]) for v in versions] == [
        ("tui", "append"),
        ("tui", "create"),
    ]


# -- history -------------------------------------------------------------------------------
async def test_history_shows_a_diff_with_now_and_restores_after_confirming(
    runtime: VaultRuntime,
) -> None:
    vault = runtime.settings.vault
    file = vault / "concepts" / "crdt.md"
    original = file.read_text()
    call(
        runtime,
        "mcp:claude",
        "note_write",
        {"path": "concepts/crdt.md", "mode": "append", "content": "Added by Claude."},
    )
    call(
        runtime,
        "cli",
        "note_write",
        {"path": "concepts/crdt.md", "mode": "append", "content": "Then by hand."},
    )
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from kbtui.tui.messages import OpenNote

        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        rows = options(history.query_one("#history-versions", EntityList))
        assert rows[0].startswith("v3") and "cli" in rows[0] and "= now" in rows[0]
        assert "◆ mcp:claude" in rows[1] and "append" in rows[1] and "+1 -0" in rows[1]
        assert rows[2].startswith("v1") and "create" not in rows[2]  # first seen by kbtui
        await pilot.press("down", "down", "enter")  # v1 against the note now
        await settle(pilot)
        diff = history.query_one("#history-diff", DiffView)
        text = shown(diff.query_one(Static))
        assert "+Added by Claude." in text and "+Then by hand." in text
        assert history.focused is diff
        await pilot.press("escape", "r")
        await settle(pilot)
        question = app.screen
        assert isinstance(question, ConfirmWrite)
        assert file.read_text() != original  # nothing written before `y`
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is history
        assert file.read_text() == original
        rows = options(history.query_one("#history-versions", EntityList))
        assert rows[0].startswith("v4") and "restore v1" in rows[0] and "● tui" in rows[0]


# -- changes -------------------------------------------------------------------------------
async def test_changes_group_writes_by_source_and_undo_one(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    crdt = vault / "concepts" / "crdt.md"
    before = crdt.read_text()
    call(runtime, "tui", "note_write", {"path": "Home.md", "mode": "append", "content": "- mine"})
    call(
        runtime,
        "mcp:claude",
        "note_write",
        {"path": "concepts/crdt.md", "mode": "append", "content": "Claude was here."},
    )
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        changes = app.screen
        assert isinstance(changes, ChangesScreen)
        rows = options(changes.query_one("#changes-list", EntityList))
        assert rows[0].startswith("◆ mcp:claude  an assistant  1 write")
        assert "concepts/crdt.md" in rows[1] and "append" in rows[1]
        assert rows[2].startswith("● tui") and "Home.md" in rows[3]
        await pilot.press("enter")  # the assistant's write: what it changed
        await settle(pilot)
        text = shown(changes.query_one("#changes-diff", DiffView).query_one(Static))
        assert "+Claude was here." in text
        await pilot.press("escape", "u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        await pilot.press("y")
        await settle(pilot)
        assert crdt.read_text() == before
        rows = options(changes.query_one("#changes-list", EntityList))
        assert rows[0].startswith("● tui  2 writes") and "restore" in rows[1]


async def test_an_undo_is_refused_when_the_note_changed_since(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    call(
        runtime,
        "mcp:claude",
        "note_write",
        {"path": "Home.md", "mode": "append", "content": "- from Claude"},
    )
    call(
        runtime,
        "tui",
        "note_write",
        {"path": "Home.md", "mode": "append", "content": "- mine after"},
    )
    before = vault_digest(vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        changes = app.screen
        assert isinstance(changes, ChangesScreen)
        listing = changes.query_one("#changes-list", EntityList)
        rows = options(listing)
        assert rows[0].startswith("● tui") and rows[2].startswith("◆ mcp:claude")
        assert "changed since" in rows[3]
        listing.highlighted = 3  # Claude's write
        await pilot.press("u")
        await settle(pilot)
        assert app.screen is changes  # no question: refused at the dry run
        messages = [n.message for n in app._notifications]
        assert any("Home.md changed since" in m and "nothing undone" in m for m in messages)
    assert vault_digest(vault) == before


# -- delete and others' edits ----------------------------------------------------------------
async def test_delete_lists_the_links_left_unresolved_then_trashes(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from kbtui.tui.messages import OpenNote

        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        question = app.screen
        assert isinstance(question, ConfirmWrite)
        text = shown(question.query_one("#confirm-body").query_one(Static))
        assert "concepts/crdt.md goes to .trash/crdt.md" in text
        assert "will reach no note" in text
        for source in ("Home.md", "projects/atlas_sync.md", "people/daniel_cho.md"):
            assert source in text
        assert (vault / "concepts" / "crdt.md").exists()
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)  # the note is gone: back where it came from
    assert not (vault / "concepts" / "crdt.md").exists()
    assert (vault / ".trash" / "crdt.md").exists()


async def test_delete_cancelled_writes_nothing(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    before = vault_digest(vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from kbtui.tui.messages import OpenNote

        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
    assert vault_digest(vault) == before


async def test_the_open_note_follows_an_assistants_edit(runtime: VaultRuntime) -> None:
    """An assistant's note_write through the owner is indexed by the write path, without a
    pass of the background indexer: the note view learns of it from the history's count."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        from kbtui.tui.messages import OpenNote

        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        body = note.query_one("#note-body", Markdown)
        assert "Edited by an assistant" not in body.source
        call(
            runtime,
            "mcp:claude",
            "note_write",
            {"path": "concepts/crdt.md", "mode": "append", "content": "Edited by an assistant."},
        )
        app.poll_status()  # what the app's one-second poll does
        await settle(pilot)
        await settle(pilot)
        assert "Edited by an assistant." in body.source


async def test_f1_lists_the_writing_keys(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        text = shown(app.screen.query_one(Static))
    for words in (
        "New note: title, folder, template",
        "Capture: a line to today's note",
        "Changes: the vault's latest writes",
        "The note's versions: diff, restore",
        "Delete the note",
        "Restore this version",
        "Undo this write",
    ):
        assert words in text, words


async def test_capture_link_list_closes_on_escape_and_enter_takes_a_link(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBTUI_CAPTURE", "Inbox")
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CaptureModal)
        links = dialog.query_one("#capture-links", OptionList)
        await type_text(pilot, "see [[kestrel")
        await settle(pilot)
        assert links.display
        await pilot.press("escape")  # closes the list, not the dialog
        await settle(pilot)
        assert app.screen is dialog and not links.display
        await type_text(pilot, " d")  # typing on in the link opens the list again
        await settle(pilot)
        assert links.display and options(links)[0].startswith("kestrel_dashboard")
        await pilot.press("enter")  # takes the link; a second Enter saves
        await settle(pilot)
        area = dialog.query_one("#capture-text", CaptureArea)
        assert area.text == "see [[kestrel_dashboard]]" and app.screen is dialog
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
    inbox = runtime.settings.vault / "Inbox.md"
    assert inbox.read_text() == "see [[kestrel_dashboard]]\n"


@pytest.mark.parametrize(
    ("typed", "screen"),
    [("new note", NewNoteModal), ("capture", CaptureModal), ("changes", ChangesScreen)],
)
async def test_the_palette_offers_the_writing_commands(
    runtime: VaultRuntime, typed: str, screen: type
) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, typed)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, screen)
