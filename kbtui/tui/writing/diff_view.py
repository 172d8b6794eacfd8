"""How writes are shown: a unified diff as a person reads it (added lines green, removed red,
hunks cyan) in a scrollable pane, and who wrote (an assistant's writes stand out)."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kbtui.cells import cell_safe

# who wrote -> (marker, style): an assistant (mcp:<client>) in bold magenta with a diamond
WRITERS = {"tui": ("●", "spring_green2"), "cli": ("▸", "sky_blue1"), "external": ("○", "gold1")}
ASSISTANT = ("◆", "bold magenta")
STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def diff_text(diff: str, empty: str = "no difference") -> Text:
    """The diff coloured line by line (never read as markup)."""
    text = Text(no_wrap=False)
    if not diff.strip():
        text.append(empty, style="dim italic")
        return text
    for line in diff.splitlines():
        style = next((s for prefix, s in STYLES if line.startswith(prefix)), "")
        text.append(cell_safe(line), style=style)
        text.append("\n")
    text.rstrip()
    return text


def age(when: float, now: float | None = None) -> str:
    """When a write happened, as a person says it: `just now`, `5 min ago`, then the day and
    time (local) once it is an hour old."""
    seconds = (time.time() if now is None else now) - when
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return time.strftime("%a %d %b %H:%M", time.localtime(when))


def is_assistant(source: str) -> bool:
    return source.startswith("mcp:")


def writer_text(source: str, width: int = 0) -> Text:
    """`◆ mcp:claude`, `● tui`, `▸ cli`, `○ external`, padded to `width` cells."""
    mark, style = ASSISTANT if is_assistant(source) else WRITERS.get(source, ("·", "dim"))
    text = Text(f"{mark} {cell_safe(source)}", style=style)
    if width > text.cell_len:
        text.pad_right(width - text.cell_len)
    return text


def counts_text(added: int, removed: int) -> Text:
    return Text.assemble((f"+{added}", "green"), " ", (f"-{removed}", "red"))


class DiffView(VerticalScroll, can_focus=True):
    """A titled, scrollable diff (arrows, page keys, home/end when focused)."""

    DEFAULT_CSS = """
    DiffView { border: round $primary-darken-2; border-title-color: $accent; padding: 0 1; }
    DiffView:focus { border: round $accent; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="diff-text")

    def show(self, title: str, diff: str, empty: str = "no difference") -> None:
        self.border_title = cell_safe(title)
        self.query_one("#diff-text", Static).update(diff_text(diff, empty))
        self.scroll_home(animate=False)
