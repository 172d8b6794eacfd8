"""app_dataview: a Dataview (DQL) query answered from the index (kbtui.dataview): the rows keyed
by column header, the vault paths in result order, and Dataview's Markdown export."""

from __future__ import annotations

from typing import Any

from kbtui.dataview.output import answer
from kbtui.dataview.query import DqlError
from kbtui.dataview.service import DataviewService
from kbtui.memory import gc_paused
from kbtui.tools.envelope import NOT_INITIALIZED, ValidationError, ok
from kbtui.tools.obsidian.links import id_path
from kbtui.tools.parts import VaultParts


class DataviewTools:
    def __init__(self, parts: VaultParts) -> None:
        self.service = DataviewService(parts.store, parts.settings.vault)
        self.store = parts.store
        self.parts = parts

    def app_dataview(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("language") == "dataviewjs":
            raise ValidationError(
                "DataviewJS is not run: kbtui runs Dataview's query language (DQL) only",
                field="language",
            )
        try:
            with gc_paused():
                _query, result, raw = self.service.query(
                    args["query"], id_path(self.parts, args.get("this")) or args.get("this")
                )
                out = ok(**answer(result, raw, bool(args.get("markdown"))))
        except DqlError as exc:
            raise ValidationError(str(exc), field="query") from None
        if not out["rows"] and self.store.note_count() == 0:
            out["message"] = NOT_INITIALIZED
        return out
