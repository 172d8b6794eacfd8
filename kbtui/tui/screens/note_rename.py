"""The note view's rename or move (`m`): a dry run shows what would change and asks; a
name another note answers to is refused, then a forced dry run lists every link that would
change target and only a deliberate `y` takes the name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work

from kbtui.tui.screens.base import KbScreen
from kbtui.tui.screens.modals import ConfirmRename, PromptModal


class RenameNote(KbScreen):
    """Mixed into NoteScreen (which has `note`, `entity_id`, `history` and `load`)."""

    entity_id: str
    history: list[str]
    note: dict[str, Any] | None
    load: Callable[..., Any]  # NoteScreen's worker

    def action_rename(self) -> None:
        if self.note is None or not self.note.get("ok"):
            return
        path = str(self.note["metadata"]["file_path"])
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        prompt = PromptModal("Rename or move to (file name, or folder/name)", stem, stem)
        self.app.push_screen(prompt, self._rename_asked)

    def _rename_asked(self, name: str | None) -> None:
        if name:
            self.rename(self.entity_id, name, dry_run=True)

    @work(thread=True, group="rename")
    def rename(self, entity_id: str, name: str, dry_run: bool, force: bool = False) -> None:
        """A dry run shows what would change and asks; only a confirmed run writes. A name
        another note answers to is refused; the forced dry run then shows every link that
        would change target, and only a deliberate `y` takes the name."""
        args = {"entityId": entity_id, "newName": name, "dryRun": dry_run, "force": force}
        answer = self.kb.tool("kg_rename_entity", args)
        error = answer.get("error") or {}
        if not answer.get("ok") and dry_run and not force and _name_taken(answer):
            refusal = str(answer.get("message"))
            args["force"] = True
            answer = self.kb.tool("kg_rename_entity", args)
            if answer.get("ok"):
                answer["refusal"] = refusal
                force = True
            error = answer.get("error") or {}
        if not answer.get("ok"):
            message = str(answer.get("message") or error.get("message"))
            self.app.call_from_thread(self.notify, message, severity="error")
        elif dry_run:

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.rename(entity_id, name, dry_run=False, force=force)

            self.app.call_from_thread(self.app.push_screen, ConfirmRename(answer), confirmed)
        else:
            self.app.call_from_thread(self._renamed, entity_id, answer)

    def _renamed(self, old_id: str, answer: dict[str, Any]) -> None:
        self.notify(str(answer["message"]))
        new_id = str(answer["newEntityId"])
        self.history = [new_id if h == old_id else h for h in self.history]
        self.entity_id = new_id
        self.load(new_id)


def _name_taken(answer: dict[str, Any]) -> bool:
    """The rename was refused only because another note answers to the new name."""
    error = answer.get("error") or {}
    return answer.get("error_type") == "ConflictError" and error.get("field") == "newName"
