"""The TUI on a PDF: a hit opens the PDF's pages with the hit's page first, and `o` hands
the file to the system's viewer (a stand-in `xdg-open` on PATH records what it was given)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from textual.widgets import Markdown

from kbtui.embed import HashEmbedder
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList
from tests.conftest import open_runtime
from tests.pdf_kit import WARRANTY_PAGES, make_pdf
from tests.tui_helpers import SIZE, make_app, settle, type_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_pdf_hit_opens_on_its_page_and_o_opens_the_file(
    tui_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tui_vault / "manuals").mkdir()
    make_pdf(tui_vault / "manuals" / "warranty.pdf", WARRANTY_PAGES, title="Kestrel warranty")
    bin_dir, opened = tmp_path / "bin", tmp_path / "opened.txt"
    bin_dir.mkdir()
    viewer = bin_dir / "xdg-open"
    viewer.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{opened}"\n')
    viewer.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await type_text(pilot, "refund thirty days returns")
            await settle(pilot)
            search = app.screen
            assert isinstance(search, SearchScreen)
            hits = search.query_one("#results", EntityList)
            assert hits.current_id == "manual:warranty_pdf"
            await pilot.press("enter")
            await settle(pilot)
            note = app.screen
            assert isinstance(note, NoteScreen) and note.page == 5
            source = note.query_one("#note-body", Markdown).source
            assert source.startswith("### p. 5\n\nReturns and refunds.")
            assert source.index("### p. 1") < source.index("### p. 4")  # then in order
            keys = {b.key for _, b, on, _ in app.active_bindings.values() if b.show and on}
            assert "e" in keys and "i" not in keys  # kbtui's editor opens no PDF: no `i` here
            await pilot.press("o")
            deadline = time.monotonic() + 10
            while not opened.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert opened.read_text() == str(tui_vault / "manuals" / "warranty.pdf")
    finally:
        runtime.close()
