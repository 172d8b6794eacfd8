"""```base code blocks in a note (help: Bases syntax; `this` is the note holding the block):
drawn where they stand in the TUI's note view, a broken one showing its error in place; the
same blocks listed by `kbtui bases` and queried as `Note.md#N` by the CLI and base_query; the
list and cards view settings (markers, separator, indented properties, card size, a cover
that is a vault file) in the answer and on screen. Real index, Pilot, the CLI through click."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable, Static, Tabs
from textual.widgets._markdown import MarkdownBlock, MarkdownFence

from kbtui.cli import main
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.base_block import BaseBlock
from kbtui.tui.widgets.base_layouts import BaseCards, BaseList, Card
from tests.conftest import open_runtime
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

DASHBOARD = """\
# Dashboard

Concepts, numbered:

```base
filters: type == "concept"
formulas:
  home: this.file.name
views:
  - type: list
    name: Numbered
    order: [file.basename, type, tags]
    markers: number
    separator: " / "
  - type: table
    name: Table
    order: [file.basename, formula.home]
    summaries:
      formula.home: Unique
    limit: 2
  - type: list
    name: Indented
    order: [file.basename, type, tags]
    markers: none
    indentProperties: true
```

A broken block:

```base
views:
  - type: table
    filters: nosuchfunction(1)
```

Still shown after it.

```base
filters: type == "concept" && cover
views:
  - type: cards
    name: Covers
    order: [file.basename]
    image: note.cover
    cardSize: 300
  - type: table
    name: Table
    order: [file.basename, cover]
```
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def add_dashboard(vault: Path) -> None:
    """The note with three blocks, and crdt given a cover that is a file of the vault."""
    (vault / "Dashboard.md").write_text(DASHBOARD, encoding="utf-8")
    (vault / "concepts" / "crdt-diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    note = vault / "concepts" / "crdt.md"
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("---\n", '---\ncover: "[[crdt-diagram.png]]"\n', 1), "utf-8")


@pytest.fixture
def blocks_runtime(tui_vault: Path) -> Iterator[VaultRuntime]:
    add_dashboard(tui_vault)
    rt = open_runtime(tui_vault, HashEmbedder())
    yield rt
    rt.close()


def text_of(widget: Static) -> str:
    return str(widget.render())


async def test_blocks_are_drawn_in_place_and_a_broken_one_says_why(
    blocks_runtime: VaultRuntime,
) -> None:
    app = make_app(blocks_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("note:dashboard"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NoteScreen)
        blocks = list(screen.query(BaseBlock))
        assert [b.file for b in blocks] == [f"Dashboard.md#{n}" for n in (1, 2, 3)]
        fences = [f for f in screen.query(MarkdownFence) if f.lexer == "base"]
        assert len(fences) == 3 and not any(f.display for f in fences)  # the YAML is not shown
        for fence, block in zip(fences, blocks, strict=True):  # each block where its fence was
            siblings = list(fence.parent.children) if fence.parent else []
            assert siblings.index(block) == siblings.index(fence) + 1
        first, broken, covers = blocks
        # the first view, numbered with its separator; its two views as tabs
        listed = first.query_one(BaseList)
        assert listed.display and first.query_one(Tabs).display
        assert [str(o.prompt) for o in listed.options] == [
            "1. Café des idées  concept / concept, culture, français",
            "2. crdt  concept / concept, sync, data-structures",
            "3. glanceable_design  concept / concept, design, wearable",
            "4. on_device_inference  concept / concept, ml, embedded",
        ]
        head = text_of(broken.query_one(".block-head", Static))
        assert head == "✗ line 33: unsupported function `nosuchfunction()`"  # the note's line
        assert not broken.query_one(Tabs).display and not broken.query_one(DataTable).display
        shown = [b.source or "" for b in screen.query(MarkdownBlock) if b.display]
        assert any("Still shown after it." in s for s in shown)  # the rest of the note
        assert covers.query_one(Tabs).display  # two views: tabs
        card = covers.query_one(BaseCards)
        assert card.card_width == 42  # cardSize 300 of Obsidian's 200 px default (28 columns)
        assert text_of(card.query_one(Card)).splitlines()[:2] == ["▨ crdt-diagram.png", "crdt"]
        # `]` on the first block: its next view, `this` the note holding the block
        listed.focus()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        table = first.query_one(DataTable)
        assert table.display and not listed.display
        assert table.get_row_at(0) == ["Café des idées", "Dashboard.md"]
        table.focus()
        await pilot.press("down", "enter")  # Enter opens the row's note
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.entity_id == "concept:crdt"


async def test_v_opens_the_blocks_whole_view(blocks_runtime: VaultRuntime) -> None:
    app = make_app(blocks_runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenNote("note:dashboard"))
        await settle(pilot)
        covers = list(app.screen.query(BaseBlock))[2]
        covers.query_one(Card).focus()
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BaseScreen) and screen.base == "Dashboard.md#3"
        assert screen.view_name == "Covers" and screen.views == ["Covers", "Table"]
        app.pop_screen()
        await settle(pilot)
        first = app.screen.query(BaseBlock).first()
        listed = first.query_one(BaseList)
        listed.focus()
        await pilot.press("right_square_bracket")  # the table: 2 rows, its summary, 2 more
        await settle(pilot)
        foot = text_of(first.query_one(".block-foot", Static))
        assert foot == "Unique of home: 1\n2 more — v opens the whole view"
        first.query_one(DataTable).focus()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        lines = [str(o.prompt) for o in listed.options]
        assert lines[:2] == [  # no marker, each property on a line of its own under the note
            "Café des idées\n  concept\n  concept, culture, français",
            "crdt\n  concept\n  concept, sync, data-structures",
        ]


def run(vault: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    return result.exit_code, result.output


def test_cli_lists_and_queries_each_block(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "concepts").mkdir(parents=True)
    for name, cover in (("crdt", '"[[crdt-diagram.png]]"'), ("yjs", '"#ff8800"')):
        text = f"---\ntype: concept\ncover: {cover}\ntags: [sync]\n---\n# {name}\n"
        (vault / "concepts" / f"{name}.md").write_text(text, encoding="utf-8")
    (vault / "concepts" / "crdt-diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (vault / "Dashboard.md").write_text(DASHBOARD, encoding="utf-8")
    assert run(vault, "index", "--no-embed")[0] == 0
    code, out = run(vault, "bases")
    assert code == 0
    assert out.splitlines() == [
        "Dashboard.md#1 (```base at line 5): Numbered (list), Table (table), Indented (list)",
        "Dashboard.md#2 (```base at line 30): View 1 (table) "
        "[error: line 33: unsupported function `nosuchfunction()`]",
        "Dashboard.md#3 (```base at line 38): Covers (cards), Table (table)",
    ]
    code, out = run(vault, "base:views", "dashboard#3")
    assert code == 0 and out.splitlines() == ["Covers\tcards", "Table\ttable"]
    code, out = run(vault, "base:views", "Dashboard.md")  # a note: its first block
    assert out.splitlines() == ["Numbered\tlist", "Table\ttable", "Indented\tlist"]
    code, out = run(vault, "base:query", "Dashboard.md#3", "--format", "paths")
    assert code == 0 and out.splitlines() == ["concepts/crdt.md", "concepts/yjs.md"]
    code, out = run(vault, "base:query", "Dashboard#1", "--view", "Table", "--format", "tsv")
    assert out.splitlines()[1:] == ["crdt\tDashboard.md", "yjs\tDashboard.md"]  # this: the note
    code, out = run(vault, "base:query", "Dashboard.md#2")
    assert code != 0 and "line 33: unsupported function `nosuchfunction()`" in out
    code, out = run(vault, "base:query", "Dashboard.md#4")
    assert code != 0 and "Dashboard.md has 3 ```base block(s), not 4" in out
    args = json.dumps({"file": "Dashboard.md#3"})
    code, out = run(vault, "call", "base_query", args)
    answer = json.loads(out)
    assert answer["layout"] == {"cardSize": 300, "image": "note.cover", "imageFit": "cover",
                                "imageAspectRatio": 1}  # fmt: skip
    covers = {r["path"]: (r.get("image"), r.get("imagePath")) for r in answer["rows"]}
    assert covers == {
        "concepts/crdt.md": ("[[crdt-diagram.png]]", "concepts/crdt-diagram.png"),
        "concepts/yjs.md": ("#ff8800", None),
    }
    args = json.dumps({"file": "Dashboard.md", "view": "Numbered"})  # the first block
    answer = json.loads(run(vault, "call", "base_query", args)[1])
    assert answer["layout"] == {"markers": "number", "separator": " / ",
                                "indentProperties": False}  # fmt: skip
