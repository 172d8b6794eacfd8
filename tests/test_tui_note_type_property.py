"""A `type` property that is a link (`type: [[UI]]`, kepano's notes) is a property like any
other: the note's Metadata panel shows it. A plain `type: person` is the note's type, already
in its header. Real index (DuckDB file), real files, the app in a pilot."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from tests.conftest import open_runtime
from tests.tui_helpers import SIZE, make_app, settle


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def typed_runtime(tmp_path: Path) -> Iterator[VaultRuntime]:
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "Minimal Theme.md").write_text(
        '---\ntype:\n  - "[[UI]]"\nyear: 2020\n---\n## To-do\n\n- [x] Color schemes\n'
    )
    (vault / "Notes" / "Ana.md").write_text("---\ntype: person\n---\nAna writes.\n")
    rt = open_runtime(vault, HashEmbedder())
    yield rt
    rt.close()


def meta_text(screen: NoteScreen) -> str:
    """The Metadata panel as the terminal shows it."""
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(screen.query_one("#note-meta", Static).content)
    return console.export_text()


@pytest.mark.anyio
async def test_a_linked_type_shows_in_the_metadata_panel(typed_runtime: VaultRuntime) -> None:
    app = make_app(typed_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("note:minimal_theme"))
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        text = meta_text(app.screen)
        assert "type" in text and "[[UI]]" in text and "2020" in text
        app.post_message(OpenNote("person:ana"))
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        text = meta_text(app.screen)
        assert "type" not in text  # `person`: the header says it
