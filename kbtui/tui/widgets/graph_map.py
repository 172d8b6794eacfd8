"""The graph map panes: a note's neighbourhood drawn as a map, and the whole vault's groups.

Both ask the query layer for a neighbourhood (an envelope of nodes and edges), lay it out in
a worker (graphmap caches layouts per neighbourhood: a save that changes nothing drawn costs
no new layout) and hand it to a MapCanvas. The keys move the selection on the drawn map, so
they work the same at every terminal size.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rapidfuzz import fuzz, process
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input, Static

from kbtui.cells import cell_safe
from kbtui.graphmap.layout import layout
from kbtui.graphmap.model import Layout, MapNode, Neighbourhood, hood_from_dict
from kbtui.tui.widgets.graph_walk import GraphPane, NameField
from kbtui.tui.widgets.map_canvas import MapCanvas

MAX_DEPTH = 3
MAX_NODES = 60
MOST_NODES = 240  # Enter on "+N more" doubles the room, up to this


def hood_from(envelope: dict[str, Any]) -> Neighbourhood:
    """The query layer's answer (plain JSON: it may come from the owner process) as a model."""
    return hood_from_dict(envelope.get("map") or {})


class DrillIn(Message):
    """The overview's Enter: show this group's members on the map (the group's id is what
    the query layer takes back)."""

    def __init__(self, group_id: str) -> None:
        super().__init__()
        self.group_id = group_id


class FindField(NameField):
    """`/` on the map: a name to select (Enter), Escape gives up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close find", id="map.find_close")
    ]

    def action_close(self) -> None:
        self.value = ""
        self.display = False
        if self.parent is not None:
            self.parent.query_one(MapCanvas).focus()


class CanvasPane(GraphPane):
    """What the local map and the overview share: the canvas, a title line, moving the
    selection by direction, and finding a node by name."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move('left')", "Select left", show=False, id="map.left"),
        Binding("right,l", "move('right')", "Select right", show=False, id="map.right"),
        Binding("up,k", "move('up')", "Select above", show=False, id="map.up"),
        Binding("down,j", "move('down')", "Select below", show=False, id="map.down"),
        Binding("slash", "find", "Find", tooltip="Find a node on the map by name", id="map.find"),
        Binding("e", "edge_labels", "Edge labels", id="map.edge_labels"),
    ]
    PLACEHOLDER = ""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hood: Neighbourhood | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="map-title")
        yield MapCanvas(self.PLACEHOLDER, classes="map-canvas")
        field = FindField(placeholder="find a node: a name, then Enter", classes="map-find")
        field.display = False
        yield field

    @property
    def canvas(self) -> MapCanvas:
        return self.query_one(MapCanvas)

    def current_id(self) -> str | None:
        return self.canvas.selected

    def focus_map(self) -> None:
        self.canvas.focus()

    def action_move(self, direction: str) -> None:
        self.canvas.move(direction)

    def action_edge_labels(self) -> None:
        self.canvas.toggle_edge_labels()

    def action_find(self) -> None:
        if self.hood is None:
            return
        field = self.query_one(FindField)
        field.display = True
        field.focus()

    @on(Input.Submitted, ".map-find")
    def _find(self, event: Input.Submitted) -> None:
        event.stop()
        field = self.query_one(FindField)
        found = self.find_node(event.value)
        if found is None:
            self.notify(f"nothing on the map is called {event.value!r}", severity="warning")
            return
        field.action_close()
        self.canvas.select(found)

    def find_node(self, name: str) -> str | None:
        """A label that starts with the name, else contains it, else the closest by rapidfuzz."""
        name = name.strip().casefold()
        if not name or self.hood is None:
            return None
        labels = {n.id: n.label.casefold() for n in self.hood.nodes}
        for test in (str.startswith, str.__contains__):
            for node_id, label in labels.items():
                if test(label, name):
                    return node_id
        best = process.extractOne(name, labels, scorer=fuzz.WRatio, score_cutoff=60)
        return str(best[2]) if best else None

    @on(MapCanvas.Selected)
    def _selected(self, event: MapCanvas.Selected) -> None:
        event.stop()
        self.show_title()

    def show_title(self) -> None:
        """One line (cut short by the CSS): the map keeps every other row."""
        self.query_one(".map-title", Static).update(self.title_text())

    def title_text(self) -> Text:
        return Text()

    def node(self, node_id: str | None) -> MapNode | None:
        if self.hood is None or node_id is None:
            return None
        return next((n for n in self.hood.nodes if n.id == node_id), None)

    def selected_text(self) -> Text:
        node = self.node(self.canvas.selected)
        if node is None:
            return Text()
        text = Text("  ·  selected: ", style="dim")
        text.append(cell_safe(node.label), style="bold")
        text.append(f"  {node.type}", style="cyan")
        return text


Place = tuple[str | None, str | None, int, str | None, int]  # centre, group, depth, type, room


class MapPane(CanvasPane):
    """A note and its neighbours to depth 1-3 (or an overview group's members), drawn;
    Enter centres on the selected node."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "recentre",
            "Centre here",
            tooltip='Centre the map on the selected note; on "+N more": room for more nodes',
            id="map.centre",
        ),
        Binding("plus,equals_sign", "depth(1)", "Depth +", id="map.deeper"),
        Binding("minus", "depth(-1)", "Depth -", id="map.shallower"),
        Binding(
            "t",
            "cycle_type",
            "Type filter",
            tooltip="Keep one type of neighbour; each press the next type, then all",
            id="map.type",
        ),
        Binding("backspace", "previous", "Previous centre", show=False, id="map.previous"),
    ]
    PLACEHOLDER = "Open a note and press g, or drill into a group under Overview."

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.centre: str | None = None
        self.group: str | None = None  # an overview group's members instead of a centre
        self.depth = 1
        self.room = MAX_NODES  # nodes at most on this map
        self.type_filter: str | None = None
        self.types: list[str] = []  # the types on the unfiltered map, for `t`
        self.trail: list[tuple[str | None, str | None]] = []  # earlier (centre, group)
        self.pending = False  # centred while another tab was shown: draw when shown
        self.shown: Place | None = None  # what the canvas shows

    def place(self) -> Place:
        return (self.centre, self.group, self.depth, self.type_filter, self.room)

    def centre_on(self, entity_id: str, remember: bool = True, load: bool = True) -> None:
        """Centre on an entity; with `load` False only once the tab is shown (show_pending)."""
        self._go(entity_id, None, remember, load)

    def show_group(self, group_id: str) -> None:
        """An overview group (its id as the overview gave it): its most linked members."""
        self._go(None, group_id, True, True)

    def _go(self, centre: str | None, group: str | None, remember: bool, load: bool) -> None:
        here = (self.centre, self.group)
        if here == (centre, group) and not self.pending and self.shown is not None:
            return
        if remember and here != (None, None) and here != (centre, group):
            self.trail.append(here)
        if here != (centre, group):
            self.type_filter, self.types, self.room = None, [], MAX_NODES
        self.centre, self.group = centre, group
        self.pending = not load
        if load:
            self.reload()

    def show_pending(self) -> None:
        if self.pending:
            self.pending = False
            self.reload()

    def refresh_map(self) -> None:
        """The index changed: ask again if a map is shown (a save may add or drop edges)."""
        if self.shown is not None and not self.pending:
            self.reload()

    def current_id(self) -> str | None:
        node = self.node(self.canvas.selected)
        return node.id if node is not None and not node.more else None

    def reload(self) -> None:
        """Ask again for the current place (the selection is kept if still on the map)."""
        if self.centre is None and self.group is None:
            return
        if self.shown is None:
            self.canvas.say("drawing…")
        # The same place asked again (a save, another depth): nodes start where they were.
        drawn = self.canvas.map_layout
        same = self.shown is not None and self.shown[:2] == self.place()[:2]
        self.load(self.place(), self.canvas.selected, drawn if same else None)

    @work(thread=True, exclusive=True, group="graph-map")
    def load(self, place: Place, keep: str | None, previous: Layout | None = None) -> None:
        centre, group, depth, type_filter, room = place
        args: dict[str, Any] = {"maxNodes": room}
        if centre is not None:
            args.update(centre=centre, depth=depth)
            if type_filter:
                args["types"] = [type_filter]
        else:
            args["group"] = group
        found = self.kb.tool("app_graph_map", args)
        drawn = layout(hood_from(found), previous=previous) if found.get("ok") else None
        self.app.call_from_thread(self._show, place, found, drawn, keep)

    def _show(
        self, place: Place, found: dict[str, Any], drawn: Layout | None, keep: str | None
    ) -> None:
        if place != self.place():
            return  # a later question is on its way
        if drawn is None:
            self.hood, self.shown = None, None
            self.canvas.say(Text(f"✗ {found.get('message')}", style="bold red"))
            self.show_title()
            return
        same_place = self.shown is not None and self.shown[:2] == place[:2]
        self.hood, self.shown = drawn.hood, place
        if self.type_filter is None:
            self.types = sorted({n.type for n in drawn.hood.nodes if n.type and not n.more})
        # The selection stays where it was on a refresh of the same place (a save, a new
        # depth or filter); a new centre starts selected.
        self.canvas.show(drawn, keep if same_place else self.centre)

    def title_text(self) -> Text:
        if self.hood is None:
            return Text(self.centre or self.group or "", style="dim")
        centre = self.node(self.centre)
        if centre is None:  # a group's members
            kind = (self.group or "").partition(":")[2]
            text = Text(f"every {kind}", style="bold")
            text.append("  ·  most linked first", style="dim")
        else:
            text = Text(cell_safe(centre.label), style="bold")
            text.append(f"  {centre.type}", style="cyan")
            text.append(f"  ·  depth {self.depth}", style="dim")
        if self.type_filter:
            text.append(f"  ·  only {self.type_filter}", style="yellow")
        text.append(f"  ·  {len(self.hood.nodes)} nodes", style="dim")
        return text + self.selected_text()

    def action_recentre(self) -> None:
        """Enter: centre on the selected note; on "+N more", make room for more nodes."""
        node = self.node(self.canvas.selected)
        if node is None:
            return
        if node.more:
            if self.room < MOST_NODES:
                self.room = min(MOST_NODES, self.room * 2)
                self.reload()
        elif node.id != self.centre:
            self.centre_on(node.id)

    def action_previous(self) -> None:
        if self.trail:
            centre, group = self.trail.pop()
            self._go(centre, group, False, True)

    def action_depth(self, step: int) -> None:
        depth = min(MAX_DEPTH, max(1, self.depth + step))
        if depth != self.depth and self.centre is not None:
            self.depth = depth
            self.reload()

    def action_cycle_type(self) -> None:
        """None -> each type on the map in turn -> None."""
        if not self.types or self.centre is None:
            return
        order: list[str | None] = [None, *self.types]
        self.type_filter = order[(order.index(self.type_filter) + 1) % len(order)]
        self.reload()


class OverviewPane(CanvasPane):
    """The whole vault as groups sized by their notes and the links between them; Enter
    drills into the selected group (its own map)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "drill", "Drill in", id="overview.drill"),
    ]
    PLACEHOLDER = "drawing the vault's groups…"

    def current_id(self) -> str | None:
        return None  # a group is no note: `o` opens nothing here

    @work(thread=True, exclusive=True, group="graph-overview")
    def load(self) -> None:
        found = self.kb.tool("app_graph_map", {})
        drawn = layout(hood_from(found)) if found.get("ok") else None
        self.app.call_from_thread(self._show, found, drawn)

    def _show(self, found: dict[str, Any], drawn: Layout | None) -> None:
        if drawn is None:
            self.hood = None
            self.canvas.say(Text(f"✗ {found.get('message')}", style="bold red"))
            return
        self.hood = drawn.hood
        self.canvas.show(drawn, self.canvas.selected)

    def title_text(self) -> Text:
        if self.hood is None:
            return Text()
        notes = int(sum(n.weight for n in self.hood.nodes))
        text = Text("The vault", style="bold")
        text.append(f"  ·  {len(self.hood.nodes)} groups, {notes} notes", style="dim")
        text.append("  ·  Enter drills in", style="dim")
        return text + self.selected_text()

    def action_drill(self) -> None:
        selected = self.canvas.selected
        if selected is not None:
            self.post_message(DrillIn(selected))
