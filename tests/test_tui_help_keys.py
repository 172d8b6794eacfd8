"""f1 lists every key, as the README promises: the base screen's keys too (`[` `]` views, `s`
sorting, Enter on a card), and how to quit. Real index (DuckDB file), the app in a pilot."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import Static

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.screens.modals import HelpScreen
from tests.tui_helpers import SIZE, make_app, settle


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_help_lists_the_base_keys_and_quitting(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(app.screen.query_one(Static).content)
        text = console.export_text()
    base = text.split("\nBase\n", 1)
    assert len(base) == 2, "no Base section"
    section = base[1].split("\n\n", 1)[0]
    for word in ("Next view", "Previous view", "Sort by column", "Reverse sort", "Open note"):
        assert word in section, word
    assert "ctrl+q quits" in text
