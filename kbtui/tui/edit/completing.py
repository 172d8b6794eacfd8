"""The editor's completion (EditorScreen inherits it): after `[[` a note by its link text,
title or alias, after `[[Note#` its headings (app_outline; `[[#`: this note's own), after `#`
a tag; the names come from app_link_names once per editor, ranked as completion.py says. The
list follows the cursor; Enter or Tab accepts (a link gets its `]]`), Escape closes it for
that link."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.geometry import Offset
from textual.widgets import TextArea

from kbtui.tui.edit.completion import (
    Choice,
    CompletionList,
    Context,
    Ranker,
    context,
    heading_ranker,
    in_code_block,
    link_ranker,
    tag_ranker,
    text_headings,
)
from kbtui.tui.screens.base import KbScreen


class Completing(KbScreen):
    """The completion state and behaviour of a screen holding a TextArea `#editor-area` and
    a CompletionList."""

    AREA: ClassVar[str] = "#editor-area"

    def __init__(self) -> None:
        super().__init__()
        self.links: Ranker | None = None
        self.tags: Ranker | None = None
        self.headings: dict[str, Ranker] = {}  # another note's headings, by the name typed
        self.ctx: Context | None = None
        self.dismissed: tuple[int, int] | None = None  # a list closed by Escape: (row, start)

    @property
    def area(self) -> TextArea:
        return self.query_one(self.AREA, TextArea)

    @property
    def completion(self) -> CompletionList:
        return self.query_one(CompletionList)

    @work(thread=True, exclusive=True, group="editor-names")
    def load_names(self) -> None:
        answer = self.kb.tool("app_link_names", {})
        if answer.get("ok"):
            links, tags = link_ranker(answer["notes"]), tag_ranker(answer["tags"])
            self.app.call_from_thread(self._names_loaded, links, tags)

    def _names_loaded(self, links: Ranker, tags: Ranker) -> None:
        self.links, self.tags = links, tags
        self.complete()

    @on(TextArea.SelectionChanged)
    def _moved(self, event: TextArea.SelectionChanged) -> None:
        """The cursor left what the list completes (an arrow key, a click): it closes. A
        letter typed moves the cursor too, before the text's change is seen: the same link
        (kind and start) keeps the list, which the change then ranks again."""
        if not self.completion.shown:
            return
        now, was = self.cursor_context(), self.ctx
        if now is None or was is None or (now.kind, now.start) != (was.kind, was.start):
            self.completion.hide()

    def cursor_context(self) -> Context | None:
        area = self.area
        row, column = area.cursor_location
        found = context(area.document.get_line(row)[:column])
        if found is not None and in_code_block(area.document.lines, row):
            return None
        return found

    def complete(self) -> None:
        """Show (or hide) the list for what the cursor is after."""
        ctx = self.ctx = self.cursor_context()
        row = self.area.cursor_location[0]
        if ctx is None or (row, ctx.start) == self.dismissed:
            self.completion.hide()
            return
        self.dismissed = None
        choices = self.choices(ctx)
        if not choices:
            self.completion.hide()
            return
        self.completion.show_choices(choices)
        x, y = self.area.cursor_screen_offset
        self.completion.absolute_offset = Offset(max(0, x - len(ctx.query) - 1), y + 1)

    def choices(self, ctx: Context) -> list[Choice]:
        if ctx.kind == "link":
            return self.links.rank(ctx.query) if self.links else []
        if ctx.kind == "tag":
            return self.tags.rank(ctx.query) if self.tags else []
        if not ctx.note:  # [[#: this note's own headings
            return heading_ranker(text_headings(self.area.text)).rank(ctx.query)
        ranker = self.headings.get(ctx.note)
        if ranker is None:
            self.load_headings(ctx.note)
            return []
        return ranker.rank(ctx.query)

    @work(thread=True, group="editor-headings")
    def load_headings(self, note: str) -> None:
        answer = self.kb.tool("app_outline", {"note": note})
        found = answer.get("results") if answer.get("ok") else []
        ranker = heading_ranker([(int(h["level"]), str(h["heading"])) for h in found or []])
        self.app.call_from_thread(self._headings_loaded, note, ranker)

    def _headings_loaded(self, note: str, ranker: Ranker) -> None:
        self.headings[note] = ranker
        if self.ctx is not None and self.ctx.note == note:
            self.complete()

    def accept(self) -> None:
        """The highlighted choice replaces what was typed; a link gets its `]]`."""
        choice, ctx = self.completion.chosen(), self.ctx
        self.completion.hide()
        if choice is None or ctx is None:
            return
        area = self.area
        row, column = area.cursor_location
        after = area.document.get_line(row)[column:]
        insert = choice.insert
        closed = ctx.kind in ("link", "heading") and after.startswith("]]")
        if ctx.kind in ("link", "heading") and not closed:
            insert += "]]"
        area.replace(insert, (row, ctx.start), (row, column), maintain_selection_offset=False)
        if closed:
            area.move_cursor((row, ctx.start + len(insert) + 2))
        self.completion.hide()

    def dismiss_completion(self) -> None:
        if self.ctx is not None:
            self.dismissed = (self.area.cursor_location[0], self.ctx.start)
        self.completion.hide()
