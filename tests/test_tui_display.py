"""The TUI shows a note as Obsidian does and keeps every row inside its border, on real files:
a hub note titled with 🗂️ (U+1F5C2 U+FE0F), `%%` comments, a `<button>` (tests/data/
obsidian_hidden/hub)."""

from __future__ import annotations

import shutil
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Markdown, Static

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote, ShowGraph
from kbtui.tui.screens.note import NoteScreen
from tests.conftest import open_runtime
from tests.tui_helpers import make_app, settle, type_text

pytestmark = pytest.mark.anyio

HUB = Path(__file__).parent / "data" / "obsidian_hidden" / "hub"
SIZE = (100, 30)  # the width the issue was seen at


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hub_runtime(tui_vault: Path) -> Iterator[VaultRuntime]:
    shutil.copytree(HUB, tui_vault / "hub")
    rt = open_runtime(tui_vault, HashEmbedder())
    yield rt
    rt.close()


def terminal_cells(line: str) -> int:
    """A line's width as wcwidth-based terminals draw it (tmux 3.3a, xterm): marks (VS16,
    combining) take no cell, East Asian wide and fullwidth take two, the rest one."""
    return sum(
        0
        if unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in ("W", "F")
        else 1
        for c in line
    )


def screen_lines(app: KbApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def assert_rows_fit(app: KbApp) -> list[str]:
    """Every screen line is exactly as wide for the terminal as Textual laid it out."""
    lines = screen_lines(app)
    assert len(lines) == SIZE[1]
    for line in lines:
        assert cell_len(line) == SIZE[0], line
        assert terminal_cells(line) == SIZE[0], f"a terminal draws it at another width: {line!r}"
    return lines


async def test_an_emoji_title_keeps_rows_in_their_border(hub_runtime: VaultRuntime) -> None:
    app = make_app(hub_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "plugins by category")
        await settle(pilot)
        lines = assert_rows_fit(app)
        row = next(line for line in lines if "Plugins by category" in line)
        assert "🗂 Plugins by category" in row and row.rstrip().endswith("│")

        app.post_message(ShowGraph("hub:plugins_by_category"))
        await settle(pilot)
        lines = assert_rows_fit(app)
        assert any("▼ 🗂 Plugins by category" in line for line in lines)  # the tree's root

        app.post_message(OpenNote("hub:plugins_by_category"))
        await settle(pilot)
        assert_rows_fit(app)


async def test_the_note_view_hides_what_obsidian_hides(hub_runtime: VaultRuntime) -> None:
    app = make_app(hub_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("hub:advanced_tables"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        source = note.query_one("#note-body", Markdown).source
        for hidden in ("Do not edit", "reviewer", "<button", "Open in Obsidian", "<b>"):
            assert hidden not in source
        assert "written by Tony Grosinger" in source
        assert 'const marker = "%% not a comment %%";' in source  # code is shown as written

        note.show_entity("hub:plugins_by_category")
        await settle(pilot)
        card = str(note.query_one("#note-card", Static).render())
        assert "no card" in card  # nothing but links and boilerplate: no card from %% text
        body = note.query_one("#note-body", Markdown).source
        assert "Hub MOCs" not in body and "Advanced Tables" in body
