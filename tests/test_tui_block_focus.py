"""The note view drawn again (the indexer took in a save: NoteScreen.index_changed) keeps the
keyboard where it was: on the same ```base block, its view and row, on the same embedded base,
on the same ```dataview table row (issue 41, polish); and its footer shows the keys that apply
there: `i` (edit in kbtui) beside `e`, f3 (Review) once a proposal waits; a ```tasks block
says how it read a date line whose words the plugin drops. Real index, Pilot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.edit.review import ReviewScreen
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.base_block import BaseBlock
from kbtui.tui.widgets.base_embed import BaseEmbed
from kbtui.tui.widgets.query_block import QueryBlock
from tests.conftest import copy_indexed, open_runtime
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

BOARD = """\
# Board

```base
filters: type == "concept"
views:
  - type: list
    name: Listed
    order: [file.basename]
  - type: table
    name: Table
    order: [file.basename, type]
```

![[Concepts.base]]

```dataview
TABLE type FROM "concepts" SORT file.name
```

```tasks
due befor tomorrow
```
"""
CONCEPTS = 'filters: type == "concept"\nviews:\n  - type: table\n    name: All\n'


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory, tui_template: Path) -> Iterator[VaultRuntime]:
    vault = copy_indexed(tui_template, tmp_path_factory.mktemp("block_focus") / "vault")
    (vault / "Board.md").write_text(BOARD, encoding="utf-8")
    (vault / "Concepts.base").write_text(CONCEPTS, encoding="utf-8")
    rt = open_runtime(vault, HashEmbedder())
    yield rt
    rt.close()


async def board(app: KbApp, pilot: object) -> NoteScreen:
    await settle(pilot)  # type: ignore[arg-type]
    app.post_message(OpenNote("note:board"))
    await settle(pilot)  # type: ignore[arg-type]
    assert isinstance(app.screen, NoteScreen)
    return app.screen


async def redrawn(screen: NoteScreen, pilot: object) -> None:
    """As after the indexer's pass over a save: the note loaded and drawn again."""
    screen.index_changed()
    await settle(pilot)  # type: ignore[arg-type]


async def test_a_base_block_keeps_focus_view_and_row_when_the_note_is_redrawn(
    runtime: VaultRuntime,
) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        screen = await board(app, pilot)
        block = screen.query_one(BaseBlock)
        block.query_one("BaseList").focus()
        await pilot.press("right_square_bracket")  # its second view, a table
        await settle(pilot)
        table = block.query_one(DataTable)
        table.focus()
        await pilot.press("down", "down")
        await settle(pilot)
        assert (block.view_name, table.cursor_row) == ("Table", 2)
        await redrawn(screen, pilot)
        block = screen.query_one(BaseBlock)
        table = block.query_one(DataTable)
        assert block.view_name == "Table" and table.display
        assert table.has_focus and table.cursor_row == 2
        # the view kept renamed meanwhile (through the write path): the first view, focused,
        # not an error in the block's place (this module's other tests read no view name)
        renamed = app.tool(
            "note_edit",
            {"note": "Board.md", "edits": [{"old": "name: Table", "new": "name: Grid"}]},
        )
        assert renamed["ok"], renamed
        await redrawn(screen, pilot)
        block = screen.query_one(BaseBlock)
        assert block.view_name == "Listed" and block.views == ["Listed", "Grid"]
        assert block.has_focus_within


async def test_an_embedded_base_and_a_dataview_row_keep_focus(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        screen = await board(app, pilot)
        screen.query_one(BaseEmbed).focus()
        await settle(pilot)
        await redrawn(screen, pilot)
        assert screen.query_one(BaseEmbed).has_focus
        table = screen.query_one(QueryBlock).query_one(DataTable)
        table.focus()
        await pilot.press("down")
        await settle(pilot)
        await redrawn(screen, pilot)
        table = screen.query_one(QueryBlock).query_one(DataTable)
        assert table.has_focus and table.cursor_row == 1


def footer_keys(app: KbApp) -> dict[str, str]:
    """The footer's keys as shown: key -> what it says (a group's keys share its words)."""
    return {b.key: b.description for _, b, enabled, _ in app.active_bindings.values()
            if b.show and enabled}  # fmt: skip


async def test_the_footer_shows_edit_here_and_review_and_a_tasks_block_its_warning(
    runtime: VaultRuntime,
) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        screen = await board(app, pilot)
        tasks_block = list(screen.query(QueryBlock))[-1]  # how it read a line's dropped words
        foot = str(tasks_block.query_one(".block-foot", Static).render())
        assert foot.startswith('⚠ "due befor tomorrow": "befor" not understood; read as "due on ')
        keys = footer_keys(app)
        assert "i" in keys and "e" in keys
        assert "f3" not in keys  # nothing waits: not in the footer, and yet f3 opens Review
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and "f3" not in footer_keys(app)
        await pilot.press("escape")
        await settle(pilot)
        app._pending_seen = 1  # as review_status() sets it when a proposal waits
        app.refresh_bindings()
        await settle(pilot)
        assert footer_keys(app)["f3"] == "Review"
