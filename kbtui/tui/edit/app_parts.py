"""The app's share of editing and review (KbApp inherits it): the Review screen's key and
badge, the vault's review mode (`kbtui --review`, the palette), the palette's commands and
the help's sections for the editor, the Review screen and the conflict view."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from textual import work
from textual.app import App
from textual.binding import BindingType

from kbtui.tui.edit.conflict import ConflictScreen, LeaveEditor
from kbtui.tui.edit.editor import EditorScreen, NoteArea
from kbtui.tui.edit.review import ReviewScreen

Envelope = dict[str, Any]


class EditApp(App[None]):
    """Mixed into KbApp, which gives `tool` and `poll_status`."""

    start_review = False  # `kbtui --review`: turn the vault's review mode on once it is open
    _pending_seen: int | None = None

    def tool(self, name: str, args: dict[str, Any] | None = None) -> Envelope:
        raise NotImplementedError  # KbApp's one way to the vault

    poll_status: Callable[[], object]  # KbApp's worker: the status and the badge now

    def review_status(self) -> dict[str, Any] | None:
        """On the status worker: what the badge says (pending proposals, review on), after
        turning review on when asked to; a new proposal is announced once."""
        if self.start_review and self.tool("app_review", {"action": "mode", "on": True}).get("ok"):
            self.start_review = False
        answer = self.tool("app_proposals", {"action": "count"})
        if not answer.get("ok"):
            return None
        pending = int(answer["pending"])
        if self._pending_seen is not None and pending > self._pending_seen:
            more = pending - self._pending_seen
            self.call_from_thread(
                self.notify,
                f"an assistant proposes {more} change(s): f3 to review",
                title="Review",
            )
        changed, self._pending_seen = pending != self._pending_seen, pending
        if changed:
            self.call_from_thread(self._proposals_changed)
        return {"pending": pending, "review": bool(answer["review"])}

    def _proposals_changed(self) -> None:
        self.refresh_bindings()  # f3 in the footer while a proposal waits
        if isinstance(self.screen, ReviewScreen):
            self.screen.action_refresh()  # the list shows a new one (or one decided elsewhere)

    def action_review_waiting(self) -> None:
        self.action_review()

    def review_applies(self) -> bool:
        """f3 is shown where it leads somewhere: a proposal waits, the Review screen is not up."""
        return bool(self._pending_seen) and not isinstance(self.screen, ReviewScreen)

    def action_review(self) -> None:
        if not isinstance(self.screen, ReviewScreen):
            self.push_screen(ReviewScreen())

    @work(thread=True, group="review-mode")
    def set_review(self, on: bool) -> None:
        answer = self.tool("app_review", {"action": "mode", "on": on})
        if answer.get("ok"):
            self.call_from_thread(self.notify, str(answer["message"]), title="Review mode")
        else:
            self.call_from_thread(self.notify, str(answer.get("message")), severity="error")
        self.call_from_thread(self.poll_status)

    def open_editor(self, path: str, then: Callable[[], Any] | None = None) -> None:
        """The in-app editor on the note at vault path `path`; `then` runs once it closes."""
        self.push_screen(EditorScreen(path), lambda _: then() if then else None)

    def edit_commands(self, review: bool) -> list[tuple[str, str, Callable[[], Any]]]:
        """The palette's commands for review (`review`: the mode is on now)."""
        mode = (
            ("Review mode: turn off", "Assistants' writes land at once again")
            if review
            else ("Review mode: turn on", "Hold assistants' note writes until you accept them")
        )
        return [
            ("Review proposals", "What assistants asked to write (f3)", self.action_review),
            (*mode, partial(self.set_review, not review)),
        ]

    @staticmethod
    def edit_help() -> Iterable[tuple[str, Iterable[BindingType]]]:
        return [
            ("Editor", EditorScreen.BINDINGS + NoteArea.BINDINGS),
            ("Conflict (a save met a changed file)", ConflictScreen.BINDINGS),
            ("Leaving with unsaved text", LeaveEditor.BINDINGS),
            ("Review", ReviewScreen.BINDINGS),
        ]
