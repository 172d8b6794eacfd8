"""The note view's unlinked mentions (Enter links one) and its rename action (dry run shown,
nothing written until confirmed), driven by keys over a real index."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.modals import ConfirmRename, PromptModal
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.results import EntityList
from tests.tui_helpers import SIZE, make_app, settle, vault_digest

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_enter_on_a_mention_links_it(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    kickoff = vault / "meetings" / "2026" / "2026-02-03 Vector Watch kickoff.md"
    before = kickoff.read_text()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        mentions = note.query_one("#note-mentions", EntityList)
        where = [m["filePath"] for m in note.mentions]
        assert kickoff.relative_to(vault).as_posix() in where
        await pilot.press("u")
        assert app.focused is mentions
        for _ in range(where.index(kickoff.relative_to(vault).as_posix())):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
    after = kickoff.read_text()
    assert after == before.replace("- Andrei argued", "- [[andrei_clodius|Andrei]] argued", 1)


async def test_rename_shows_the_dry_run_and_writes_only_when_confirmed(
    runtime: VaultRuntime,
) -> None:
    vault = runtime.settings.vault
    untouched = vault_digest(vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, PromptModal)
        app.screen.query_one(Input).value = "Andrei C"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmRename)
        assert app.screen.dry_run["linksRewritten"] > 20
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert app.screen is note and vault_digest(vault) == untouched

        await pilot.press("m")
        await settle(pilot)
        app.screen.query_one(Input).value = "Andrei C"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is note and note.entity_id == "person:andrei_clodius"
    assert (vault / "people" / "Andrei C.md").exists()
    assert not (vault / "people" / "andrei_clodius.md").exists()
    assert "[[Andrei C]]" in (vault / "Home.md").read_text()


async def test_rename_to_a_taken_name_asks_again_and_lists_the_links(
    runtime: VaultRuntime,
) -> None:
    """`m` to a name another note answers to (Maya Okafor's title): the dialog says why it
    was refused and which links would change target; only `y` takes the name."""
    vault = runtime.settings.vault
    (vault / "meetings" / "by title.md").write_text("Asked [[Maya Okafor]] first.\n")
    runtime.reindex()
    untouched = vault_digest(vault)
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("person:andrei_clodius"))
        await settle(pilot)
        note = app.screen
        await pilot.press("m")
        await settle(pilot)
        app.screen.query_one(Input).value = "maya okafor"
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmRename)
        assert "already a name of people/maya_okafor.md (title)" in dialog.dry_run["refusal"]
        assert dialog.dry_run["retargetedCount"] > 0
        assert all(r["to"] == "people/maya okafor.md" for r in dialog.dry_run["retargeted"])
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert app.screen is note and vault_digest(vault) == untouched

        await pilot.press("m")
        await settle(pilot)
        app.screen.query_one(Input).value = "maya okafor"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert (vault / "people" / "maya okafor.md").exists()
