"""The first note a person opens after a start (issue 18: "first note view <= 0.5 s"; the TUI
took 3.5 s on obsidian-hub's 43k chunks): the note and its links must not wait for what needs
the whole vault, i.e. get_chunk's related passages and topic cluster (every vector, a k-means
over every note), nor kb_get for the chunk cache (every chunk's text)."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any

import pytest
from textual.widgets import Markdown, Static

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from kbtui.vault import spans as spans_module
from tests.tui_helpers import settle

pytestmark = pytest.mark.anyio
WAIT = 20.0  # seconds: only bounds a failing test


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class HeldChunks:
    """The real runtime, except that get_chunk answers only once `release` is set: what the
    view shows meanwhile is what it shows before the vault's vectors and clusters load."""

    def __init__(self, runtime: VaultRuntime) -> None:
        self.runtime = runtime
        self.release = threading.Event()
        self.asked_when: list[bool] = []  # per get_chunk: was the note's body drawn by then
        self.app: KbApp | None = None

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        if name == "get_chunk":
            self.asked_when.append(self.drawn())
            assert self.release.wait(WAIT)
        return self.runtime.call(name, args)

    def drawn(self) -> bool:
        assert self.app is not None
        screen = self.app.screen
        return isinstance(screen, NoteScreen) and bool(screen.query_one("#note-body").children)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runtime, name)


async def until(check: Any) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "the view never got there"
        await asyncio.sleep(0.01)


async def test_the_note_is_shown_before_its_related_passages(runtime: VaultRuntime) -> None:
    held = HeldChunks(runtime)
    app = held.app = KbApp(held, vault_name="vault", status_seconds=60)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(OpenNote("concept:crdt"))
        await until(lambda: isinstance(app.screen, NoteScreen) and app.screen.note is not None)
        screen = app.screen
        assert isinstance(screen, NoteScreen)
        await pilot.pause()
        assert "CRDT" in screen.query_one("#note-body", Markdown).source
        assert "…" in str(screen.query_one("#note-card", Static).render())  # still coming
        held.release.set()
        await settle(pilot)
        assert "…" not in str(screen.query_one("#note-card", Static).render())
    # the calls that load the whole vault's vectors and clusters began once it was drawn
    assert held.asked_when == [True]


def test_a_note_is_read_without_loading_every_chunk(runtime: VaultRuntime) -> None:
    """kb_get on a freshly opened index reads the note's chunks from the table; they equal
    what the chunk cache gives once a search has loaded it."""
    store = runtime.kb.store
    assert store._chunk_cache is None  # as opened: nothing has loaded the cache yet
    before = runtime.call("kb_get", {"id": "concept:crdt"})
    chunks_before = store.note_chunks("concept:crdt")
    note_before = store.note("concept:crdt")
    assert store._chunk_cache is None  # the note did not load every chunk's text
    runtime.call("kb_search", {"query": "crdt merge"})
    assert store._chunk_cache is not None
    assert runtime.call("kb_get", {"id": "concept:crdt"}) == before
    assert store.note_chunks("concept:crdt") == chunks_before
    assert store.note("concept:crdt") == note_before
    assert before["ok"] and before["chunks_count"] == len(chunks_before) > 0


def test_spans_compile_no_pattern_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A note's prose spans (the unlinked-mention scan reads every note's) are found by
    plain search: a pattern compiled per line cost 60% of a 6.6k-note scan. Lines with
    aliased links (`|`) too; only a raw line with a backslash needs one."""
    compiled: list[str] = []
    real = re.compile

    def counting(pattern: Any, flags: int = 0) -> Any:
        compiled.append(str(pattern))
        return real(pattern, flags)

    lines = [f"Line {i} names [[note {i}|Note {i}]] and plain words." for i in range(200)]
    text = "# Title\n\n" + "\n\n".join(lines) + "\n\n| a \\| b | c |\n|---|---|\n| 1 | 2 |\n"
    monkeypatch.setattr(spans_module.re, "compile", counting)
    found = spans_module.spans(text)
    monkeypatch.undo()
    assert len(compiled) <= 3  # the table's line with an escaped pipe, not 200 prose lines
    prose = [text[s.start : s.end] for s in found if s.kind == "prose"]
    assert any("names" in p for p in prose) and any("plain words" in p for p in prose)


class Counted:
    """The real runtime, counting the calls of each tool."""

    def __init__(self, runtime: VaultRuntime) -> None:
        self.runtime = runtime
        self.calls: dict[str, int] = {}

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls[name] = self.calls.get(name, 0) + 1
        return self.runtime.call(name, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runtime, name)


async def test_a_pass_reloads_the_shown_note_but_not_its_vault_wide_mention_scan(
    runtime: VaultRuntime,
) -> None:
    counted = Counted(runtime)
    app = KbApp(counted, vault_name="vault", status_seconds=60)  # type: ignore[arg-type]
    note_file = runtime.settings.vault / "concepts" / "crdt.md"
    async with app.run_test(size=(120, 40)) as pilot:
        app.post_message(OpenNote("concept:crdt"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NoteScreen)
        assert counted.calls["app_note_mentions"] == 1
        note_file.write_text(note_file.read_text() + "\nA line saved while it was shown.\n")
        with runtime.worker.pass_lock:
            runtime.worker.indexer.run(paths=["concepts/crdt.md"])
        screen.index_changed()  # what the app calls once the status shows a new pass
        await settle(pilot)
        assert "saved while it was shown" in screen.query_one("#note-body", Markdown).source
        assert counted.calls["kb_get"] == 2
        assert counted.calls["app_note_mentions"] == 1
        await pilot.press("r")  # asked for: everything again
        await settle(pilot)
        assert counted.calls["app_note_mentions"] == 2
