"""The graph view: neighbours, path finder, entities by type, duplicates review, the map of
a note's neighbourhood and the overview of the whole vault; `u`: the vault's unresolved links,
orphans and dead ends."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, TabbedContent, TabPane

from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.screens.vault_links import VaultLinksScreen
from kbtui.tui.widgets.graph_browse import DuplicatesPane, EntitiesPane
from kbtui.tui.widgets.graph_map import DrillIn, MapPane, OverviewPane
from kbtui.tui.widgets.graph_walk import GraphPane, NeighboursPane, PathPane

TABS = ("neighbours", "path", "entities", "duplicates", "map", "overview")


class GraphScreen(KbScreen):
    """Tabs 1-6; Enter centres the graph on an entity, o opens its note."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="graph.back"),
        Binding("o", "open_note", "Open note", id="graph.open"),
        Binding("u", "loose_ends", "Unresolved/orphans", show=False, id="graph.loose_ends"),
        # Before the focused widget (priority): an empty Path field leaves them (NameField).
        *(
            Binding(
                str(n),
                f"tab('{tab}')",
                tab.title(),
                show=False,
                priority=True,
                id=f"graph.tab_{tab}",
            )
            for n, tab in enumerate(TABS, 1)
        ),
    ]

    def __init__(self, entity_id: str | None = None, tab: str = "neighbours") -> None:
        super().__init__()
        self.entity_id = entity_id
        self.initial_tab = tab if tab in TABS else "neighbours"
        self._loaded: set[str] = set()

    def compose_body(self) -> ComposeResult:
        with TabbedContent(initial=self.initial_tab, id="graph-tabs"):
            with TabPane("1 Neighbours", id="neighbours"):
                yield NeighboursPane(id="pane-neighbours")
            with TabPane("2 Path", id="path"):
                yield PathPane(id="pane-path")
            with TabPane("3 Entities", id="entities"):
                yield EntitiesPane(id="pane-entities")
            with TabPane("4 Duplicates", id="duplicates"):
                yield DuplicatesPane(id="pane-duplicates")
            with TabPane("5 Map", id="map"):
                yield MapPane(id="pane-map")
            with TabPane("6 Overview", id="overview"):
                yield OverviewPane(id="pane-overview")

    def on_mount(self) -> None:
        if self.entity_id is not None:
            self.centre_on(self.entity_id, self.initial_tab)
        self._activated(self.initial_tab)

    def centre_on(self, entity_id: str, tab: str = "neighbours") -> None:
        """Show an entity's neighbours, as a tree or (tab "map") a map, and make it the path
        finder's start. The map is drawn only when its tab is shown."""
        self.entity_id = entity_id
        self.query_one(NeighboursPane).centre_on(entity_id)
        self.query_one(PathPane).prefill(entity_id)
        self.query_one(MapPane).centre_on(entity_id, load=tab == "map")
        self.action_tab(tab if tab in ("neighbours", "map") else "neighbours")

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self._activated(event.pane.id)

    def _activated(self, tab: str) -> None:
        """Load a tab when first shown and put the focus where its keys work."""
        start_filled = bool(self.query_one("#path-from", Input).value)
        focus = {
            "neighbours": "#nb-tree",
            "path": "#path-to" if start_filled else "#path-from",
            "entities": "#entity-types",
            "duplicates": "#dup-table",
            "map": "#pane-map .map-canvas",
            "overview": "#pane-overview .map-canvas",
        }[tab]
        if tab not in self._loaded:
            self._loaded.add(tab)
            if tab == "entities":
                self.query_one(EntitiesPane).load()
            elif tab == "duplicates":
                self.query_one(DuplicatesPane).load()
            elif tab == "overview":
                self.query_one(OverviewPane).load()
        if tab == "map":
            self.query_one(MapPane).show_pending()
        self.query_one(focus).focus()

    @on(DrillIn)
    def _drill_in(self, event: DrillIn) -> None:
        """A group of the overview: its own map."""
        self.query_one(MapPane).show_group(event.group_id)
        self.action_tab("map")

    def action_loose_ends(self) -> None:
        """Unresolved links, orphans and dead ends: the vault's loose ends (Obsidian's)."""
        self.app.push_screen(VaultLinksScreen())

    def action_back(self) -> None:
        self.dismiss()

    def action_open_note(self) -> None:
        tab = self.query_one(TabbedContent).active
        entity_id = self.query_one(f"#pane-{tab}", GraphPane).current_id()
        if entity_id:
            self.post_message(OpenNote(entity_id))
        elif tab == "overview":
            self.notify("A group is not a note: Enter shows its notes on the map.")

    def index_changed(self) -> None:
        if self.entity_id is not None:
            self.query_one(NeighboursPane).load(self.entity_id)
        self.query_one(MapPane).refresh_map()  # the selection stays where it is
        if "overview" in self._loaded:
            self.query_one(OverviewPane).load()
