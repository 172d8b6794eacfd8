"""SVG snapshots of the editor with its completion list open, the conflict view and the
Review screen, on a copy of vault_example (the README's pictures: make_screenshots.py).

Regenerate after an intended change with
`pytest tests/test_tui_edit_snapshots.py --snapshot-update` and look at the SVGs
(tests/__snapshots__/test_tui_edit_snapshots/) before committing them."""

from __future__ import annotations

import sqlite3
import time

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tui.app import KbApp
from kbtui.tui.edit.editor import EditorScreen
from kbtui.tui.messages import OpenNote
from tests.test_tui_snapshots import Snap, shot
from tests.tui_helpers import make_app

WHEN = time.mktime((2026, 12, 7, 9, 30, 0, 0, 0, -1))  # every proposal's time, fixed


def to_the_end(app: KbApp) -> None:
    """The editor's cursor at the end of the note, steady (no blink in a picture)."""
    screen = app.screen
    assert isinstance(screen, EditorScreen)
    screen.area.cursor_blink = False
    screen.area.move_cursor(screen.area.document.end)


def test_editor_with_link_completion(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """`i` on a note, a new line, `[[ti`: the notes that match, best first, under the cursor."""
    steps = (OpenNote("concept:crdt"), "i", to_the_end, "enter", "type:Used in [[ti")
    assert shot(snap_compare, make_app(runtime), *steps)


def test_conflict_view(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """Unsaved text, another program's save on disk, ctrl+s: both sides and the diff."""
    crdt = runtime.settings.vault / "concepts" / "crdt.md"

    def save_elsewhere(app: KbApp) -> None:
        with crdt.open("a", encoding="utf-8") as other:
            other.write("\nSaved by another program while kbtui had the note open.\n")

    steps = (
        OpenNote("concept:crdt"),
        "i",
        to_the_end,
        "enter",
        "type:Typed in kbtui, not saved yet.",
        save_elsewhere,
        "ctrl+s",
    )
    assert shot(snap_compare, make_app(runtime), *steps)


def test_review_screen(snap_compare: Snap, runtime: VaultRuntime) -> None:
    """Two writes an assistant asked for under `kbtui mcp --review`, the newest's diff."""
    with acting_as(Origin("mcp:claude", review=True)):
        edit = {"section": "Design notes", "position": "append",
                "text": "- Compact the op log once a week (proposed)"}  # fmt: skip
        assert runtime.call("note_edit", {"note": "atlas_sync", "edits": [edit]})["pending"]
        new = {"path": "Inbox/Sync questions", "content": "# Sync questions\n\n- How big may "
               "the op log grow?\n- Who compacts it?\n"}  # fmt: skip
        assert runtime.call("note_write", new)["pending"]
    history = runtime.kb.tools.parts.history
    assert history is not None
    with sqlite3.connect(history.path) as con:
        con.execute("UPDATE proposals SET time = ?", (WHEN,))
    assert shot(snap_compare, make_app(runtime), "f3")
