"""Capture (ctrl+l, the palette): a line or a short block appended to today's daily note
(daily_append: the Daily notes plugin's folder, format and template) or to the note named by
$KBTUI_CAPTURE (note_write append; created when missing). Enter saves, ctrl+j (or shift+enter
where the terminal tells it) starts a new line; `[[` offers the vault's notes by fuzzy match
(Tab or Enter takes one). The status line says where the text went."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.writing.fuzzy import rank

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

CAPTURE_ENV = "KBTUI_CAPTURE"
LINKS_SHOWN = 6
PAGE = 1000  # notes per app_list_entities call
MAX_NOTES = 50_000
_OPEN_LINK = re.compile(r"\[\[([^\[\]|#\n]*)$")  # a `[[` being typed, up to the cursor


def capture_note() -> str | None:
    """The note captures go to instead of the daily note ($KBTUI_CAPTURE: a name or path)."""
    return os.environ.get(CAPTURE_ENV, "").strip() or None


def link_name(path: str) -> str:
    """What `[[...]]` says for a note: its file name without `.md`."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


class CaptureArea(TextArea):
    """A TextArea where Enter saves (Submitted) and ctrl+j / shift+enter add a line; while
    the link list is open, ↑/↓ move in it and Tab or Enter take the link."""

    class Submitted(Message):
        pass

    class Picking(Message):
        """A key for the link list: `up`, `down`, `accept` or `close`."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    picking = False  # the link list is open

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.picking and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            self.post_message(
                self.Picking({"tab": "accept", "enter": "accept", "escape": "close"}.get(key, key))
            )
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted())
            return
        if key in ("ctrl+j", "shift+enter"):
            event.stop()
            event.prevent_default()
            start, end = self.selection
            self._replace_via_keyboard("\n", start, end)
            return
        await super()._on_key(event)


class CaptureModal(ModalScreen[str | None]):
    """Dismissed with the path the text went to, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="capture.cancel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.target = capture_note()
        self.notes: list[tuple[str, str]] = []  # (link name, what the list shows) per note
        self.names: list[str] = []  # the same names, for rapidfuzz
        self.matches: list[int] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="capture"):
            yield Static(Text("Capture", style="bold"), id="capture-title")
            yield CaptureArea(id="capture-text", soft_wrap=True, show_line_numbers=False)
            yield OptionList(id="capture-links")
            yield Static(
                Text(
                    "Enter saves · ctrl+j new line · [[ links a note · Escape cancels", style="dim"
                ),
                id="capture-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#capture-links").display = False
        self.query_one("#capture-text").focus()
        self.load()

    @property
    def kb(self) -> KbApp:
        return self.app  # type: ignore[return-value]

    @work(thread=True, exclusive=True, group="capture-load")
    def load(self) -> None:
        """Where the text goes (today's daily note's path) and the notes `[[` offers."""
        if self.target is None:
            day = self.kb.tool("app_daily", {"action": "path"})
            where = f"today's note, {day['path']}" if day.get("ok") else "today's daily note"
        else:
            where = f"{self.target} (${CAPTURE_ENV})"
        self.app.call_from_thread(self._where, where)
        notes: list[tuple[str, str]] = []
        for offset in range(0, MAX_NOTES, PAGE):
            page = self.kb.tool("app_list_entities", {"offset": offset, "limit": PAGE})
            rows = page.get("entities") or []
            for row in rows:
                name = link_name(str(row.get("path") or ""))
                title = str(row.get("title") or name)
                shown = name if title == name else f"{name} — {title}"
                notes.append((name, shown))
            if len(rows) < PAGE:
                break
        self.app.call_from_thread(self._notes, notes)

    def _where(self, where: str) -> None:
        self.query_one("#capture-title", Static).update(
            Text.assemble(("Capture to ", "bold"), (cell_safe(where), "bold cyan"))
        )

    def _notes(self, notes: list[tuple[str, str]]) -> None:
        self.notes = notes
        self.names = [name for name, _ in notes]
        self._complete()

    # -- [[ completion ---------------------------------------------------------------------
    def typed_link(self) -> str | None:
        """What follows an open `[[` before the cursor, or None."""
        area = self.query_one("#capture-text", CaptureArea)
        row, column = area.cursor_location
        found = _OPEN_LINK.search(area.document[row][:column])
        return None if found is None else found.group(1)

    @on(TextArea.Changed, "#capture-text")
    @on(TextArea.SelectionChanged, "#capture-text")
    def _changed(self) -> None:
        self._complete()

    def _complete(self) -> None:
        typed = self.typed_link()
        links = self.query_one("#capture-links", OptionList)
        area = self.query_one("#capture-text", CaptureArea)
        self.matches = rank(typed, self.names, LINKS_SHOWN) if typed is not None else []
        area.picking = bool(self.matches)
        links.display = area.picking
        if self.matches:
            links.set_options([Option(cell_safe(self.notes[i][1])) for i in self.matches])
            links.highlighted = 0

    @on(CaptureArea.Picking)
    def _picking(self, event: CaptureArea.Picking) -> None:
        links = self.query_one("#capture-links", OptionList)
        if event.key == "down":
            links.action_cursor_down()
        elif event.key == "up":
            links.action_cursor_up()
        elif event.key == "close":
            self.matches = []
            self.query_one("#capture-text", CaptureArea).picking = False
            links.display = False
        elif links.highlighted is not None:
            self.take_link(self.names[self.matches[links.highlighted]])

    @on(OptionList.OptionSelected, "#capture-links")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.take_link(self.names[self.matches[event.option_index]])

    def take_link(self, name: str) -> None:
        area = self.query_one("#capture-text", CaptureArea)
        typed = self.typed_link() or ""
        row, column = area.cursor_location
        area.replace(f"{name}]]", (row, column - len(typed)), (row, column))
        area.focus()
        self._complete()

    # -- saving ----------------------------------------------------------------------------
    @on(CaptureArea.Submitted)
    def _submitted(self) -> None:
        text = self.query_one("#capture-text", CaptureArea).text.strip("\n")
        if text.strip():
            self.save(text)
        else:
            self.dismiss(None)

    @work(thread=True, exclusive=True, group="capture-save")
    def save(self, text: str) -> None:
        if self.target is None:
            answer = self.kb.tool("daily_append", {"content": text})
        else:
            args = {"path": self.target, "mode": "append", "content": text}
            answer = self.kb.tool("note_write", args)
            if answer.get("error_type") == "NotFoundError":  # a capture note to start
                args = {"path": self.target, "content": text + "\n"}  # as append ends it
                answer = self.kb.tool("note_write", args)
        self.app.call_from_thread(self._saved, answer)

    def _saved(self, answer: dict[str, Any]) -> None:
        if answer.get("ok"):
            self.dismiss(str(answer["path"]))
        else:
            self.kb.report_failure(answer)
