"""A base in the TUI, driven with Pilot against a real index and VaultRuntime: "concepts base"
finds the .base file, Enter shows its first view as a table with its views as tabs, `]`
switches view, Enter on a row opens that note."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Tabs

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
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
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.view_name == "Sync" and cells(table) == ["crdt"]
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"
