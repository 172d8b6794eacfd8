"""The graph map in the TUI, driven by keys and the mouse on a copy of vault_example (real
DuckDB index, real runtime): walking from a person to a project, depth, type filter, find,
clicks, resize, the overview's drill-in, and a save while the map is open."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from kbtui.indexing.watcher import ChangeBatch
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote, ShowGraph
from kbtui.tui.screens.graph import GraphScreen
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.widgets.graph_map import MapPane, OverviewPane
from kbtui.tui.widgets.map_canvas import MapCanvas
from tests.tui_helpers import SIZE, make_app, settle, type_text

pytestmark = pytest.mark.anyio  # async tests run on anyio's pytest plugin (asyncio backend)

PERSON = "person:andrei_clodius"
PROJECT = "project:vector_watch_project"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def open_map(pilot: Pilot[None], app: KbApp, entity_id: str) -> MapPane:
    """The note, then `g`: the map tab centred on it."""
    app.post_message(OpenNote(entity_id))
    await settle(pilot)
    await pilot.press("g")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, GraphScreen)
    pane = screen.query_one(MapPane)
    assert pane.hood is not None and pane.centre == entity_id
    return pane


def step_towards(canvas: MapCanvas, target: str, tried: set[tuple[str, str]]) -> str:
    """The key a person would press: towards the target's label on screen, the longer axis
    first (a cell is about twice as tall as it is wide), the other if that one led nowhere."""
    frame = canvas.frame()
    assert frame is not None and canvas.selected is not None
    (c0, r0, l0), (c1, r1, l1) = frame.boxes[canvas.selected], frame.boxes[target]
    dx, dy = (c1 + l1 / 2) - (c0 + l0 / 2), 2 * (r1 - r0)
    across = "l" if dx > 0 else "h"
    along = "j" if dy > 0 else "k"
    keys = (across, along) if abs(dx) >= abs(dy) else (along, across)
    for key in keys:
        if (canvas.selected, key) not in tried:
            return key
    return keys[0]


async def walk(pilot: Pilot[None], pane: MapPane, target: str, steps: int = 16) -> list[str]:
    pressed: list[str] = []
    tried: set[tuple[str, str]] = set()
    while pane.canvas.selected != target and len(pressed) < steps:
        key = step_towards(pane.canvas, target, tried)
        tried.add((str(pane.canvas.selected), key))
        await pilot.press(key)
        await settle(pilot)
        pressed.append(key)
    return pressed


async def test_a_person_to_a_project_by_keys(runtime: VaultRuntime) -> None:
    """g on a person's note draws its map; hjkl walk to a project the person works on, Enter
    centres the map there, o opens the project's note."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_map(pilot, app, PERSON)
        assert pane.canvas.selected == PERSON  # the centre starts selected
        assert PROJECT in {n.id for n in pane.hood.nodes}  # type: ignore[union-attr]
        pressed = await walk(pilot, pane, PROJECT)
        assert pane.canvas.selected == PROJECT, pressed
        assert "Vector Watch" in str(pane.query_one(".map-title").render())
        await pilot.press("enter")
        await settle(pilot)
        assert pane.centre == PROJECT and pane.canvas.selected == PROJECT
        assert PERSON in {n.id for n in pane.hood.nodes}  # type: ignore[union-attr]
        await pilot.press("backspace")  # back to the person
        await settle(pilot)
        assert pane.centre == PERSON
        await walk(pilot, pane, PROJECT)
        await pilot.press("o")
        await settle(pilot)
        note = app.screen
        assert isinstance(note, NoteScreen) and note.entity_id == PROJECT


async def test_depth_type_filter_and_find(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_map(pilot, app, PERSON)
        assert pane.hood is not None
        first = {n.id for n in pane.hood.nodes}
        await pilot.press("plus")
        await settle(pilot)
        assert pane.depth == 2 and pane.hood is not None
        assert first < {n.id for n in pane.hood.nodes}  # depth 2 reaches further
        await pilot.press("minus")
        await settle(pilot)
        assert pane.depth == 1 and {n.id for n in pane.hood.nodes} == first
        await pilot.press("minus")  # depth 1 is the least
        assert pane.depth == 1

        shown_type = pane.types[0]
        await pilot.press("t")
        await settle(pilot)
        assert pane.type_filter == shown_type
        others = {n.type for n in pane.hood.nodes if n.id != PERSON and not n.more}
        assert others == {shown_type}
        for _ in pane.types:  # round the types, back to all of them
            await pilot.press("t")
            await settle(pilot)
        assert pane.type_filter is None and {n.id for n in pane.hood.nodes} == first

        await pilot.press("slash")
        await type_text(pilot, "tidepool")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.canvas.selected == "project:tidepool_app"
        assert app.focused is pane.canvas


async def test_a_click_selects_the_node_under_the_mouse(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_map(pilot, app, PERSON)
        frame = pane.canvas.frame()
        assert frame is not None
        target = next(node_id for node_id in frame.boxes if node_id != PERSON)
        col, row, length = frame.boxes[target]
        await pilot.click(MapCanvas, offset=(col + length // 2, row))
        await settle(pilot)
        assert pane.canvas.selected == target


async def test_the_map_is_redrawn_to_the_new_size(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_map(pilot, app, PERSON)
        small = pane.canvas.frame()
        assert small is not None and len(small.lines) == pane.canvas.content_size.height
        await pilot.resize_terminal(200, 60)
        await settle(pilot)
        big = pane.canvas.frame()
        assert big is not None and len(big.lines) == pane.canvas.content_size.height
        assert len(big.lines) > len(small.lines)
        assert max(c + n for c, _, n in big.boxes.values()) > 80  # it uses the new width
        assert big.boxes.keys() == small.boxes.keys()  # every label still drawn


async def test_the_overview_drills_into_a_group(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(ShowGraph(None, "overview"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        overview = screen.query_one(OverviewPane)
        assert overview.hood is not None and len(overview.hood.nodes) > 1
        biggest = max(overview.hood.nodes, key=lambda n: n.weight)
        assert biggest.weight > 1  # groups are sized by their notes
        await pilot.press("slash")
        await type_text(pilot, biggest.type)
        await pilot.press("enter")
        await settle(pilot)
        assert overview.canvas.selected == biggest.id
        await pilot.press("enter")
        await settle(pilot)
        pane = screen.query_one(MapPane)
        assert screen.query_one(TabbedContent).active == "map"
        assert pane.group == biggest.id and pane.hood is not None
        members = [n for n in pane.hood.nodes if not n.more]
        assert len(members) > 1 and {n.type for n in members} == {biggest.type}
        first = pane.canvas.selected
        await pilot.press("enter")  # a member: its own neighbourhood
        await settle(pilot)
        assert pane.centre == first and pane.group is None
        await pilot.press("backspace")  # back to the group
        await settle(pilot)
        assert pane.group == biggest.id


async def test_a_save_updates_the_open_map_and_keeps_the_selection(
    runtime: VaultRuntime, tui_vault: Path
) -> None:
    """A link added to the centre note while its map is open: the new neighbour and its
    edge appear, a neighbour's new title is its new label, the selected node stays selected."""
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_map(pilot, app, PERSON)
        assert pane.hood is not None
        assert "project:kestrel_dashboard" not in {n.id for n in pane.hood.nodes}
        await pilot.press("slash")
        await type_text(pilot, "tidepool")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.canvas.selected == "project:tidepool_app"
        was = dict(pane.canvas.map_layout.pos)  # type: ignore[union-attr]

        person = tui_vault / "people" / "andrei_clodius.md"
        person.write_text(person.read_text() + "\nNow also on [[kestrel_dashboard]].\n")
        project = tui_vault / "projects" / "tidepool_app.md"
        text = project.read_text()
        old_title = next(line for line in text.splitlines() if line.startswith("title:"))
        project.write_text(text.replace(old_title, "title: Tidepool Renamed", 1))
        runtime.worker.submit(
            ChangeBatch(paths=("people/andrei_clodius.md", "projects/tidepool_app.md"))
        )
        assert runtime.worker.wait_idle(30)
        app.poll_status()
        await settle(pilot)

        assert pane.hood is not None
        ids = {n.id for n in pane.hood.nodes}
        assert "project:kestrel_dashboard" in ids
        assert any(
            {e.source, e.target} == {PERSON, "project:kestrel_dashboard"} for e in pane.hood.edges
        )
        assert pane.node("project:tidepool_app").label == "Tidepool Renamed"  # type: ignore[union-attr]
        assert pane.canvas.selected == "project:tidepool_app"
        frame = pane.canvas.frame()
        assert frame is not None and "project:kestrel_dashboard" in frame.boxes
        # The picture changes where the graph did: the other nodes stay about where they were
        # (mean shift 0.12 of the square here; ~0.65 when laid out afresh).
        now = pane.canvas.map_layout.pos  # type: ignore[union-attr]
        kept = [key for key in was if key in now]
        shift = sum(abs(now[k][0] - was[k][0]) + abs(now[k][1] - was[k][1]) for k in kept)
        assert len(kept) >= len(was) - 1 and shift / len(kept) < 0.25


async def test_enter_on_more_makes_room_for_the_rest(runtime: VaultRuntime) -> None:
    """Depth 2 around a busy person fills the map: Enter on its "+N more" node asks again with
    twice the room, and notes left out before are drawn."""
    app = make_app(runtime)
    async with app.run_test(size=(200, 60)) as pilot:
        pane = await open_map(pilot, app, PERSON)
        await pilot.press("plus")
        await settle(pilot)
        assert pane.hood is not None
        before = {n.id for n in pane.hood.nodes if not n.more}
        more = [n for n in pane.hood.nodes if n.more]
        assert more and len(pane.hood.nodes) == 60  # full, with some left out
        pane.canvas.select(max(more, key=lambda n: n.more).id)
        await pilot.press("enter")
        await settle(pilot)
        after = {n.id for n in pane.hood.nodes if not n.more}
        assert pane.centre == PERSON and before < after and len(after) > 60
        assert f"{len(pane.hood.nodes)} nodes" in str(pane.query_one(".map-title").render())
