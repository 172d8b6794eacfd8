"""The vault's loose ends, from the graph screen (`u`): unresolved links (with how many and
the first note holding one), orphans (no other note links to them) and dead ends (they link
to nothing), as Obsidian's commands answer them; Enter opens the note, `r` reloads."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.results import EntityList

KINDS = {"unresolved": "Unresolved links", "orphans": "Orphans", "deadends": "Dead ends"}


class VaultLinksScreen(KbScreen):
    """Three lists side by side; each option's id is the vault path of a note to open."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="vault_links.back"),
        Binding("r", "reload", "Reload", id="vault_links.reload"),
    ]

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="vault-links"):
            for kind in KINDS:
                yield EntityList(id=f"links-{kind}", classes="panel")

    def on_mount(self) -> None:
        for kind, title in KINDS.items():
            self.query_one(f"#links-{kind}").border_title = title
        self.load()

    @work(thread=True, exclusive=True, group="vault-links")
    def load(self) -> None:
        answers = {kind: self.kb.tool("vault_links", {"kind": kind}) for kind in KINDS}
        self.app.call_from_thread(self._show, answers)

    def _show(self, answers: dict[str, dict[str, Any]]) -> None:
        for kind, answer in answers.items():
            panel = self.query_one(f"#links-{kind}", EntityList)
            if not answer.get("ok"):
                self.kb.report_failure(answer)
                continue
            panel.border_title = f"{KINDS[kind]} ({answer['count']})"
            panel.show(_options(kind, answer["results"]), empty="none", keep=True)
        self.query_one("#links-unresolved").focus()

    @on(EntityList.OptionSelected)
    def _open(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.open_path(event.option.id.split("\0", 1)[0])

    @work(thread=True, group="vault-links-open")
    def open_path(self, path: str) -> None:
        found = self.kb.tool("kg_find_entity", {"name": path, "exact": True, "limit": 1})
        if found.get("ok") and found["entities"]:
            self.post_message(OpenNote(found["entities"][0]["id"]))

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.dismiss()

    def index_changed(self) -> None:
        self.load()


def _options(kind: str, results: list[dict[str, Any]]) -> list[Option]:
    options = []
    for i, r in enumerate(results):
        if kind == "unresolved":  # opens the first note holding the link
            text = Text(cell_safe(str(r["link"])))
            text.append(f"  ×{r['count']}  ← {cell_safe(r['sources'][0])}", style="dim")
            options.append(Option(text, id=f"{r['sources'][0]}\0{i}"))
        else:
            options.append(Option(Text(cell_safe(str(r["file"]))), id=str(r["file"])))
    return options
