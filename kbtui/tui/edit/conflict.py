"""The conflict view: a save (or an accepted proposal) met a note that changed since it was
read. Both texts side by side and the diff from theirs to yours; the person chooses, and
nothing is lost in any choice: keep mine writes yours over theirs (theirs stays in the note's
history), keep theirs leaves the file as it is, copy saves yours as a new note beside it.
Escape decides nothing. Also: the question before leaving an editor with unsaved text."""

from __future__ import annotations

import difflib
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from kbtui.cells import cell_safe
from kbtui.tui.writing.diff_view import diff_text as coloured

MINE, THEIRS, COPY = "mine", "theirs", "copy"


def diff_text(old: str | None, new: str | None, old_label: str, new_label: str) -> Text:
    """A coloured unified diff of two texts (None: no file)."""
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        (new or "").splitlines(),
        fromfile=old_label,
        tofile=new_label,
        lineterm="",
    )
    out = coloured("\n".join(lines), empty="the two texts are the same")
    if not out.plain.startswith("the two texts"):
        out.append("\n")  # a last blank row: the pane's end is visible as such
    return out


def body(text: str | None, gone: str) -> Text:
    """A side's text, unwrapped (a row per line, so both sides scroll to the same line)."""
    if text is None:
        return Text(gone, style="italic dim")
    return Text(cell_safe(text), no_wrap=True, overflow="ignore")


def first_difference(a: str | None, b: str | None) -> int:
    """The 0-based line where two texts first differ (0 when either is missing)."""
    if a is None or b is None:
        return 0
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False)):
        if x != y:
            return n
    return min(len(a.splitlines()), len(b.splitlines()))


class ConflictScreen(ModalScreen[str | None]):
    """Dismisses with MINE, THEIRS, COPY, or None (Escape: nothing decided)."""

    DEFAULT_CSS: ClassVar[str] = """
    ConflictScreen #conflict {
        width: 96%;
        height: 92%;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
    }
    ConflictScreen #conflict-sides { height: 1fr; }
    ConflictScreen .conflict-side {
        width: 1fr;
        border: round $primary-darken-2;
        border-title-color: $accent;
    }
    ConflictScreen .conflict-side Static { width: auto; }
    ConflictScreen ScrollableContainer, ConflictScreen VerticalScroll { scrollbar-size: 1 1; }
    ConflictScreen #conflict-diff {
        height: 1fr;
        border: round $primary-darken-2;
        border-title-color: $accent;
    }
    ConflictScreen #conflict-buttons { height: auto; align-horizontal: right; }
    ConflictScreen #conflict-buttons Button { margin-left: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "choose('mine')", "Keep mine", id="conflict.mine"),
        Binding("t", "choose('theirs')", "Keep theirs", id="conflict.theirs"),
        Binding("c", "choose('copy')", "Mine as a copy", id="conflict.copy"),
        Binding("escape", "dismiss(None)", "Decide later", id="conflict.cancel"),
    ]

    def __init__(
        self,
        title: str,
        why: str,
        mine: str | None,
        theirs: str | None,
        labels: tuple[str, str] = ("yours (unsaved)", "theirs (on disk now)"),
        buttons: tuple[str, str, str] = ("Keep mine", "Keep theirs", "Save mine as a copy"),
    ) -> None:
        super().__init__()
        self.title_text, self.why = title, why
        self.mine, self.theirs = mine, theirs
        self.labels, self.buttons = labels, buttons

    def compose(self) -> ComposeResult:
        mine_label, theirs_label = self.labels
        with Vertical(id="conflict"):
            yield Static(Text(self.title_text, style="bold"), id="conflict-title")
            yield Static(Text(self.why, style="dim"), id="conflict-why")
            with Horizontal(id="conflict-sides"):
                with ScrollableContainer(classes="conflict-side", id="conflict-mine") as mine:
                    mine.border_title = mine_label
                    yield Static(body(self.mine, "(the note deleted)"))
                with ScrollableContainer(classes="conflict-side", id="conflict-theirs") as theirs:
                    theirs.border_title = theirs_label
                    yield Static(body(self.theirs, "(no file now)"))
            with VerticalScroll(id="conflict-diff") as diff:
                diff.border_title = f"diff: {theirs_label} → {mine_label}"
                yield Static(diff_text(self.theirs, self.mine, theirs_label, mine_label))
            with Horizontal(id="conflict-buttons"):
                keep_mine, keep_theirs, copy = self.buttons
                yield Button(f"{keep_mine} (m)", id="conflict-keep-mine", variant="warning")
                yield Button(f"{keep_theirs} (t)", id="conflict-keep-theirs")
                yield Button(f"{copy} (c)", id="conflict-copy", variant="primary")
                yield Button("Decide later (esc)", id="conflict-later")

    def on_mount(self) -> None:
        self.query_one("#conflict-later", Button).focus()  # Enter decides nothing
        self.call_after_refresh(self._to_first_difference)

    def _to_first_difference(self) -> None:
        """Both sides open a few lines above where they first differ."""
        line = max(0, first_difference(self.mine, self.theirs) - 3)
        for side in self.query(".conflict-side"):
            side.scroll_to(y=line, animate=False)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        choice = {
            "conflict-keep-mine": MINE,
            "conflict-keep-theirs": THEIRS,
            "conflict-copy": COPY,
        }.get(event.button.id or "")
        self.dismiss(choice)


class LeaveEditor(ModalScreen[str | None]):
    """Escape on an editor with unsaved text: save, discard, or stay (the default)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "dismiss('save')", "Save", id="leave.save"),
        Binding("d", "dismiss('discard')", "Discard", id="leave.discard"),
        Binding("escape,n", "dismiss(None)", "Stay", id="leave.stay"),
    ]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(f"{cell_safe(self.path)} has unsaved changes", style="bold"))
            yield Static("Save them, discard them, or keep editing?", id="dialog-body")
            with Horizontal(id="dialog-buttons"):
                yield Button("Save (s)", id="save", variant="primary")
                yield Button("Discard (d)", id="discard", variant="error")
                yield Button("Keep editing (esc)", id="stay")

    def on_mount(self) -> None:
        self.query_one("#stay", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "stay" else event.button.id)
