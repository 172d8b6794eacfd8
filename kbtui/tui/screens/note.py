"""The note view: the rendered note, its frontmatter, card and cluster, links both ways,
unlinked mentions both ways (Enter links one) and related passages; history for back
navigation; `e` edits the file in $EDITOR; `m` renames or moves it (dry run, then confirm);
`h` its history and `d` delete it (kbtui.tui.writing.note_writes)."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Markdown, Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.messages import NoteDetails, NoteLoaded, OpenNote, ShowGraph
from kbtui.tui.screens.base_view import BaseScreen
from kbtui.tui.screens.note_side import PANELS, ObsidianPanels
from kbtui.tui.widgets.base_embed import clear_embeds
from kbtui.tui.widgets.note_panels import HEADING_PREFIX, heading_block
from kbtui.tui.widgets.note_parts import (
    WIKILINK_SCHEME,
    card_text,
    cluster_text,
    link_options,
    metadata_table,
    note_markdown,
    pdf_markdown,
    related_options,
)
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.writing.note_writes import NoteWrites

LINK_LIMIT = 100
RELATED_LIMIT = 8
DRAW_WAIT = 2.0  # seconds the details wait for the note to be drawn, at most
EDIT = Binding.Group("Edit")  # the footer says `e i Edit`; f1 tells the two apart


class NoteScreen(ObsidianPanels, NoteWrites):
    """One note at a time; following a link keeps the previous one in `history`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "leave",
            "Back",
            tooltip="Back; in a side panel: to the note's text",
            id="note.back",
        ),
        Binding(
            "backspace",
            "back",
            "Back",
            tooltip="Back, from a side panel too",
            show=False,
            id="note.back_key",
        ),
        Binding(  # `e` and `i` share a word in the footer: the note view's keys fit 120 columns
            "e", "edit", "Edit", tooltip="Edit in $VISUAL / $EDITOR", id="note.edit", group=EDIT
        ),
        Binding(
            "i",
            "edit_here",
            "Edit here",
            tooltip="Edit in kbtui ([[ and # complete, ctrl+s saves)",
            id="note.edit_here",
            group=EDIT,
        ),
        Binding("g", "graph", "Graph map", id="note.graph"),
        Binding("l", "focus_panel('note-outgoing')", "Links", id="note.links"),
        Binding("b", "focus_panel('note-backlinks')", "Backlinks", id="note.backlinks"),
        Binding("u", "focus_panel('note-mentions')", "Mentions", id="note.mentions"),
        Binding("m", "rename", "Rename/move…", id="note.rename"),
        Binding("r", "reload", "Reload", show=False, id="note.reload"),
        Binding("o", "open_file", "Open file", show=False, id="note.open_file"),
        Binding("O", "toggle_panel('note-outline')", "Outline", show=False, id="note.outline"),
        Binding(
            "B",
            "toggle_panel('note-filelinks')",
            "Linked files",
            tooltip="Files linking here",
            show=False,
            id="note.filelinks",
        ),
    ]

    def __init__(
        self, entity_id: str, page: int | None = None, at: tuple[int | None, str] = (None, "")
    ) -> None:
        super().__init__()
        self.entity_id = entity_id
        self.page = page  # a PDF's page to show first (the search hit's)
        self.at = at  # a line of the file (and its text) to show first: a task's
        self.history: list[str] = []
        self.note: dict[str, Any] | None = None
        self.mentions: list[dict[str, Any]] = []
        self._details_for: str | None = None  # the note the card and related panels show
        self._mentions_for: str | None = None  # the note the mentions panel shows

    def compose_body(self) -> ComposeResult:
        yield Static(id="note-title")
        with Horizontal(id="note-main"):
            with VerticalScroll(id="note-body-scroll"):
                yield Markdown(id="note-body", open_links=False)
            with VerticalScroll(id="note-side"):
                yield EntityList(id="note-outline", classes="panel")
                yield EntityList(id="note-filelinks", classes="panel")
                yield Static(id="note-meta", classes="panel")
                yield EntityList(id="note-outgoing", classes="panel")
                yield EntityList(id="note-backlinks", classes="panel")
                yield EntityList(id="note-mentions", classes="panel")
                yield Static(id="note-card", classes="panel")
                yield Static(id="note-cluster", classes="panel")
                yield EntityList(id="note-related", classes="panel")

    def on_mount(self) -> None:
        titles = {
            "note-meta": "Metadata",
            "note-card": "Knowledge card",
            "note-cluster": "Cluster",
            "note-outgoing": "Links →",
            "note-backlinks": "Backlinks ←",
            "note-mentions": "Unlinked mentions (Enter links)",
            "note-related": "Related",
            "note-outline": "Outline (O)",
            "note-filelinks": "Linked files ← (B)",
        }
        for widget_id, title in titles.items():
            self.query_one(f"#{widget_id}").border_title = title
        for panel in PANELS:  # shown by their keys
            self.query_one(f"#{panel}").display = False
        self.query_one("#note-body-scroll").focus()
        self.load(self.entity_id)

    # -- navigation ------------------------------------------------------------------------
    def show_entity(
        self, entity_id: str, page: int | None = None, at: tuple[int | None, str] = (None, "")
    ) -> None:
        """Follow a link: the current note goes on the history stack."""
        self.at = at
        if entity_id == self.entity_id and page == self.page:
            self._go_to_line()
            return
        if entity_id != self.entity_id:
            self.history.append(self.entity_id)
        self.entity_id, self.page = entity_id, page
        self._read_from_top()
        self.load(entity_id)

    def action_back(self) -> None:
        if self.history:
            self.entity_id, self.page = self.history.pop(), None
            self._read_from_top()
            self.load(self.entity_id)
        else:
            self.dismiss()

    def _read_from_top(self) -> None:
        """Another note: the focus on its text, so Escape walks back through the history."""
        self.set_focus(self.query_one("#note-body-scroll"))

    def action_leave(self) -> None:
        """Escape in a side panel goes back to the note's text; on the text, back. Leaving
        the note from a panel sent the next keys (meant for the note) to the search box."""
        focused = self.focused
        body = self.query_one("#note-body-scroll")
        if focused is not None and focused is not body and focused.id != "note-body":
            self.set_focus(body)
            return
        self.action_back()

    def action_focus_panel(self, widget_id: str) -> None:
        # At once, not deferred like Widget.focus(): "l" then Enter typed fast must follow.
        self.set_focus(self.query_one(f"#{widget_id}"))

    def action_reload(self) -> None:
        self.load(self.entity_id)

    def action_graph(self) -> None:
        self.post_message(ShowGraph(self.entity_id, "map"))

    def action_open_file(self) -> None:
        """`o`: the note's file (a PDF above all) in the system's viewer."""
        if self.note is not None and self.note.get("ok"):
            self.kb.open_file(str(self.note["metadata"]["file_path"]))

    def action_edit(self) -> None:
        if self.note is not None and self.note.get("ok"):
            self.kb.edit_note(self.entity_id, str(self.note["metadata"]["file_path"]))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`i` is in the footer where kbtui's editor can open the note: not on a PDF."""
        return not (action == "edit_here" and self.note is not None and "pages" in self.note)

    def action_edit_here(self) -> None:
        """`i`: the in-app editor on this note; the view shows what was saved after."""
        if self.note is not None and self.note.get("ok") and "pages" not in self.note:
            self.kb.open_editor(str(self.note["metadata"]["file_path"]), self.action_reload)

    def index_changed(self) -> None:
        """After each pass (a save anywhere in the vault): the note, links and details again,
        not its unlinked mentions, whose scan reads every note of the vault (seconds at 6.6k
        notes, holding the index from the next save's pass); `r` or opening it again does."""
        self.load(self.entity_id, mentions=False)

    # -- loading ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="note")
    def load(self, entity_id: str, mentions: bool = True) -> None:
        """The note and its links first (DuckDB reads of this note), then what needs the
        whole vault's vectors and clusters (the first get_chunk after a start loads them:
        seconds at 43k chunks), then the unlinked mentions (a scan of the vault's files)."""
        note = self.kb.tool("kb_get", {"id": entity_id})
        neighbours = {"entityId": entity_id, "limit": LINK_LIMIT}
        outgoing = self.kb.tool("kg_get_neighbors", {**neighbours, "direction": "outgoing"})
        incoming = self.kb.tool("kg_get_neighbors", {**neighbours, "direction": "incoming"})
        drawn = threading.Event()
        self.post_message(NoteLoaded(entity_id, note, outgoing, incoming, drawn))
        if not note.get("ok"):
            return
        # The note is drawn before the calls that keep a CPU (and the GIL) busy for seconds
        # the first time: drawing it beside them took 1.6 s instead of a tenth of that.
        drawn.wait(DRAW_WAIT)
        if mentions:
            self.app.call_from_thread(self.load_mentions, entity_id)
        chunk = self.kb.tool(
            "get_chunk",
            {
                "chunk_id": f"{entity_id}_chunk_0",
                "related_limit": RELATED_LIMIT,
                "exclude_same_note": True,
            },
        )
        self.post_message(NoteDetails(entity_id, chunk))

    @work(thread=True, exclusive=True, group="note-mentions")
    def load_mentions(self, entity_id: str) -> None:
        """The unlinked mentions (a scan of the vault's files) on their own thread: behind
        the card and related passages (whose first call loads every vector) the panel stayed
        empty for seconds."""
        found = self.kb.tool("app_note_mentions", {"entityId": entity_id})
        self.app.call_from_thread(self._show_mentions, entity_id, found)

    def _show_mentions(self, entity_id: str, found: dict[str, Any]) -> None:
        if entity_id != self.entity_id:
            return
        self._mentions_for = entity_id
        if not found.get("ok"):
            failed = Text(f"✗ {found.get('message')}", style="red")
            self.query_one("#note-mentions", EntityList).show([], empty=str(failed))
            return
        self.mentions = [*found["incoming"], *found["outgoing"]]
        options = []
        for i, m in enumerate(self.mentions):
            text = Text()
            if m["targetEntityId"] == entity_id:
                text.append("← ", style="bold")
                text.append(f"{m['text']!r} in {m['filePath']}:{m['line']}")
            else:
                text.append("→ ", style="bold")
                text.append(f"{m['text']!r} names {m['targetEntityId']} (line {m['line']})")
            options.append(Option(text, id=f"mention-{i}"))
        self.query_one("#note-mentions", EntityList).show(options, empty="no unlinked mentions")

    @on(NoteLoaded)
    async def _loaded(self, message: NoteLoaded) -> None:
        message.stop()
        try:
            await self._show_note(message)
        finally:
            self.call_after_refresh(message.drawn.set)

    async def _show_note(self, message: NoteLoaded) -> None:
        if message.entity_id != self.entity_id:
            return  # the user moved on while this loaded
        same = self.note is not None and self.note.get("id") == message.entity_id
        note = self.note = message.note
        body = self.query_one("#note-body", Markdown)
        focused = clear_embeds(body)  # the last note's bases, never drawn above this one
        self.embed_focus = focused if same else None  # the same note: given back when drawn
        if focused is not None:  # meanwhile on the text, not on the block after the embed
            self.set_focus(self.query_one("#note-body-scroll"))
        title = self.query_one("#note-title", Static)
        if not note.get("ok"):
            title.update(Text(f"✗ {message.entity_id}", style="bold red"))
            await body.update(f"**Cannot show this note.**\n\n{note.get('message')}")
            self.kb.report_failure(note)
            return
        meta = note["metadata"]
        heading = Text(cell_safe(str(note["title"])), style="bold")
        heading.append(f"  {note['type']}", style="cyan")
        heading.append(f"  {note['id']} · {cell_safe(str(meta.get('file_path', '')))}", style="dim")
        count = note["chunks_count"]
        heading.append(f"  · {count} chunk{'' if count == 1 else 's'}", style="dim")
        if self.history:
            heading.append(f"  · back: {len(self.history)}", style="dim")
        title.update(heading)
        self.refresh_bindings()  # a PDF has no `i`
        content = str(note["content"])
        if "pages" in note:  # a PDF: its pages, the hit's first
            content = pdf_markdown(note["pages"], self.page, meta.get("unreadable"))
        elif not content.strip():  # a properties-only note: say so instead of a blank pane
            content = "*No text in this note: its properties (right) are what it says.*"
        await body.update(note_markdown(content))
        if "pages" not in note:
            self.show_base_embeds(message.entity_id, content, str(meta.get("file_path", "")))
        if not same:  # the same note again (written meanwhile): read on where you were
            self.query_one("#note-body-scroll", VerticalScroll).scroll_home(animate=False)
        if self.at[0] is not None:
            self.call_after_refresh(self._go_to_line)
        self._load_panels()
        self.query_one("#note-meta", Static).update(metadata_table(meta))
        self.query_one("#note-outgoing", EntityList).show(
            link_options(message.outgoing, message.entity_id), empty="no outgoing links", keep=same
        )
        self.query_one("#note-backlinks", EntityList).show(
            link_options(message.incoming, message.entity_id), empty="no backlinks", keep=same
        )
        if not same:  # another note: its details are on their way
            for widget_id in ("#note-card", "#note-cluster"):
                self.query_one(widget_id, Static).update(Text("…", style="dim"))
            self.query_one("#note-related", EntityList).show([], empty="…")
            if self._mentions_for != message.entity_id:  # not already there
                self.query_one("#note-mentions", EntityList).show([], empty="…")

    @on(NoteDetails)
    def _details(self, message: NoteDetails) -> None:
        message.stop()
        if message.entity_id != self.entity_id:
            return
        same = self._details_for == message.entity_id
        self._details_for = message.entity_id
        chunk = message.chunk if message.chunk.get("ok") else {}
        self.query_one("#note-card", Static).update(card_text(chunk))
        self.query_one("#note-cluster", Static).update(cluster_text(chunk))
        self.query_one("#note-related", EntityList).show(
            related_options(chunk), empty="no related passages yet", keep=same
        )

    # -- following links -------------------------------------------------------------------
    @on(EntityList.OptionSelected)
    def _follow(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "note-mentions":
            if event.option.id is not None:
                self.link_mention(self.mentions[int(event.option.id.rsplit("-", 1)[1])])
        elif event.option_list.id == "note-outline" and event.option.id is not None:
            index = int(event.option.id.removeprefix(HEADING_PREFIX))
            self._show_block(heading_block(self.query_one("#note-body", Markdown), index))
        elif event.option_list.id == "note-filelinks" and event.option.id is not None:
            self.resolve_link(event.option.id)  # a vault path: the note it names
        elif event.option.id is not None:
            self.post_message(OpenNote(event.option.id))

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        if event.href.startswith(WIKILINK_SCHEME):
            target = event.href[len(WIKILINK_SCHEME) :]
            name, _, view = target.partition("#")
            if name.lower().endswith(".base"):  # an embedded base opens as its view
                self.app.push_screen(BaseScreen(name, view or None, this=self.entity_id))
            else:
                self.resolve_link(target)
        elif event.href.startswith(("http://", "https://")):
            self.app.open_url(event.href)

    @work(thread=True, group="resolve")
    def resolve_link(self, target: str) -> None:
        found = self.kb.tool("kg_find_entity", {"name": target, "exact": True, "limit": 1})
        if found.get("ok") and found["entities"]:
            self.post_message(OpenNote(found["entities"][0]["id"]))
        else:
            self.app.call_from_thread(
                self.notify, f"No note named {target!r} in the vault", severity="warning"
            )

    # -- unlinked mentions and renames -----------------------------------------------------
    @work(thread=True, group="mentions")
    def link_mention(self, mention: dict[str, Any]) -> None:
        """Enter on a mention: its words become [[Target|words]] in that note."""
        keys = ("sourceEntityId", "targetEntityId", "text", "line", "column")
        done = self.kb.tool("app_link_mention", {k: mention[k] for k in keys})
        severity = "information" if done.get("ok") else "error"
        self.app.call_from_thread(self.notify, str(done.get("message")), severity=severity)
        self.app.call_from_thread(self.load, self.entity_id)
