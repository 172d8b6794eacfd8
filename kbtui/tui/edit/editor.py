"""The editor in the app (`i` on a note): Textual's TextArea with markdown highlighting and
soft wrap, `[[` / `[[Note#` / `#` completion from the index, and saving through the write path.

It opens with note_read (the text in the note's own line endings, and its hash) and saves
with note_write mode overwrite and that hash: the codec writes the note back in its own
encoding and line endings, and a note changed on disk meanwhile is refused as stale, never
overwritten. Then the conflict view shows both texts and the diff: keep mine (written over
theirs, which stays in the history), keep theirs (the editor takes the file's text), or mine
saved as a copy beside it (`Name (conflict YYYY-MM-DD HHMM).md`), which the editor then holds.
"""

from __future__ import annotations

import datetime as dt
from importlib.util import find_spec
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.document._wrapped_document import WrappedDocument
from textual.widgets import Static, TextArea

from kbtui.cells import cell_safe
from kbtui.tui.edit.completing import Completing
from kbtui.tui.edit.completion import CompletionList
from kbtui.tui.edit.conflict import COPY, MINE, THEIRS, ConflictScreen, LeaveEditor

Envelope = dict[str, Any]


def language() -> str | None:
    """Markdown highlighting when it can be had: TextArea lists markdown among its languages
    whether or not tree-sitter and its markdown grammar (dependencies of kbtui) are there,
    and highlights nothing without them."""
    listed = "markdown" in TextArea().available_languages
    grammar = all(find_spec(m) is not None for m in ("tree_sitter", "tree_sitter_markdown"))
    return "markdown" if listed and grammar else None


def copy_path(path: str, now: dt.datetime) -> str:
    """Where a conflict's copy goes: beside the note, `Name (conflict YYYY-MM-DD HHMM)`; a
    leading `/` keeps a note of the vault's root at the root (note_write's rule)."""
    folder, _, name = path.rpartition("/")
    stem = name[:-3] if name.lower().endswith(".md") else name
    copy = f"{stem} (conflict {now:%Y-%m-%d %H%M})"
    return f"{folder}/{copy}" if folder else f"/{copy}"


class CountedWrap(WrappedDocument):
    """Textual's soft-wrapped document, its height counted in O(1): the rows it maps are
    one entry each of `_offset_to_line_info`. Textual sums every line's wrap offsets for
    the height, and asks for it once per line drawn: on a 2,000-line note that was most of
    a keystroke's frame (bench/tui_editor.py)."""

    @property
    def height(self) -> int:
        return len(self._offset_to_line_info)


class NoteArea(TextArea):
    """The text. While the completion list shows, up/down move in it, Enter or Tab accepts
    and Escape closes it (priority keys that step aside when it is hidden)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "complete_move(-1)", show=False, priority=True),
        Binding("down", "complete_move(1)", show=False, priority=True),
        Binding(
            "enter,tab",
            "complete_accept",
            "Accept",
            tooltip="Accept the highlighted completion",
            show=False,
            priority=True,
            id="editor.accept",
        ),
        Binding(
            "escape",
            "escape",
            "Close",
            tooltip="Close the completion list; with none, leave the editor",
            show=False,
            priority=True,
            id="editor.escape",
        ),
    ]

    def _set_document(self, text: str, language: str | None) -> None:
        super()._set_document(text, language)
        wrapped = self.wrapped_document
        if type(wrapped) is WrappedDocument and hasattr(wrapped, "_offset_to_line_info"):
            wrapped.__class__ = CountedWrap  # the same object, its height counted

    @property
    def editor(self) -> EditorScreen:
        screen = self.screen
        assert isinstance(screen, EditorScreen)
        return screen

    def action_complete_move(self, step: int) -> None:
        if self.editor.completion.shown:
            self.editor.completion.move(step)
        elif step < 0:  # these keys replace TextArea's own bindings: move as it would
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    def action_complete_accept(self) -> None:
        if not self.editor.completion.shown:
            raise SkipAction()
        self.editor.accept()

    def action_escape(self) -> None:
        if self.editor.completion.shown:
            self.editor.dismiss_completion()
        else:
            self.editor.action_leave()


class EditorScreen(Completing):
    """One note's text, saved through the write path."""

    DEFAULT_CSS: ClassVar[str] = """
    EditorScreen #editor-title { height: 1; padding: 0 1; background: $panel; }
    EditorScreen #editor-area { height: 1fr; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding(
            "escape", "leave", "Back", tooltip="Back (asks first if unsaved)", id="editor.back"
        ),
    ]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.hash: str | None = None  # the file's hash as last read or written
        self.saved_text: str | None = None
        self.details = ""  # encoding and line endings, as note_read says them
        self.disk_changed = False  # the file changed on disk while the text was unsaved
        self.leaving = False  # leave once the save lands
        self._title = ""  # the title line shown

    def compose_body(self) -> ComposeResult:
        yield Static(id="editor-title")
        yield NoteArea(
            id="editor-area",
            language=language(),
            soft_wrap=True,
            tab_behavior="indent",
            read_only=True,  # until the note is read
        )
        yield CompletionList(id="editor-completion")

    def on_mount(self) -> None:
        self.show_title()
        self.area.focus()
        self.load()
        self.load_names()

    # -- reading ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="editor-read")
    def load(self) -> None:
        answer = self.kb.tool("note_read", {"note": self.path})
        self.app.call_from_thread(self._loaded, answer)

    def _loaded(self, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            self.dismiss()
            return
        self.take(answer)
        self.area.read_only = False

    def take(self, answer: Envelope) -> None:
        """The note as note_read gave it becomes the editor's text, saved."""
        self.path, self.hash = str(answer["path"]), str(answer["hash"])
        self.details = f"{answer.get('encoding')} · {answer.get('newline')}"
        text = str(answer["text"])
        self.area.load_text(text)
        self.saved_text = self.area.text  # as the area gives it back (its line endings)
        self.disk_changed = False
        self.show_title()

    @property
    def modified(self) -> bool:
        return self.saved_text is not None and self.area.text != self.saved_text

    def show_title(self) -> None:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("✎ ", style="bold")
        line.append(cell_safe(self.path), style="bold")
        if self.details:
            line.append(f"  {self.details}", style="dim")
        if self.saved_text is None:
            line.append("  reading…", style="dim")
        elif self.modified:
            line.append("  ● modified", style="bold yellow")
        else:
            line.append("  saved", style="green")
        if self.disk_changed:
            line.append("  changed on disk: saving will show both", style="bold red")
        line.append("  ctrl+s save · esc back", style="dim")
        if line.plain != self._title:  # an update lays the screen out again: not per key
            self._title = line.plain
            self.query_one("#editor-title", Static).update(line)

    def index_changed(self) -> None:
        """A pass took in changes: this note's file may have changed under the editor."""
        if self.hash is not None:
            self.check_disk()

    def notes_written(self) -> None:
        """Something wrote through the write path (an assistant, say): the same check."""
        self.index_changed()

    @work(thread=True, exclusive=True, group="editor-disk")
    def check_disk(self) -> None:
        answer = self.kb.tool("note_read", {"note": self.path})
        self.app.call_from_thread(self._disk_checked, answer)

    def _disk_checked(self, answer: Envelope) -> None:
        if not answer.get("ok") or answer["hash"] == self.hash:
            return
        if self.modified:
            self.disk_changed = True
            self.show_title()
        else:  # nothing unsaved: show the file as it is now
            self.take(answer)
            self.notify(f"{self.path} changed on disk: reloaded")

    # -- completion ------------------------------------------------------------------------
    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        self.show_title()
        self.complete()

    # -- saving ----------------------------------------------------------------------------
    def action_save(self) -> None:
        if self.hash is None:
            return
        self.save(self.area.text, self.hash)

    @work(thread=True, exclusive=True, group="editor-save")
    def save(self, text: str, expected: str) -> None:
        args = {"path": self.path, "mode": "overwrite", "content": text, "expected_hash": expected}
        answer = self.kb.tool("note_write", args)
        self.app.call_from_thread(self._saved, text, answer)

    def _saved(self, text: str, answer: Envelope) -> None:
        if answer.get("ok"):
            self.hash, self.saved_text = str(answer["hash"]), text
            self.disk_changed = False
            self.show_title()
            self.notify(str(answer.get("message") or f"saved {self.path}"))
            if self.leaving:
                self.dismiss()
        elif answer.get("error_type") == "StaleError":
            self.conflict(text)
        else:
            self.leaving = False
            self.kb.report_failure(answer)

    @work(thread=True, exclusive=True, group="editor-conflict")
    def conflict(self, mine: str) -> None:
        theirs = self.kb.tool("note_read", {"note": self.path})
        self.app.call_from_thread(self._show_conflict, mine, theirs)

    def _show_conflict(self, mine: str, theirs: Envelope) -> None:
        self.leaving = False
        if not theirs.get("ok"):  # deleted or unreadable: keep the text, say why
            self.kb.report_failure(theirs)
            return
        screen = ConflictScreen(
            f"{self.path} changed on disk since you opened it",
            "Another program (or kbtui) saved it while you edited. Nothing is lost in any "
            "choice: theirs stays in the note's history if you keep yours.",
            mine,
            str(theirs["text"]),
        )
        self.app.push_screen(screen, lambda choice: self._resolved(choice, mine, theirs))

    def _resolved(self, choice: str | None, mine: str, theirs: Envelope) -> None:
        if choice == MINE:
            self.save(mine, str(theirs["hash"]))
        elif choice == THEIRS:
            self.take(theirs)
            self.notify(f"{self.path}: the file's text kept; yours was dropped")
        elif choice == COPY:
            self.save_copy(mine, copy_path(self.path, dt.datetime.now()))

    @work(thread=True, exclusive=True, group="editor-save")
    def save_copy(self, text: str, path: str) -> None:
        answer = self.kb.tool("note_write", {"path": path, "mode": "create", "content": text})
        self.app.call_from_thread(self._copied, text, answer)

    def _copied(self, text: str, answer: Envelope) -> None:
        if not answer.get("ok"):
            self.kb.report_failure(answer)
            return
        original = self.path
        self.path, self.hash, self.saved_text = str(answer["path"]), str(answer["hash"]), text
        newline = self.details.rpartition(" · ")[2]  # the copy is UTF-8, same line endings
        self.details, self.disk_changed = f"UTF-8 · {newline}" if newline else "UTF-8", False
        self.show_title()
        self.notify(f"yours is in {self.path}; {original} keeps theirs", timeout=10)

    # -- leaving ---------------------------------------------------------------------------
    def action_leave(self) -> None:
        if not self.modified:
            self.dismiss()
            return

        def chosen(what: str | None) -> None:
            if what == "save":
                self.leaving = True
                self.action_save()
            elif what == "discard":
                self.dismiss()

        self.app.push_screen(LeaveEditor(self.path), chosen)
