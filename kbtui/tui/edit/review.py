"""The Review screen (f3): what assistants asked to write while their writes were held for
review (`kbtui mcp --review`, or review mode on for the vault), pending first, each with its
diff. `a` accepts one (written with the hash of the note it was proposed against); a note
changed since is shown as a conflict: apply it to the note as it is now, keep the note
(reject), or save the proposal as a copy. `x` rejects, `c` saves the proposed text as a new
note beside the original."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.edit.conflict import COPY, MINE, THEIRS, ConflictScreen
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.writing.diff_view import diff_text as coloured

Envelope = dict[str, Any]
STATE_STYLE = {"pending": "bold yellow", "accepted": "green", "rejected": "red", "copied": "cyan"}


def proposal_option(p: dict[str, Any]) -> Option:
    """Two lines: number, state and note; then the tool, the lines it changes, who, when."""
    line = Text()
    line.append(f"#{p['id']} ", style="bold")
    line.append(f"{p['state']:<8} ", style=STATE_STYLE.get(str(p["state"]), ""))
    line.append(cell_safe(str(p["path"])), style="bold")
    line.append(f"\n   {p['tool']}", style="cyan")
    line.append(f"  +{p['added']} -{p['removed']}", style="dim")
    line.append(f"  {cell_safe(str(p['source']))}", style="magenta")
    line.append(f"  {str(p['time'])[5:16].replace('T', ' ')}", style="dim")  # MM-DD HH:MM
    return Option(line, id=str(p["id"]))


def proposal_text(p: dict[str, Any]) -> Group:
    """A proposal's header and its diff, coloured."""
    head = Text()
    head.append(f"Proposal {p['id']}: ", style="bold")
    head.append(f"{p['tool']} on {cell_safe(str(p['path']))}", style="bold")
    when = str(p["time"]).replace("T", " ")
    head.append(f"\nasked by {cell_safe(str(p['source']))} at {when}", style="dim")
    head.append(f" · {p['state']}", style=STATE_STYLE.get(str(p["state"]), ""))
    if p.get("outcome"):
        decided = str(p.get("decided")).replace("T", " ")
        head.append(f" {decided}: {cell_safe(str(p['outcome']))}", style="dim")
    diff = coloured(str(p.get("diff") or ""))
    return Group(head, Text(), diff)


class ReviewScreen(KbScreen):
    """The proposals, one diff at a time."""

    DEFAULT_CSS: ClassVar[str] = """
    ReviewScreen #review-title { height: auto; padding: 0 1; }
    ReviewScreen #review-main { height: 1fr; }
    ReviewScreen #review-list { width: 52; height: 1fr; }
    ReviewScreen #review-diff {
        width: 1fr;
        border: round $primary-darken-2;
        border-title-color: $accent;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "accept", "Accept", tooltip="Write it as proposed", id="review.accept"),
        Binding("x", "reject", "Reject", tooltip="Write nothing", id="review.reject"),
        Binding(
            "c",
            "copy",
            "Copy",
            tooltip="Save the proposed text as a new note beside the original",
            id="review.copy",
        ),
        Binding("r", "refresh", "Refresh", show=False, id="review.refresh"),
        Binding("escape", "back", "Back", id="review.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.proposals: dict[str, dict[str, Any]] = {}
        self.counts: Envelope = {}

    def compose_body(self) -> ComposeResult:
        yield Static(id="review-title")
        with Horizontal(id="review-main"):
            yield EntityList(id="review-list")
            with VerticalScroll(id="review-diff") as diff:
                diff.border_title = "diff"
                yield Static(id="review-diff-text")

    def on_mount(self) -> None:
        self.query_one("#review-list").border_title = "Proposals (pending first)"
        self.query_one("#review-list").focus()
        self.action_refresh()

    def vault_ready(self) -> None:
        self.action_refresh()

    def action_back(self) -> None:
        self.dismiss()

    # -- the list --------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="review-list")
    def action_refresh(self) -> None:
        answer = self.kb.tool("app_proposals", {"action": "list"})
        self.app.call_from_thread(self._listed, answer)

    def _listed(self, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            return
        self.counts = answer
        rows = answer["proposals"]
        self.proposals = {str(p["id"]): p for p in rows}
        title = Text()
        title.append(f"Review: {answer['pending']} pending", style="bold")
        if answer["review"]:
            title.append("  · review mode on: assistants' note writes wait here", style="green")
        else:
            title.append(
                "  · review mode off (ctrl+p → Review mode; or kbtui mcp --review)", style="dim"
            )
        title.append("  · a accept · x reject · c copy", style="dim")
        self.query_one("#review-title", Static).update(title)
        empty = "No proposals: an assistant's writes under review mode appear here."
        self.query_one(EntityList).show([proposal_option(p) for p in rows], empty=empty, keep=True)
        self._show_current()

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_current()

    def current(self) -> dict[str, Any] | None:
        chosen = self.query_one(EntityList).current_id
        return None if chosen is None else self.proposals.get(chosen)

    def _show_current(self) -> None:
        p = self.current()
        shown = proposal_text(p) if p else Text("Nothing selected.", style="dim")
        self.query_one("#review-diff-text", Static).update(shown)

    def pending(self) -> dict[str, Any] | None:
        p = self.current()
        if p is None:
            return None
        if p["state"] != "pending":
            self.notify(f"proposal {p['id']} was {p['state']} already", severity="warning")
            return None
        return p

    # -- decisions -------------------------------------------------------------------------
    def action_accept(self) -> None:
        p = self.pending()
        if p is not None:
            self.decide(int(p["id"]), "accept")

    def action_reject(self) -> None:
        p = self.pending()
        if p is not None:
            self.decide(int(p["id"]), "reject")

    def action_copy(self) -> None:
        p = self.pending()
        if p is not None:
            self.decide(int(p["id"]), "copy")

    @work(thread=True, group="review-decide")
    def decide(self, number: int, action: str, current: str | None = None) -> None:
        args: dict[str, Any] = {"action": action, "id": number}
        if current is not None:
            args["hash"] = current
        answer = self.kb.tool("app_review", args)
        if not answer.get("ok") and answer.get("error_type") == "StaleError" and current is None:
            found = self.kb.tool("app_proposals", {"action": "get", "id": number})
            self.app.call_from_thread(self._conflict, number, found)
            return
        self.app.call_from_thread(self._decided, answer)

    def _decided(self, answer: Envelope) -> None:
        if answer.get("ok"):
            self.notify(str(answer.get("message")))
        else:
            self.kb.report_failure(answer)
        self.action_refresh()
        self.kb.poll_status()  # the badge

    def _conflict(self, number: int, found: Envelope) -> None:
        if not found.get("ok"):
            self.kb.report_failure(found)
            return
        p = found["proposal"]
        applies = bool(found.get("applies"))
        mine = found["applied_text"] if applies else found["proposed_text"]
        why = (
            f"{p['path']} changed after {p['source']} proposed this. Apply writes the "
            "proposal to the note as it is now (what it replaces stays in the history)."
        )
        if not applies:
            why = f"{p['path']} changed and the proposal no longer applies: " + str(
                found.get("apply_error") or "the note is not what it was"
            )
        screen = ConflictScreen(
            f"Proposal {number}: {p['tool']} on {p['path']}: the note changed since",
            why,
            mine,
            found["current_text"],
            labels=(
                "the proposal, applied to the note now" if applies else "proposed (old text)",
                "the note now",
            ),
            buttons=("Apply to the note now", "Reject", "Save it as a copy"),
        )
        current = found.get("current_hash")

        def chosen(choice: str | None) -> None:
            if choice == MINE:
                if current is None:  # the note is gone: nothing to apply to
                    self.notify(f"{p['path']} is gone: save the proposal as a copy")
                    return
                self.decide(number, "accept", str(current))
            elif choice == THEIRS:
                self.decide(number, "reject")
            elif choice == COPY:
                self.decide(number, "copy")

        self.app.push_screen(screen, chosen)
