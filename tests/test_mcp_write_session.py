"""Two assistants write one note through the SDK's own stdio client (issue 39, Show): each
`kbtui mcp` is a real server process, a client of the vault's owner (as beside a running TUI).
Assistant A reads the note with its hash and adds a line under a heading; assistant B, which
read the note before A's edit, is refused as stale with nothing written; the history names
both the outside version and A's edit; A restores the note and the file is byte for byte what
it was. The calls are printed as a transcript (docs/writing.md shows one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbtui.runtime.shared import SharedVault
from tests.test_mcp_scope_stdio import owner, stdio  # noqa: F401  (the owner fixture)

NOTE = "projects/atlas_sync.md"


def show(who: str, name: str, args: dict[str, Any], answer: dict[str, Any]) -> None:
    shown = {k: v for k, v in answer.items() if k not in ("text", "diff", "success")}
    print(f"{who} {name} {json.dumps(args)}\n  -> {json.dumps(shown)[:400]}")


def test_two_assistants_one_note_stale_refused_history_and_restore(
    owner: SharedVault,  # noqa: F811
) -> None:
    vault: Path = owner.settings.vault
    original = (vault / NOTE).read_bytes()
    with stdio(owner, "--write-folders", "projects") as a, stdio(owner) as b:
        first = a.call("note_read", {"note": "project:atlas_sync"})
        show("A", "note_read", {"note": "project:atlas_sync"}, first)
        seen_by_b = b.call("note_read", {"note": NOTE})["hash"]
        assert first["path"] == NOTE and first["hash"] == seen_by_b

        edit = {
            "note": NOTE,
            "edits": [{"section": "Atlas Sync > Design notes", "text": "- Ops are signed"}],
            "expected_hash": first["hash"],
        }
        done = a.call("note_edit", edit)
        show("A", "note_edit", edit, done)
        assert done["ok"] and done["added"] == 1 and done["removed"] == 0
        text = (vault / NOTE).read_text()
        assert (
            "- See [[2026-02-24 Sync architecture]] for the big decision log\n- Ops are signed\n"
            in text
        )

        late = {
            "note": NOTE,
            "edits": [{"old": "Merge happens on read", "new": "Merge happens on write"}],
            "expected_hash": seen_by_b,
        }
        refused = b.call("note_edit", late)
        show("B", "note_edit", late, refused)
        assert refused["ok"] is False and refused["error_type"] == "StaleError"
        assert refused["current_hash"] == done["hash"]
        assert (vault / NOTE).read_text() == text  # nothing of B's written

        listed = a.call("note_history", {"note": NOTE})
        show("A", "note_history", {"note": NOTE}, listed)
        versions = listed["versions"]
        assert versions[0]["source"] == "mcp:stdio-probe" and versions[0]["added"] == 1
        before_edit = versions[1]
        assert before_edit["hash"] == first["hash"]

        restore = {
            "note": NOTE,
            "action": "restore",
            "version": before_edit["version"],
            "expected_hash": done["hash"],
        }
        back = a.call("note_history", restore)
        show("A", "note_history", restore, back)
        assert back["ok"] and back["hash"] == first["hash"]
    assert (vault / NOTE).read_bytes() == original
