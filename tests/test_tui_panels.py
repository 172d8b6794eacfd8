"""The note view's Obsidian panels in the real app (Pilot, real index of a vault_example
copy): the outline (`O`) lists the note's headings and Enter scrolls to one; the linked files
(`B`) are Obsidian's backlinks (canvases and markdown links too) and Enter opens one; both
are hidden again by their key. And Enter on a task in the Tasks screen opens its note with
the task in view."""

from __future__ import annotations

import json

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Markdown

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.tasks import TasksScreen
from kbtui.tui.widgets.note_panels import block_holding
from kbtui.tui.widgets.results import EntityList
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

LONG = "# Long list\n\n" + "".join(f"Paragraph {i} of filler text.\n\n" for i in range(60))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _visible(scroll: VerticalScroll, widget: object) -> bool:
    region = widget.region  # type: ignore[attr-defined]
    return scroll.region.y <= region.y < scroll.region.bottom


async def test_outline_and_linked_files_panels(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "Board.canvas").write_text(
        json.dumps({"nodes": [{"id": "a", "type": "file", "file": "projects/atlas_sync.md"}]})
    )
    (vault / "md linker.md").write_text("See [atlas](projects/atlas_sync.md) and [[atlas_sync]].\n")
    (vault / "projects" / "atlas_sync.md").write_text(
        (vault / "projects" / "atlas_sync.md").read_text() + "\n" + LONG.replace("#", "##", 1)
    )
    runtime.reindex()
    expected = runtime.call("vault_links", {"kind": "backlinks", "note": "projects/atlas_sync.md"})
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("project:atlas_sync"))
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen)
        outline = note.query_one("#note-outline", EntityList)
        files = note.query_one("#note-filelinks", EntityList)
        assert not outline.display and not files.display  # hidden until asked for

        await pilot.press("O")
        await settle(pilot)
        assert outline.display and app.focused is outline
        shown = [str(outline.get_option_at_index(i).prompt) for i in range(outline.option_count)]
        assert [s.split("  :")[0].strip() for s in shown] == [
            "Atlas Sync",
            "Used by",
            "Design notes",
            "Long list",
        ]
        await pilot.press("end", "enter")  # the last heading, far below the first screen
        await settle(pilot)
        scroll = note.query_one("#note-body-scroll", VerticalScroll)
        assert scroll.scroll_y > 0

        await pilot.press("B")
        await settle(pilot)
        assert files.display and app.focused is files
        listed = [files.get_option_at_index(i).id for i in range(files.option_count)]
        assert listed == [r["file"] for r in expected["results"]]
        assert "Board.canvas" in listed and "md linker.md" in listed
        assert "×2" in str(files.get_option_at_index(listed.index("md linker.md")).prompt)

        await pilot.press("B", "O")  # hidden again
        await settle(pilot)
        assert not outline.display and not files.display

        await pilot.press("B")
        await settle(pilot)
        files.highlighted = listed.index("md linker.md")
        await pilot.press("enter")
        await settle(pilot)
        assert note.entity_id == "note:md_linker"


async def test_enter_on_a_task_opens_the_note_at_its_line(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "aaa long.md").write_text(LONG + "- [ ] Deep task at the end 📅 2026-02-01\n")
    runtime.reindex()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        table = tasks.query_one("#tasks-table", DataTable)
        assert "aaa long.md:123" in tasks.rows
        table.move_cursor(row=table.get_row_index("aaa long.md:123"))
        await pilot.press("enter")
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen) and note.entity_id == "note:aaa_long"
        scroll = note.query_one("#note-body-scroll", VerticalScroll)
        block = block_holding(note.query_one("#note-body", Markdown), "- [ ] Deep task", 123)
        assert block is not None and "Deep task" in (block.source or "")
        assert scroll.scroll_y > 0 and _visible(scroll, block)


async def test_graph_screen_lists_loose_ends(runtime: VaultRuntime) -> None:
    """`u` in the graph screen: unresolved links, orphans and dead ends as vault_links
    answers them; Enter on an orphan opens it, on an unresolved link the note holding it."""
    vault = runtime.settings.vault
    (vault / "zz lonely.md").write_text("# Lonely\n\nLinks to [[Nowhere at all]] only.\n")
    runtime.reindex()
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        screen = app.screen
        for kind in ("unresolved", "orphans", "deadends"):
            panel = screen.query_one(f"#links-{kind}", EntityList)
            answer = runtime.call("vault_links", {"kind": kind})
            assert panel.option_count == max(answer["count"], 1)
            assert str(panel.border_title).endswith(f"({answer['count']})")
        unresolved = screen.query_one("#links-unresolved", EntityList)
        ids = [unresolved.get_option_at_index(i).id or "" for i in range(unresolved.option_count)]
        unresolved.highlighted = next(i for i, o in enumerate(ids) if o.startswith("zz lonely"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "note:zz_lonely"
        await pilot.press("escape")
        await settle(pilot)
        orphans = screen.query_one("#links-orphans", EntityList)
        assert "zz lonely.md" in [
            orphans.get_option_at_index(i).id for i in range(orphans.option_count)
        ]
