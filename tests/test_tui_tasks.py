"""The Tasks screen in the real app (Pilot), on a real index of a vault_example copy: open
tasks grouped by note; space toggles one (only that line of the file changes); Enter opens
the note."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.tasks import TasksScreen
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_tasks_screen_toggles_and_opens(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "aaa todo.md").write_text("# Todo\n\n- [ ] Buy milk 📅 2026-01-05\n- [ ] Call Ana\n")
    runtime.reindex()
    open_before = runtime.call("tasks_list", {"limit": 5000})["total"]
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        table = screen.query_one("#tasks-table", DataTable)
        assert table.row_count == open_before + len({t["file"] for t in screen.rows.values()})
        assert str(table.get_row_at(0)[1]) == "aaa todo.md"  # the note's header row
        await pilot.press("down", "space")  # the first task: Buy milk
        await settle(pilot)
        assert (vault / "aaa todo.md").read_text() == (
            "# Todo\n\n- [x] Buy milk 📅 2026-01-05\n- [ ] Call Ana\n"
        )
        assert runtime.call("tasks_list", {"limit": 5000})["total"] == open_before - 1
        assert "aaa todo.md:3" not in screen.rows  # left the open list
        table.move_cursor(row=1)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "note:aaa_todo"


async def test_space_on_a_recurring_task_writes_its_next_occurrence(
    runtime: VaultRuntime,
) -> None:
    """Issue 41: the TUI's space went through the same write as the CLI and dropped the chore
    off the list; with the Tasks plugin in the vault (its defaults), the next occurrence is
    written above the done one, which gets today's ✅ date."""
    import datetime as dt

    vault = runtime.settings.vault
    (vault / ".obsidian/plugins/obsidian-tasks-plugin").mkdir(parents=True)
    chore = "- [ ] aaa chore 🔁 every week on Monday 📅 2024-03-04"
    (vault / "aaa chores.md").write_text(f"# Chores\n\n{chore}\n")
    runtime.reindex()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert str(app.screen.query_one("#tasks-table", DataTable).get_row_at(0)[1]) == (
            "aaa chores.md"
        )
        await pilot.press("down", "space")
        await settle(pilot)
    today = dt.date.today().isoformat()
    assert (vault / "aaa chores.md").read_text() == (
        "# Chores\n\n"
        "- [ ] aaa chore 🔁 every week on Monday 📅 2024-03-11\n"
        f"- [x] aaa chore 🔁 every week on Monday 📅 2024-03-04 ✅ {today}\n"
    )
