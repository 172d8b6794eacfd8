"""Lists of notes and entities: search results, the note list, links of a note."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from kbtui.cells import cell_safe

SNIPPET_WIDTH = 200


def result_option(result: dict[str, Any]) -> Option:
    """A search hit: title, type and score on the first line, the snippet below."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(cell_safe(str(result.get("title") or result["id"])), style="bold")
    line.append(f"  {result.get('type', '')}", style="cyan")
    line.append(f"  {float(result.get('score', 0.0)):.2f}", style="green")
    heading = (result.get("metadata") or {}).get("heading")
    if heading and heading != result.get("title"):
        line.append(f"  § {cell_safe(str(heading))}", style="dim")
    shown = cell_safe(" ".join(str(result.get("snippet", "")).split())[:SNIPPET_WIDTH])
    snippet = Text(shown, style="dim")
    return Option(Text("\n").join([line, snippet]), id=str(result["id"]))


def entity_option(entity: dict[str, Any], detail: str = "") -> Option:
    """An entity on one line: title, type, then `detail` (a path, counts, a relation)."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(
        cell_safe(str(entity.get("title") or entity.get("name") or entity["id"])), style="bold"
    )
    line.append(f"  {entity.get('type', '')}", style="cyan")
    if detail:
        line.append(f"  {cell_safe(detail)}", style="dim")
    return Option(line, id=str(entity["id"]))


class EntityList(OptionList):
    """An OptionList whose option ids are entity ids; Enter selects (OptionSelected)."""

    def show(
        self, options: Iterable[Option], empty: str = "nothing here", keep: bool = False
    ) -> None:
        """Replace the options, highlighting the first; with `keep` (a refresh of the same
        list) the highlight stays on the same entity while it is still listed."""
        option = self.highlighted_option
        kept = option.id if keep and option is not None else None
        self.set_options(options)
        if not self.option_count:
            self.add_option(Option(Text(empty, style="dim italic"), disabled=True))
            return
        index = 0
        if kept is not None:
            try:
                index = self.get_option_index(kept)
            except OptionDoesNotExist:  # the entity left the list
                index = 0
        self.highlighted = index

    @property
    def current_id(self) -> str | None:
        option = self.highlighted_option
        return None if option is None or option.disabled else option.id
