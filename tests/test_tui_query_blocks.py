"""```dataview and ```tasks blocks in the TUI's note view (issue 41): vault_example's
Dashboards/Tasks dashboard.md draws its TABLE as a table and its ```tasks block as a task list
under its group headings; Enter opens a row's note, space toggles a task through task_update
(the file's line changes) and the block redraws without it; broken blocks say why in place, a
```dataviewjs block says it is not run, a LIST and a TASK query are drawn. Real index, Pilot."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Markdown, Static
from textual.widgets._markdown import MarkdownFence

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.note_panels import block_holding
from kbtui.tui.widgets.query_block import BlockList, QueryBlock
from tests.conftest import copy_indexed, open_runtime
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

DASHBOARD = "dashboard:tasks_dashboard"  # vault_example/Dashboards/Tasks dashboard.md
KICKOFF = "meetings/2026/2026-02-03 Vector Watch kickoff.md"

BROKEN = """\
# Odd blocks

```dataview
TABLE owner FROM nosuch WHERE
```

```tasks
not done
sort by nonsense
```

```dataviewjs
dv.table(["File"], dv.pages().map(p => [p.file.link]))
```

```dataview
LIST status FROM "projects" WHERE status = "prototype"
```

```dataview
TASK FROM "meetings" WHERE contains(text, "tester")
```

- [ ] water the plants
- [ ] file the receipts

```tasks
not done
path includes Odd blocks
```
"""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory, tui_template: Path) -> Iterator[VaultRuntime]:
    """One indexed copy of vault_example (and the odd blocks) for the module: the first note
    opened loads the vault's vectors, once. The toggle test ticks a task no other test reads."""
    vault = copy_indexed(tui_template, tmp_path_factory.mktemp("query_blocks") / "vault")
    (vault / "Odd blocks.md").write_text(BROKEN, encoding="utf-8")
    rt = open_runtime(vault, HashEmbedder())
    yield rt
    rt.close()


def head(block: QueryBlock) -> str:
    return str(block.query_one(".block-head", Static).render())


def listed(block: QueryBlock) -> list[str]:
    """The list's items as drawn (a task's text wraps beside its box), on one line each."""
    console = Console(width=200, record=True, file=io.StringIO())
    shown = []
    for option in block.query_one(BlockList).options:
        console.print(option.prompt)
        shown.append(console.export_text().rstrip())
    return shown


async def open_note(app: KbApp, pilot: object, entity_id: str) -> list[QueryBlock]:
    await settle(pilot)  # type: ignore[arg-type]
    app.post_message(OpenNote(entity_id))
    await settle(pilot)  # type: ignore[arg-type]
    assert isinstance(app.screen, NoteScreen)
    return list(app.screen.query(QueryBlock))


async def test_dashboard_table_and_tasks_enter_opens_space_toggles(
    runtime: VaultRuntime,
) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        table_block, tasks_block = await open_note(app, pilot, DASHBOARD)
        fences = [f for f in app.screen.query(MarkdownFence) if f.lexer in ("dataview", "tasks")]
        assert len(fences) == 2 and not any(f.display for f in fences)  # drawn, not code
        assert head(table_block) == "dataview · TABLE · 7 results"
        table = table_block.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == [
            "File", "Owner", "Status", "Tools"]  # fmt: skip
        assert table.get_row_at(1) == ["enclosure_tooling", "lena_hartmann", "active", "0"]
        assert head(tasks_block) == "tasks · 7 tasks"
        assert listed(tasks_block)[:3] == [
            "2026-02-03 Vector Watch kickoff",  # the group heading (group by filename)
            "[ ] andrei_clodius — pairing flow prototype by 2026-02-17",
            "[ ] lena_hartmann — freeze case drawings for harbor_fabrication",
        ]
        # Enter on a row of the table opens that row's note
        table.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NoteScreen) and screen.entity_id == "project:enclosure_tooling"
        await pilot.press("escape")
        await settle(pilot)
        assert screen.entity_id == DASHBOARD
        # space on Lena's task: its line is ticked in the meeting note, the block redraws
        tasks_block = screen.query(QueryBlock).last()
        tasks = tasks_block.query_one(BlockList)
        tasks.focus()
        await pilot.press("down")  # from Andrei's task (the heading is skipped)
        await pilot.press("space")
        await settle(pilot)
        line = (runtime.settings.vault / KICKOFF).read_text(encoding="utf-8").splitlines()[38]
        assert line.startswith("- [x] [[lena_hartmann]] — freeze case drawings")
        assert head(tasks_block) == "tasks · 6 tasks"
        assert not any("lena_hartmann" in item for item in listed(tasks_block))
        # Enter on a task opens its note scrolled to the task's line (its text names a link)
        tasks.highlighted = listed(tasks_block).index(
            "[ ] priya_raman — double-tap model under 24 KB"
        )
        await pilot.press("enter")
        await settle(pilot)
        assert screen.entity_id == "meeting:2026_02_03_vector_watch_kickoff"
        body = screen.query_one("#note-body", Markdown)
        block = block_holding(body, "- [ ] [[priya_raman]] — double-tap model under 24 KB", 38)
        scroll = screen.query_one("#note-body-scroll", VerticalScroll)
        assert block is not None and scroll.scroll_y > 0
        assert scroll.region.y <= block.region.y < scroll.region.bottom


async def test_broken_blocks_say_why_in_place_and_list_and_task_queries_draw(
    runtime: VaultRuntime,
) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        blocks = await open_note(app, pilot, "note:odd_blocks")
        broken_dql, broken_tasks, js, listing, task_query, chores = blocks
        assert head(broken_dql) == (  # the parser's message, naming what it wanted
            '✗ line 1: FROM needs a source: a "folder", a #tag or a [[link]] at `nosuch WHERE`'
        )
        assert not broken_dql.query_one(DataTable).display
        assert head(broken_tasks) == (
            '✗ Tasks query: do not understand query\nProblem line: "sort by nonsense"'
        )
        assert head(js).startswith("not run: DataviewJS is not supported")
        assert head(listing) == "dataview · LIST · 1 result"
        assert listed(listing) == ["• lantern_search  prototype"]
        assert head(task_query) == "dataview · TASK · 1 task"
        assert listed(task_query) == [
            "[ ] ines_duarte — tester agreements  (2026-03-18 Vector Watch beta planning)"
        ]
        # space on a task of this very note: the note is drawn again (as after the indexer's
        # pass) and the focus stays on its block, on the row that follows
        screen = app.screen
        assert isinstance(screen, NoteScreen)
        chores_list = chores.query_one(BlockList)
        chores_list.focus()
        chores_list.highlighted = listed(chores).index("[ ] water the plants  (Odd blocks)")
        await pilot.press("space")
        await settle(pilot)
        screen.index_changed()
        await settle(pilot)
        text = (runtime.settings.vault / "Odd blocks.md").read_text(encoding="utf-8")
        assert "- [x] water the plants" in text
        chores = screen.query(QueryBlock).last()
        assert listed(chores) == ["[ ] file the receipts  (Odd blocks)"]
        assert chores.has_focus_within and chores.query_one(BlockList).highlighted == 0
        listing = list(screen.query(QueryBlock))[3]
        listing.query_one(BlockList).focus()
        await pilot.press("enter")  # a LIST item opens its note
        await settle(pilot)
        assert app.screen.entity_id == "project:lantern_search"  # type: ignore[attr-defined]
