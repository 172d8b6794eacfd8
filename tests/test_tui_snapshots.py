"""SVG snapshots of every screen and main state, on a copy of vault_example.

Regenerate after an intended change with `pytest tests/test_tui_snapshots.py --snapshot-update`
and look at the SVGs (tests/__snapshots__/test_tui_snapshots/) before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from kbtui.embed import HashEmbedder
from kbtui.runtime.owner import OwnerUnavailable
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote, ShowGraph
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.widgets.results import EntityList
from tests.conftest import copy_vault, open_runtime
from tests.test_tui_base_blocks import add_dashboard
from tests.test_tui_base_layouts import EMBEDDER, TEAM, add_layouts
from tests.test_tui_bases import CONCEPTS
from tests.test_tui_writing import add_templates
from tests.tui_helpers import SIZE, make_app, settle, type_text

Snap = Callable[..., bool]
KEPANO = Path("/work/shared/data/vaults/kepano")


Step = Message | str | Callable[[Any], object]


def shot(snap_compare: Snap, app: KbApp, *steps: Step, size: tuple[int, int] = SIZE) -> bool:
    """Run the steps (a message to post, `type:<text>`, a key, or a call on the app),
    settling after each, then compare the screen with the stored SVG."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for step in steps:
            if isinstance(step, Message):
                pilot.app.post_message(step)
            elif callable(step):
                step(pilot.app)
            elif step.startswith("type:"):
                await type_text(pilot, step[5:])
            else:
                await pilot.press(step)
            await settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=run_before)


def test_start_lists_notes(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """No query yet: every note by title, filters empty, the live status at the bottom."""
    assert shot(snap_compare, make_app(runtime))


def test_search_results(snap_compare: Snap, runtime: VaultRuntime) -> None:
    assert shot(snap_compare, make_app(runtime), "type:gesture model")


def test_note_view(snap_compare: Snap, runtime: VaultRuntime) -> None:
    assert shot(snap_compare, make_app(runtime), OpenNote("person:andrei_clodius"))


def test_note_obsidian_panels(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """`O` and `B`: the note's outline and the files linking to it, above its other panels."""
    steps = (OpenNote("project:atlas_sync"), "O", "B")
    assert shot(snap_compare, make_app(runtime), *steps)


def test_note_not_found(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """A tool error is shown in the view and as a notification, never a traceback."""
    assert shot(snap_compare, make_app(runtime), OpenNote("person:nobody_here"))


def test_graph_neighbours(snap_compare: Snap, runtime: VaultRuntime) -> None:
    entity = "project:vector_watch_project"
    assert shot(snap_compare, make_app(runtime), OpenNote(entity), ShowGraph(entity))


def test_graph_map_80x24(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """g on a person's note: the map fitted to a small terminal, the centre selected."""
    app = make_app(runtime)
    assert shot(snap_compare, app, OpenNote("person:andrei_clodius"), "g", size=(80, 24))


def test_graph_map_200x60(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """The same map on a big terminal, a neighbour found and selected by keys."""
    app = make_app(runtime)
    steps = (OpenNote("person:andrei_clodius"), "g", "slash", "type:tidepool", "enter")
    assert shot(snap_compare, app, *steps, size=(200, 60))


def test_graph_overview(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """The whole vault as groups sized by notes, the links between groups."""
    assert shot(snap_compare, make_app(runtime), ShowGraph(None, "overview"), size=(160, 48))


@pytest.mark.skipif(not KEPANO.is_dir(), reason="kepano's vault is not here")
def test_graph_map_kepano(snap_compare: Snap, tmp_path: Path) -> None:
    """A real vault's map: Steph Ango's reference note, two hops out, edge labels on."""
    vault = copy_vault(tmp_path / "kepano", KEPANO)
    runtime = open_runtime(vault, HashEmbedder())
    try:
        steps = (ShowGraph("reference:steph_ango", "map"), "plus", "e")
        assert shot(snap_compare, make_app(runtime), *steps, size=(160, 48))
    finally:
        runtime.close()


def test_path_result(snap_compare: Snap, runtime: VaultRuntime) -> None:
    # A pair with one shortest path and one relationship per hop: the picture cannot vary.
    steps = ("type:Local-first software", "enter", "type:Kestrel dashboard check-in", "enter")
    assert shot(snap_compare, make_app(runtime), ShowGraph(None, "path"), *steps)


def test_entities_by_type(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """From "all" down to the most common type."""
    assert shot(snap_compare, make_app(runtime), ShowGraph(None, "entities"), "down")


def test_duplicates_review(snap_compare: Snap, runtime: VaultRuntime) -> None:
    assert shot(snap_compare, make_app(runtime), ShowGraph(None, "duplicates"))


def test_merge_confirmation(snap_compare: Snap, runtime: VaultRuntime) -> None:
    assert shot(snap_compare, make_app(runtime), ShowGraph(None, "duplicates"), "m")


def test_help(snap_compare: Snap, runtime: VaultRuntime) -> None:
    assert shot(snap_compare, make_app(runtime), "f1")


def test_index_report_lists_broken_notes(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """ctrl+r re-indexes and says which notes could not be read, and why."""
    assert shot(snap_compare, make_app(runtime), "ctrl+r")


def test_index_held_by_another_process(snap_compare: Snap) -> None:
    """The error state: the opener fails the way Store does when another process holds the
    file (the real lock is exercised in test_tui_flows)."""

    def opener(vault: Path | None) -> Any:
        raise OwnerUnavailable(
            "the index /home/me/notes/.kbtui/index.duckdb is open in another process (pid 4242 "
            "last owned it) that does not share it (an older kbtui, a DuckDB shell?); close it "
            "and retry"
        )

    assert shot(snap_compare, KbApp(opener=opener, vault_name="notes"))


def test_base_table(snap_compare: Snap, tui_vault: Path) -> None:
    """A .base found by search opens as a table, its views as tabs (the README's picture)."""
    (tui_vault / "Concepts.base").write_text(CONCEPTS, encoding="utf-8")
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        assert shot(snap_compare, make_app(runtime), "type:concepts base", "enter")
    finally:
        runtime.close()


def open_base(base: str, view: str) -> Callable[[Any], object]:
    """The base screen on a view, as the palette or an embed opens it."""
    return lambda app: app.push_screen(BaseScreen(base, view))


def test_base_list(snap_compare: Snap, tui_vault: Path) -> None:
    """A list view: a bullet per note, its other properties after it (not a table)."""
    add_layouts(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        assert shot(snap_compare, make_app(runtime), open_base("Layouts", "List"), size=(80, 24))
    finally:
        runtime.close()


def test_base_cards(snap_compare: Snap, tui_vault: Path) -> None:
    """A cards view: a grid of cards (the cover named: alt text, a colour swatch), the
    second card selected with an arrow key."""
    add_layouts(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        steps = (open_base("Layouts", "Cards"), "right")
        assert shot(snap_compare, make_app(runtime), *steps, size=(80, 24))
    finally:
        runtime.close()


def test_base_cards_grouped(snap_compare: Snap, tui_vault: Path) -> None:
    add_layouts(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        assert shot(snap_compare, make_app(runtime), open_base("Layouts", "By type"))
    finally:
        runtime.close()


def test_note_with_base_embeds(snap_compare: Snap, tui_vault: Path) -> None:
    """A note embedding two views: each drawn under its line, the first 5 rows and how many
    more (the README's picture of an embed)."""
    (tui_vault / "People.base").write_text(EMBEDDER, encoding="utf-8")
    (tui_vault / "Team.md").write_text(TEAM, encoding="utf-8")
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        assert shot(snap_compare, make_app(runtime), OpenNote("note:team"))
    finally:
        runtime.close()


def _blank_cluster(app: KbApp) -> None:
    """(Clusters no longer depend on the index's order: tests/test_cluster_order.py; this
    blanking can go with a regenerated snapshot.)"""
    app.screen.query_one("#note-cluster", Static).update("")


def _blank_related(app: KbApp) -> None:
    """Related passages wait for the note's embedding, which the indexer may not have done."""
    app.screen.query_one("#note-related", EntityList).show([], empty="")


def test_note_with_base_blocks(snap_compare: Snap, tui_vault: Path) -> None:
    """A note's ```base blocks drawn where they stand: a numbered list with its separator and
    two views as tabs, a broken block's error in place, cards whose cover is a vault file."""
    add_dashboard(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        steps = (OpenNote("note:dashboard"), _blank_cluster, _blank_related)
        assert shot(snap_compare, make_app(runtime), *steps)
    finally:
        runtime.close()


def test_note_with_query_blocks(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """vault_example's Dashboards/Tasks dashboard.md: its ```dataview TABLE drawn as a table,
    its ```tasks block as a task list under its group headings (the README's picture of
    dashboards, screenshots/dashboards.png)."""
    steps = (OpenNote("dashboard:tasks_dashboard"), _blank_cluster, _blank_related)
    assert shot(snap_compare, make_app(runtime), *steps)


def test_base_list_indented(snap_compare: Snap, tui_vault: Path) -> None:
    """A list view with no markers, each property on its own line under the note (a base
    block's view opened whole, `this` the note holding it)."""
    add_dashboard(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        steps = (open_base("Dashboard.md#1", "Indented"),)
        assert shot(snap_compare, make_app(runtime), *steps, size=(80, 24))
    finally:
        runtime.close()


# -- writing (issue 40) ----------------------------------------------------------------------
def _write(runtime: VaultRuntime, source: str, path: str, text: str) -> None:
    """A note appended to as `source` writes (an assistant through kbtui mcp, the CLI)."""
    with acting_as(Origin(source)):
        done = runtime.call("note_write", {"path": path, "mode": "append", "content": text})
    assert done["ok"], done


def _pick_template(name: str) -> Callable[[KbApp], object]:
    def pick(app: KbApp) -> None:
        templates = app.screen.query_one("#new-templates", OptionList)
        templates.focus()
        ids = [templates.get_option_at_index(i).id for i in range(templates.option_count)]
        templates.highlighted = ids.index(f"t:{name}")

    return pick


def test_new_note_with_template_picker(snap_compare: Snap, tui_vault: Path) -> None:
    """ctrl+n: a title, the folder Obsidian's settings give (its matches listed), the
    Templates plugin's templates, one picked."""
    add_templates(tui_vault)
    runtime = open_runtime(tui_vault, HashEmbedder())
    try:
        steps = ("ctrl+n", "type:Weekly sync", _pick_template("Meeting"))
        assert shot(snap_compare, make_app(runtime), *steps)
    finally:
        runtime.close()


def test_history_diff(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """h in a note: its versions by who wrote (an assistant's marked), and the diff from the
    first one kbtui saw to the note now."""
    _write(runtime, "mcp:claude", "concepts/crdt.md", "Yjs and Automerge are two CRDT libraries.")
    _write(runtime, "cli", "concepts/crdt.md", "- [ ] compare their sync protocols")
    steps = (OpenNote("concept:crdt"), "h", "down", "down", "enter")
    assert shot(snap_compare, make_app(runtime), *steps)


def test_changes_screen(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """f2: the latest writes grouped by who wrote, the assistant's first (its write is the
    newest) in magenta, and the diff of the one highlighted."""
    _write(runtime, "tui", "Home.md", "- [[crdt]] reading list")
    _write(runtime, "cli", "projects/atlas_sync.md", "Next: a relay in Rust.")
    _write(runtime, "mcp:claude", "concepts/crdt.md", "Yjs and Automerge are two CRDT libraries.")
    _write(runtime, "mcp:claude", "people/daniel_cho.md", "Maintains the CRDT notes.")
    assert shot(snap_compare, make_app(runtime), "f2", "enter")
