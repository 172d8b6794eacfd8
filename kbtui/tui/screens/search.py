"""The home screen: search as you type, filters, the note list when there is no query."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from kbtui.cells import cell_safe
from kbtui.tokenize import searchable
from kbtui.tui.messages import OpenNote, SearchDone
from kbtui.tui.screens.base import KbScreen
from kbtui.tui.widgets.results import EntityList, entity_option, result_option

DEBOUNCE_SECONDS = 0.05  # coalesces a burst of keys; short enough to feel instant
MIN_QUERY = 3  # kb_search's minimum query length; two ideographs are a word too (app_search)
TOP_K = 10  # kb_search's maximum
BROWSE_LIMIT = 500


class SearchScreen(KbScreen):
    """Type to search; up/down move through the results, Enter opens the note."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next", show=False, id="search.next"),
        Binding("up", "move(-1)", "Previous", show=False, id="search.previous"),
        Binding("enter", "open", "Open note", id="search.open"),
        Binding("escape", "clear", "Clear", id="search.clear"),
        Binding("slash", "focus_query", "Search", show=False, id="search.focus"),
        Binding("ctrl+t", "cycle_type", "Type filter", id="search.type"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._debounce: Timer | None = None
        self.last_query: str | None = None  # the query the shown results answer (tests, bench)
        self._types: list[str] = []
        self._open_when_shown = False  # Enter came before the typed query's results
        self.pages: dict[str, int] = {}  # a PDF hit's page, by entity id

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="search-bar"):
            yield Input(placeholder="Search the vault (3+ characters)…", id="query")
        with Horizontal(id="filters"):
            yield Select[str]([], prompt="any type", id="type-filter")
            yield Select[str]([], prompt="any tag", id="tag-filter")
            yield Select[str]([], prompt="any folder", id="folder-filter")
        yield Static(id="results-info")
        yield EntityList(id="results")

    def on_mount(self) -> None:
        self.query_one("#query", Input).focus()
        if self.kb.handle is not None:
            self.vault_ready()

    def vault_ready(self) -> None:
        self.load_facets()
        self.run_search()

    def index_changed(self) -> None:
        self.run_search()

    # -- filters ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="facets")
    def load_facets(self) -> None:
        envelope = self.kb.tool("app_facets", {})
        if envelope.get("ok"):
            self.app.call_from_thread(self._show_facets, envelope)
        else:
            self.app.call_from_thread(self.kb.report_failure, envelope)

    def _show_facets(self, envelope: dict[str, Any]) -> None:
        for key, select_id in (("types", "type"), ("tags", "tag"), ("folders", "folder")):
            select = self.query_one(f"#{select_id}-filter", Select)
            current = select.value
            options = [
                (cell_safe(f"{f['name']} ({f['count']})"), str(f["name"])) for f in envelope[key]
            ]
            select.set_options(options)
            if key == "types":
                self._types = [value for _, value in options]
            if current != Select.NULL and any(value == current for _, value in options):
                select.value = current

    def filters(self) -> dict[str, str]:
        out = {}
        for key in ("type", "tag", "folder"):
            value = self.query_one(f"#{key}-filter", Select).value
            if value != Select.NULL:
                out[key] = str(value)
        return out

    @on(Select.Changed)
    def _filter_changed(self) -> None:
        self.run_search()

    def action_cycle_type(self) -> None:
        """Step the type filter through every type and back to none, from the keyboard."""
        select = self.query_one("#type-filter", Select)
        if not self._types:
            return
        at = self._types.index(str(select.value)) + 1 if select.value in self._types else 0
        select.value = self._types[at] if at < len(self._types) else Select.NULL

    # -- searching ---------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self) -> None:
        self._open_when_shown = False
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, self.run_search)

    def run_search(self) -> None:
        if self.kb.handle is None:
            return
        self.search(self.query_one("#query", Input).value.strip(), self.filters())

    @work(thread=True, exclusive=True, group="search")
    def search(self, query: str, filters: dict[str, str]) -> None:
        """Runs off the event loop: typing never waits for the index."""
        started = time.perf_counter()
        browsing = not searchable(query, MIN_QUERY)
        if browsing:
            args: dict[str, Any] = {"limit": BROWSE_LIMIT}
            if "type" in filters:
                args["type"] = filters["type"]
            envelope = self.kb.tool("app_list_entities", args)
        else:
            envelope = self.kb.tool(
                "app_search", {"query": query, "top_k": TOP_K, "filters": filters}
            )
        if not get_current_worker().is_cancelled:
            self.post_message(SearchDone(query, envelope, time.perf_counter() - started, browsing))

    @on(SearchDone)
    def _show_results(self, message: SearchDone) -> None:
        if message.query != self.query_one("#query", Input).value.strip():
            return  # an older query's answer arrived late
        open_now, self._open_when_shown = self._open_when_shown, False
        results = self.query_one("#results", EntityList)
        info = self.query_one("#results-info", Static)
        envelope = message.envelope
        keep = message.query == self.last_query  # a refresh: stay on the same result
        self.last_query = message.query
        if not envelope.get("ok"):
            info.update(Text(f"✗ {envelope.get('message')}", style="bold red"))
            results.show([], empty="no results")
            return
        if message.browsing:
            rows = envelope["entities"]
            results.show(
                (entity_option(e, e["path"]) for e in rows), empty="no notes indexed yet", keep=keep
            )
            shown = f"{len(rows)} of {envelope['total']}" if envelope["total"] > len(rows) else ""
            hint = "type 3+ characters to search" if not message.query else "keep typing…"
            info.update(Text(f"{shown or envelope['total']} notes by title · {hint}", style="dim"))
            return
        hits = envelope["results"]
        self.pages = {r["id"]: r["metadata"]["page"] for r in hits if "page" in r["metadata"]}
        results.show(
            (result_option(r) for r in hits), empty=f"nothing matches {message.query!r}", keep=keep
        )
        if open_now:
            self.action_open()
        active = ", ".join(f"{k}={v}" for k, v in envelope.get("filters_applied", {}).items())
        plural = "" if len(hits) == 1 else "s"
        label = f"{len(hits)} result{plural} for {message.query!r}"
        label += f" ({active})" if active else ""
        info.update(Text(label, style="dim"))

    # -- keys ------------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        results = self.query_one("#results", EntityList)
        if step > 0:
            results.action_cursor_down()
        else:
            results.action_cursor_up()

    def action_open(self) -> None:
        entity_id = self.query_one("#results", EntityList).current_id
        if entity_id is not None:
            self.post_message(OpenNote(entity_id, self.pages.get(entity_id)))

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        """Enter opens the highlighted result; typed faster than the debounce, it searches
        now and opens the top result of *this* query when it arrives, never the old list's."""
        typed = self.query_one("#query", Input).value.strip()
        if typed == self.last_query or not searchable(typed, MIN_QUERY):
            self.action_open()
            return
        if self._debounce is not None:
            self._debounce.stop()
        self._open_when_shown = True
        self.run_search()

    @on(EntityList.OptionSelected, "#results")
    def _selected(self, event: EntityList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(OpenNote(event.option.id, self.pages.get(event.option.id)))

    def action_clear(self) -> None:
        query = self.query_one("#query", Input)
        query.value = ""
        query.focus()

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()
