"""base_query: an Obsidian Bases view answered from the index (kbtui.bases), or the list of
the vault's bases when no base is named. One tool: listing is its argument-free form."""

from __future__ import annotations

from typing import Any

from kbtui.bases.errors import BaseError
from kbtui.bases.service import BaseService, result_json
from kbtui.tools.contracts.bases import BASE_TOOLS
from kbtui.tools.envelope import NOT_INITIALIZED, NotFoundError, ValidationError, ok
from kbtui.tools.obsidian.links import id_path
from kbtui.tools.parts import VaultParts


class BaseTools:
    def __init__(self, parts: VaultParts) -> None:
        self.service = BaseService(parts.store, parts.settings.vault)
        self.store = parts.store
        self.parts = parts

    def base_query(self, args: dict[str, Any]) -> dict[str, Any]:
        file, yaml_text = args.get("file"), args.get("yaml")
        if file:  # a note's entity id (kb_search's), with or without its block's `#N`
            name, hash_, number = file.rpartition("#") if "#" in file else (file, "", "")
            file = f"{id_path(self.parts, name) or name}{hash_}{number}"
        this = args.get("this")
        this = id_path(self.parts, this) or this
        if file and yaml_text:
            raise ValidationError("give file or yaml, not both", field="file")
        if not file and not yaml_text:
            bases = self.service.list_bases()
            return self._said(ok(bases=bases, count=len(bases)), bases)
        try:
            found, result = self.service.query(
                file, yaml_text, args.get("view"), this, args["limit"]
            )
        except BaseError as exc:
            if file and "no base" in exc.message:
                raise NotFoundError(exc.message) from None
            raise ValidationError(str(exc), field="yaml" if yaml_text else "file") from None
        answer = result_json(found, result)
        return self._said(ok(**answer, count=len(answer["rows"])), answer["rows"])

    def _said(self, answer: dict[str, Any], found: list[Any]) -> dict[str, Any]:
        """As kb_search: nothing found in a vault never indexed says so (still ok), since
        bases and their rows come from the index, not "no bases" or "0 rows"."""
        if not found and self.store.note_count() == 0:
            answer["message"] = NOT_INITIALIZED
        return answer


__all__ = ["BASE_TOOLS", "BaseTools"]
