"""The note view's Obsidian panels, toggled by their keys: the outline (`O`) and the files
linking to the note as Obsidian counts them (`B`); opening a note at a line (a task's); the
bases it embeds, drawn under their lines (kbtui.tui.widgets.base_embed), its ```base
blocks drawn in their places (kbtui.tui.widgets.base_block), and its ```dataview and ```tasks
blocks (kbtui.tui.widgets.query_block)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown

from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note_rename import RenameNote
from kbtui.tui.widgets.base_block import BaseBlock, NoteBlock, place_blocks
from kbtui.tui.widgets.base_embed import EMBED_ROWS, BaseEmbed, Embed, base_embeds, place_embeds
from kbtui.tui.widgets.note_panels import backlink_options, block_holding, outline_options
from kbtui.tui.widgets.query_block import place_query_blocks
from kbtui.tui.widgets.results import EntityList

PANELS = ("note-outline", "note-filelinks")  # hidden until their key shows them


class ObsidianPanels(RenameNote):
    """Mixed into NoteScreen (which has `note`, `entity_id` and `at`)."""

    at: tuple[int | None, str]
    embed_focus: int | None = None  # the embed that had the keyboard when the note was redrawn
    resolve_link: Callable[..., Any]  # NoteScreen's worker

    def action_toggle_panel(self, widget_id: str) -> None:
        """Show or hide an Obsidian panel (focused when shown, so arrows and Enter work)."""
        panel = self.query_one(f"#{widget_id}", EntityList)
        panel.display = not panel.display
        if panel.display:
            self.set_focus(panel)
            self._load_panels()
        elif self.focused is panel:
            self.set_focus(self.query_one("#note-body-scroll"))

    def _load_panels(self) -> None:
        note, shown = self.note, [self.query_one(f"#{p}").display for p in PANELS]
        if note is not None and note.get("ok") and any(shown):
            self.load_panels(str(note["id"]), str(note["metadata"]["file_path"]), *shown)

    @work(thread=True, exclusive=True, group="note-panels")
    def load_panels(self, entity_id: str, path: str, outline: bool, linked: bool) -> None:
        """The outline and Obsidian's backlinks of the note, for the panels shown."""
        heads = self.kb.tool("app_outline", {"note": path}) if outline else None
        back = {"kind": "backlinks", "note": path}
        files = self.kb.tool("vault_links", back) if linked else None
        self.app.call_from_thread(self._show_panels, entity_id, heads, files)

    def _show_panels(
        self, entity_id: str, outline: dict[str, Any] | None, linked: dict[str, Any] | None
    ) -> None:
        if entity_id != self.entity_id:
            return
        for widget_id, answer, options, empty in (
            ("#note-outline", outline, outline_options, "no headings"),
            ("#note-filelinks", linked, backlink_options, "no file links here"),
        ):
            if answer is not None:
                found = options(answer) if answer.get("ok") else []
                self.query_one(widget_id, EntityList).show(found, empty=empty, keep=True)

    def _go_to_line(self) -> None:
        """Scroll the body to the block holding the line asked for (a task's), once."""
        line, text = self.at
        self.at = (None, "")
        block = block_holding(self.query_one("#note-body", Markdown), text, line) if line else None
        self._show_block(block)

    def _show_block(self, block: Widget | None) -> None:
        if block is not None:
            scroll = self.query_one("#note-body-scroll", VerticalScroll)
            scroll.scroll_to_widget(block, animate=False, top=True)

    # -- embedded bases --------------------------------------------------------------------
    def show_base_embeds(self, entity_id: str, content: str, path: str) -> None:
        """Draw the bases the note embeds and its ```base, ```dataview and ```tasks blocks in
        their places (after its body is drawn, which removed the old)."""
        body = self.query_one("#note-body", Markdown)
        held = any(b.has_focus_within for b in body.query(NoteBlock))
        place_blocks(body, content, path, entity_id)
        place_query_blocks(body, path)
        if held:  # on the text until the block that had the keyboard is drawn again and takes it
            self.set_focus(self.query_one("#note-body-scroll"))
        embeds = base_embeds(content)
        if embeds:
            self.load_embeds(entity_id, embeds)

    @work(thread=True, exclusive=True, group="note-embeds")
    def load_embeds(self, entity_id: str, embeds: list[Embed]) -> None:
        drawn = []
        for base, view in embeds:
            args: dict[str, Any] = {"file": base, "this": entity_id, "limit": EMBED_ROWS}
            if view:
                args["view"] = view
            drawn.append(((base, view), self.kb.tool("base_query", args)))
        self.app.call_from_thread(self._place_embeds, entity_id, drawn)

    def _place_embeds(self, entity_id: str, drawn: list[tuple[Embed, dict[str, Any]]]) -> None:
        if entity_id == self.entity_id:
            placed = place_embeds(self.query_one("#note-body", Markdown), drawn)
            at, self.embed_focus = self.embed_focus, None
            if at is not None and at < len(placed):  # the keyboard where it was before
                placed[at].focus()

    @on(BaseBlock.Opened)
    def _open_block(self, event: BaseBlock.Opened) -> None:
        event.stop()
        self.app.push_screen(BaseScreen(event.file, event.view, this=self.entity_id))

    @on(BaseEmbed.Opened)
    def _open_embed(self, event: BaseEmbed.Opened) -> None:
        """The whole view, `this` still the note (the link in the text does the same)."""
        event.stop()
        self.app.push_screen(BaseScreen(event.base, event.view, this=self.entity_id))
