"""Graph panes for tending the graph: entities by type, and the duplicates review with a
merge that only happens after the user confirms it."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.messages import ShowGraph
from kbtui.tui.widgets.graph_walk import GraphPane
from kbtui.tui.widgets.results import EntityList, entity_option

ENTITY_PAGE = 1000
DUPLICATE_THRESHOLD = 0.8
DUPLICATE_COLUMNS = (("entity", 34), ("looks like", 34), ("similarity", 10), ("matched names", 36))


class EntitiesPane(GraphPane):
    """Types with counts on the left; the highlighted type's entities on the right."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield EntityList(id="entity-types")
            yield EntityList(id="entity-list")

    def on_mount(self) -> None:
        self.query_one("#entity-types").border_title = "Types"
        self.query_one("#entity-list").border_title = "Entities"

    def current_id(self) -> str | None:
        return self.query_one("#entity-list", EntityList).current_id

    @work(thread=True, exclusive=True, group="entity-types")
    def load(self) -> None:
        facets = self.kb.tool("app_facets", {"tag_limit": 1, "folder_limit": 1})
        self.app.call_from_thread(self._show_types, facets)

    def _show_types(self, facets: dict[str, Any]) -> None:
        if not facets.get("ok"):
            self.kb.report_failure(facets)
            return
        options = [Option(Text(f"all ({sum(t['count'] for t in facets['types'])})"), id="")]
        for t in facets["types"]:
            line = Text(str(t["name"]), style="bold cyan")
            line.append(f"  {t['count']}", style="dim")
            options.append(Option(line, id=str(t["name"])))
        self.query_one("#entity-types", EntityList).show(options)

    @on(EntityList.OptionHighlighted, "#entity-types")
    def _type_highlighted(self, event: EntityList.OptionHighlighted) -> None:
        event.stop()
        self.load_entities(event.option.id or None)

    @on(EntityList.OptionSelected, "#entity-types")
    def _type_selected(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        self.query_one("#entity-list").focus()

    @work(thread=True, exclusive=True, group="entity-list")
    def load_entities(self, entity_type: str | None) -> None:
        args: dict[str, Any] = {"limit": ENTITY_PAGE}
        if entity_type:
            args["type"] = entity_type
        page = self.kb.tool("app_list_entities", args)
        self.app.call_from_thread(self._show_entities, page)

    def _show_entities(self, page: dict[str, Any]) -> None:
        if not page.get("ok"):
            self.kb.report_failure(page)
            return
        listing = self.query_one("#entity-list", EntityList)
        listing.border_title = f"Entities ({page['total']})"
        rows = page["entities"]
        listing.show(
            (entity_option(e, f"{e['outgoing']} out · {e['incoming']} in") for e in rows),
            empty="no entities",
        )

    @on(EntityList.OptionSelected, "#entity-list")
    def _entity_selected(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(ShowGraph(event.option.id))


class DuplicatesPane(GraphPane):
    """Pairs that look like one thing; `m` asks which to keep, then merges."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("m", "merge", "Merge pair…", id="graph.merge")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pairs: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static("Looking for duplicates…", id="dup-info")
        yield DataTable(id="dup-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#dup-table", DataTable)
        for label, width in DUPLICATE_COLUMNS:  # fixed: no re-layout as rows arrive
            table.add_column(label, width=width)

    def current_id(self) -> str | None:
        pair = self.current_pair()
        return None if pair is None else str(pair["entity1"]["id"])

    def current_pair(self) -> dict[str, Any] | None:
        row = self.query_one("#dup-table", DataTable).cursor_row
        return self.pairs[row] if 0 <= row < len(self.pairs) else None

    @work(thread=True, exclusive=True, group="duplicates")
    def load(self) -> None:
        found = self.kb.tool("kg_find_duplicates", {"threshold": DUPLICATE_THRESHOLD})
        self.app.call_from_thread(self._show, found)

    def _show(self, found: dict[str, Any]) -> None:
        info = self.query_one("#dup-info", Static)
        table = self.query_one("#dup-table", DataTable)
        table.clear()
        if not found.get("ok"):
            info.update(Text(f"✗ {found.get('message')}", style="bold red"))
            self.pairs = []
            return
        self.pairs = list(found["duplicates"])
        for pair in self.pairs:
            a, b = pair["entity1"], pair["entity2"]
            table.add_row(
                Text(cell_safe(f"{a['name']} ({a['type']})")),
                Text(cell_safe(f"{b['name']} ({b['type']})")),
                f"{pair['similarity']:.2f}",
                Text(cell_safe(" ≈ ".join(pair.get("matched") or [])), style="dim"),
            )
        info.update(
            Text(
                f"{len(self.pairs)} possible duplicate pairs (similarity ≥ {DUPLICATE_THRESHOLD}). "
                "Select a pair and press m to merge; you choose which one to keep."
                if self.pairs
                else "No duplicates found."
            )
        )

    def action_merge(self) -> None:
        from kbtui.tui.screens.modals import ConfirmMerge

        pair = self.current_pair()
        if pair is None:
            return

        def chosen(target: str | None) -> None:
            if target is None:
                self.app.notify("Merge cancelled: nothing changed.")
                return
            a, b = pair["entity1"]["id"], pair["entity2"]["id"]
            self.merge(target, b if target == a else a)

        self.app.push_screen(ConfirmMerge(pair["entity1"], pair["entity2"]), chosen)

    @work(thread=True, exclusive=True, group="merge")
    def merge(self, target: str, source: str) -> None:
        result = self.kb.tool(
            "kg_merge_entities", {"targetEntityId": target, "sourceEntityIds": [source]}
        )
        if result.get("ok"):
            self.app.call_from_thread(
                self.app.notify, str(result.get("message") or f"Merged {source} into {target}")
            )
        else:
            self.app.call_from_thread(self.kb.report_failure, result)
        self.app.call_from_thread(self.load)
