"""Graph panes for walking: an entity's neighbours by relationship type and direction, and
the shortest path between two entities named the way the user knows them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static, Tree
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tools.contracts.kb import ENTITY_ID_PATTERN
from kbtui.tui.widgets.results import EntityList, entity_option

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

NEIGHBOUR_LIMIT = 100
MAX_HOPS = 6


def hop_text(rel: dict[str, Any], names: dict[str, dict[str, Any]]) -> Text:
    """One hop of a path, saying which way the relationship points: paths ignore direction."""

    def name(entity_id: str) -> str:
        return cell_safe(str(names.get(entity_id, {}).get("title", entity_id)))

    text = Text("   │ ", style="yellow")
    text.append(str(rel.get("type", "?")), style="bold yellow")
    if rel.get("label"):
        text.append(f" ({cell_safe(str(rel['label']))})", style="yellow")
    if rel:
        text.append(f"   {name(rel['fromEntityId'])} → {name(rel['toEntityId'])}", style="dim")
    return text


class GraphPane(Vertical):
    """A pane of the graph view: knows the app and which entity is under the cursor."""

    @property
    def kb(self) -> KbApp:
        return cast("KbApp", self.app)

    def current_id(self) -> str | None:
        return None


class NeighboursPane(GraphPane):
    """A tree: the centre entity, then one branch per (direction, relationship type)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("backspace", "previous", "Previous centre", id="graph.previous")
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.centre: str | None = None
        self.trail: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("Open a note and press g, or pick an entity under Entities.", id="nb-title")
        yield Tree[str]("neighbours", id="nb-tree")

    def current_id(self) -> str | None:
        node = self.query_one("#nb-tree", Tree).cursor_node
        return node.data if node is not None and node.data else self.centre

    def centre_on(self, entity_id: str, remember: bool = True) -> None:
        if remember and self.centre is not None and self.centre != entity_id:
            self.trail.append(self.centre)
        self.centre = entity_id
        self.load(entity_id)

    def action_previous(self) -> None:
        if self.trail:
            self.centre_on(self.trail.pop(), remember=False)

    @work(thread=True, exclusive=True, group="neighbours")
    def load(self, entity_id: str) -> None:
        found = self.kb.tool("kg_get_neighbors", {"entityId": entity_id, "limit": NEIGHBOUR_LIMIT})
        labels = self.kb.tool("app_entity_labels", {"ids": [entity_id]})
        self.app.call_from_thread(self._show, entity_id, found, labels)

    def _show(self, entity_id: str, found: dict[str, Any], labels: dict[str, Any]) -> None:
        if entity_id != self.centre:
            return
        title = self.query_one("#nb-title", Static)
        tree: Tree[str] = self.query_one("#nb-tree", Tree)
        tree.clear()
        if not found.get("ok"):
            title.update(Text(f"✗ {found.get('message')}", style="bold red"))
            return
        label = next(iter(labels.get("entities") or []), {"title": entity_id, "type": ""})
        head = Text(cell_safe(str(label["title"])), style="bold")
        head.append(f"  {label['type']}  {entity_id}", style="dim")
        head.append(f"  ·  {found['entityCount']} neighbours", style="dim")
        if self.trail:
            head.append(f"  ·  backspace: back to {len(self.trail)} earlier", style="dim")
        title.update(head)
        tree.root.set_label(Text(cell_safe(str(label["title"])), style="bold"))
        tree.root.data = entity_id
        names = {e["id"]: e for e in found["entities"]}
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for rel in found["relationships"]:
            outgoing = rel["fromEntityId"] == entity_id
            other = rel["toEntityId"] if outgoing else rel["fromEntityId"]
            groups.setdefault(("→" if outgoing else "←", rel["type"]), []).append(
                {**rel, "other": other}
            )
        # The note's own statements first, typed relations before plain references.
        order = sorted(groups, key=lambda g: (g[0] != "→", g[1] == "REFERENCES", g[1]))
        for arrow, rel_type in order:
            rels = groups[(arrow, rel_type)]
            branch = tree.root.add(Text(f"{arrow} {rel_type} ({len(rels)})", style="cyan"))
            for rel in rels:
                other = names.get(rel["other"], {"name": rel["other"], "type": ""})
                leaf = Text(cell_safe(str(other["name"])), style="bold")
                leaf.append(f"  {other['type']}", style="cyan")
                if rel.get("label"):
                    leaf.append(f"  {cell_safe(str(rel['label']))}", style="dim")
                branch.add_leaf(leaf, data=rel["other"])
        tree.root.expand_all()
        tree.cursor_line = 0

    @on(Tree.NodeSelected, "#nb-tree")
    def _selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if event.node.data and event.node.data != self.centre and not event.node.children:
            self.centre_on(event.node.data)


TAB_DIGITS = "123456"  # the graph screen's tabs


class NameField(Input):
    """A name to look up. Empty, it leaves the tab digits to the screen (Textual drops every
    binding of a key the focused field would type): on the Path tab 1-6 switch tabs as on
    the others; once a name is begun, a digit is part of it ("Q3 2026")."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character is not None and character in TAB_DIGITS and not self.value:
            return False
        return super().check_consume_key(key, character)


class PathPane(GraphPane):
    """Two names in, the chain of relationships between them out."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="path-inputs"):
            yield NameField(placeholder="from: a name, alias or id", id="path-from")
            yield NameField(placeholder="to: a name, alias or id", id="path-to")
        yield Static("Enter two names, then press Enter.", id="path-status")
        yield EntityList(id="path-result")

    def current_id(self) -> str | None:
        return self.query_one("#path-result", EntityList).current_id

    def prefill(self, name: str) -> None:
        field = self.query_one("#path-from", Input)
        if not field.value:
            field.value = name

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        start = self.query_one("#path-from", Input).value.strip()
        goal = self.query_one("#path-to", Input).value.strip()
        if event.input.id == "path-from" and not goal:
            self.query_one("#path-to", Input).focus()
        elif start and goal:
            self.query_one("#path-status", Static).update(Text("searching…", style="dim"))
            self.find(start, goal)

    @work(thread=True, exclusive=True, group="path")
    def find(self, start: str, goal: str) -> None:
        ends = [self._resolve(start), self._resolve(goal)]
        missing = [name for name, found in zip((start, goal), ends, strict=True) if found is None]
        if missing:
            message = Text(f"✗ no entity named {' or '.join(map(repr, missing))}", "bold red")
            self.app.call_from_thread(self._show_status, message, [])
            return
        a, b = cast("list[str]", ends)
        result = self.kb.tool(
            "kg_find_path", {"fromEntityId": a, "toEntityId": b, "maxHops": MAX_HOPS}
        )
        if not result.get("ok"):
            self.app.call_from_thread(
                self._show_status, Text(f"✗ {result.get('message')}", style="bold red"), []
            )
            return
        if not result["found"]:
            self.app.call_from_thread(
                self._show_status, Text(f"no path from {a} to {b} within {MAX_HOPS} hops"), []
            )
            return
        ids = result["path"]["entityIds"]
        labels = self.kb.tool("app_entity_labels", {"ids": ids})
        names = {e["id"]: e for e in labels.get("entities", [])}
        rels = {r["id"]: r for r in result["relationships"]}
        options: list[Option] = []
        for i, entity_id in enumerate(ids):
            options.append(entity_option(names.get(entity_id, {"id": entity_id}), entity_id))
            if i < len(result["path"]["relationshipIds"]):
                rel = rels.get(result["path"]["relationshipIds"][i], {})
                options.append(Option(hop_text(rel, names), disabled=True))
        status = Text(f"{result['hopCount']} hops: ", style="bold")
        status.append(cell_safe(" → ".join(str(names.get(i, {}).get("title", i)) for i in ids)))
        self.app.call_from_thread(self._show_status, status, options)

    def _resolve(self, name: str) -> str | None:
        """An exact id, else the best exact name or alias match, else the best partial one."""
        if re.fullmatch(ENTITY_ID_PATTERN, name):
            known = self.kb.tool("app_entity_labels", {"ids": [name]})
            if known.get("entities"):
                return name
        for exact in (True, False):
            found = self.kb.tool("kg_find_entity", {"name": name, "exact": exact, "limit": 1})
            if found.get("ok") and found["entities"]:
                return str(found["entities"][0]["id"])
        return None

    def _show_status(self, status: Text, options: list[Option]) -> None:
        self.query_one("#path-status", Static).update(status)
        self.query_one("#path-result", EntityList).show(options, empty="no path")
