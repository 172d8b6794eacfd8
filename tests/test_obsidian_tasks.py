"""Tasks: indexed as Obsidian and the Tasks plugin read them (equal to an independent count on
kepano's vault and vault_example), listed with filters, and toggled by writing that one line
atomically, refused when the line changed (real DuckDB index, real files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.parse import parse_note
from tests.conftest import VAULT_EXAMPLE, open_runtime
from tests.obsidian_oracle import Oracle

KEPANO = Path("/work/shared/data/vaults/kepano")
TODO = (
    "---\ntitle: Todo\n---\n"
    "# Todo\n\n"
    "- [ ] Buy milk 📅 2026-01-05\n"
    "- [x] Call Ana ✅ 2026-01-02\n"
    "  - [ ] nested ⏫ 🔁 every week ⏳ 2026-01-03 🛫 2026-01-01\n"
    "- [-] Cancelled\n"
    "- [ ] Report [due:: 2026-02-01] [priority:: high]\n"
    "* [?] Question\n"
    "1. [ ] Numbered 🔽\n\n"
    "```\n- [ ] not a task (code)\n```\n\n"
    "- not a task\n"
    "- [x]\n"
)


def test_task_fields() -> None:
    tasks = parse_note("todo.md", TODO).tasks
    got = [
        (t.line, t.status, t.due, t.scheduled, t.start, t.done, t.priority, t.recurrence)
        for t in tasks
    ]
    assert got == [
        (6, " ", "2026-01-05", "", "", "", "", ""),
        (7, "x", "", "", "", "2026-01-02", "", ""),
        (8, " ", "", "2026-01-03", "2026-01-01", "", "high", "every week"),
        (9, "-", "", "", "", "", "", ""),
        (10, " ", "2026-02-01", "", "", "", "high", ""),
        (11, "?", "", "", "", "", "", ""),
        (12, " ", "", "", "", "", "low", ""),
        (19, "x", "", "", "", "", "", ""),
    ]
    assert tasks[0].text == "- [ ] Buy milk 📅 2026-01-05"


@pytest.mark.parametrize("source", [KEPANO, VAULT_EXAMPLE], ids=["kepano", "vault_example"])
def test_every_task_counted(source: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".kbtui"))
    (vault / "todo.md").write_text(TODO)
    rt = open_runtime(vault, HashEmbedder())
    try:
        oracle = Oracle(vault)
        indexed = {p for p in oracle.notes if rt.kb.store.note_by_name(p) == p}
        expected = [t for t in oracle.tasks() if t[0] in indexed]
        answer = rt.call("tasks_list", {"status": "all", "limit": 100000})
        assert answer["ok"] and answer["index"]["state"] == "ready"
        got = [(t["file"], t["line"], t["status"]) for t in answer["results"]]
        assert got == expected and len(got) >= 9
        # The Tasks plugin's default statuses: [x] DONE, [-] CANCELLED are done; [ ], [/]
        # and any character the settings do not name ([?], [X]) are not done.
        todo = rt.call("tasks_list", {"limit": 100000})["results"]
        assert [(t["file"], t["line"]) for t in todo] == [
            (p, n) for p, n, s in expected if s not in "x-"
        ]
        done = rt.call("tasks_list", {"status": "done", "limit": 100000})["results"]
        assert len(done) == sum(s in "x-" for _, _, s in expected)
        due = rt.call("tasks_list", {"status": "all", "dueBefore": "2026-01-31"})["results"]
        assert [(t["file"], t["line"]) for t in due] == [("todo.md", 6)]
        assert due[0]["text"] == "- [ ] Buy milk 📅 2026-01-05" and due[0]["due"] == "2026-01-05"
    finally:
        rt.close()


@pytest.fixture
def todo_rt(runtime: VaultRuntime) -> VaultRuntime:
    (runtime.settings.vault / "todo.md").write_bytes(TODO.replace("\n", "\r\n").encode())
    runtime.reindex()
    return runtime


def test_toggle_writes_one_line(todo_rt: VaultRuntime) -> None:
    path = todo_rt.settings.vault / "todo.md"
    before = path.read_bytes()
    answer = todo_rt.call(
        "task_update",
        {"file": "todo.md", "line": 6, "status": "toggle", "text": "- [ ] Buy milk 📅 2026-01-05"},
    )
    assert answer["ok"], answer
    assert answer["task"] == {
        "status": "x",
        "text": "- [x] Buy milk 📅 2026-01-05",
        "file": "todo.md",
        "line": 6,
    }
    after = path.read_bytes()
    assert after == before.replace(b"- [ ] Buy milk", b"- [x] Buy milk", 1)
    listed = todo_rt.call("tasks_list", {"status": "done", "note": "todo.md"})["results"]
    assert [t["line"] for t in listed] == [6, 7, 9, 19]  # [?] is not done (Tasks plugin)
    back = todo_rt.call("task_update", {"file": "todo", "line": 6, "status": "todo"})
    assert back["ok"] and path.read_bytes() == before


def test_update_refused_when_line_changed(todo_rt: VaultRuntime) -> None:
    path = todo_rt.settings.vault / "todo.md"
    text = path.read_bytes().replace(b"- [ ] Buy", b"- [ ] Other\r\n- [ ] Buy")
    path.write_bytes(text)  # the index still says line 6 is "Buy milk"; it is "Other" now
    stale = {"file": "todo.md", "line": 6, "status": "done", "text": "- [ ] Buy milk 📅 2026-01-05"}
    answer = todo_rt.call("task_update", stale)
    assert not answer["ok"] and answer["error_type"] == "ConflictError"
    assert "no longer holds that task" in answer["message"]
    assert path.read_bytes() == text  # nothing written
    not_task = todo_rt.call("task_update", {"file": "todo.md", "line": 1, "status": "done"})
    assert not not_task["ok"] and path.read_bytes() == text
    # a line that holds no task is named as such, not as a file that changed
    assert "line 1 of todo.md holds no task" in not_task["message"], not_task["message"]
    assert "changed" not in not_task["message"] and not_task["error"]["field"] == "line"
    bad = todo_rt.call("task_update", {"file": "todo.md", "line": 0})
    assert bad["error"]["type"] == "VALIDATION" and bad["error"]["field"] == "line"


def test_watcher_keeps_tasks_current(tmp_path: Path, tui_template: Path) -> None:
    """A task typed in an editor appears in tasks_list with no explicit re-index; checked in
    the editor, it leaves the open list; the note deleted, its tasks go."""
    from tests.conftest import copy_indexed
    from tests.test_live_index import eventually, live_runtime

    rt = live_runtime(copy_indexed(tui_template, tmp_path / "vault"))
    try:
        note = rt.settings.vault / "inbox.md"
        note.write_text("# Inbox\n\n- [ ] water the plants 📅 2026-05-01\n")

        def open_lines() -> list[tuple[str, int]]:
            found = rt.call("tasks_list", {"note": "inbox.md"})
            return [(t["file"], t["line"]) for t in found["results"]] if found["ok"] else []

        assert eventually(lambda: open_lines() == [("inbox.md", 3)])
        note.write_text("# Inbox\n\n- [x] water the plants 📅 2026-05-01\n")
        assert eventually(
            lambda: (
                not open_lines()
                and rt.call("tasks_list", {"status": "done", "note": "inbox.md"})["count"] == 1
            )
        )
        note.unlink()
        assert eventually(
            lambda: (
                rt.call("tasks_list", {"status": "all", "dueBefore": "2026-06-01"})["count"] == 0
            )
        )
    finally:
        rt.close()
