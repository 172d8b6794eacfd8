"""An assistant's first question on a vault that was never indexed (issue 19.1).

MCP clients start `kbtui mcp` when they start and may ask at once; the answer must find what
the vault holds (the question waits a little for the first pass) and say how complete the
index was (`index`), so that an empty answer is never mistaken for "the vault knows nothing".
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.worker import IndexWorker
from kbtui.runtime.index_state import FIRST_READ_WAIT, annotate, index_state
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import copy_indexed, copy_vault
from tests.test_mcp import open_session

INDEX_KEYS = {"state", "notes_indexed", "notes_known", "chunks_embedded", "chunks_total"}


def test_the_first_question_on_a_new_vault_finds_its_note(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "fresh")
    assert not (vault / ".kbtui").exists()

    async def first_questions(errlog: IO[str]) -> tuple[dict, dict]:
        async with open_session(vault, errlog) as session:  # initialize, then at once:
            search = await session.call_tool(
                "kb_search", {"query": "who led the mobile team on the watch"}
            )
            path = await session.call_tool(
                "kg_find_path",
                {"fromEntityId": "person:amara_nwosu", "toEntityId": "technology:zephyr_rtos"},
            )
            assert isinstance(search.structured_content, dict)
            assert isinstance(path.structured_content, dict)
            return search.structured_content, path.structured_content

    with (tmp_path / "server.log").open("w") as errlog:
        search, path = asyncio.run(first_questions(errlog))
    assert search["ok"] is True
    top = [r["id"] for r in search["results"][:3]]
    assert "person:andrei_clodius" in top, search
    index = search["index"]
    assert set(index) >= INDEX_KEYS and index["state"] in ("ready", "indexing", "embedding")
    assert 60 <= index["notes_indexed"] <= index["notes_known"] == 65  # all but unreadable ones
    assert 0 <= index["chunks_embedded"] <= index["chunks_total"]
    assert path["ok"] is True and path["found"] is True and "index" in path


def _worker(state: str = "indexing", known: int | None = 10) -> dict:
    return {"state": state, "notes_known": known, "last_change": 1_764_000_000.0}


def test_an_empty_answer_from_an_incomplete_index_says_so() -> None:
    stats = {"notes": 4, "chunks": 8, "embedded": 0}
    answer = annotate({"ok": True, "success": True, "results": []}, index_state(_worker(), stats))
    assert answer["index"]["state"] == "indexing"  # 4 of the 10 notes read so far
    assert answer["index"]["last_change"] == "2025-11-24T16:00:00+00:00"
    assert "still being built" in answer["message"] and "4 of 10 notes" in answer["message"]


@pytest.mark.parametrize(
    ("worker", "stats", "state"),
    [
        (_worker("embedding"), {"notes": 10, "chunks": 8, "embedded": 3}, "embedding"),
        (_worker("indexing"), {"notes": 10, "chunks": 8, "embedded": 8}, "indexing"),
        (_worker("idle", None), {"notes": 10, "chunks": 8, "embedded": 8}, "ready"),
    ],
)
def test_the_state_follows_the_worker_and_the_counts(worker: dict, stats: dict, state: str) -> None:
    assert index_state(worker, stats)["state"] == state


def test_a_complete_index_or_a_hit_adds_no_warning() -> None:
    ready = index_state(_worker("idle"), {"notes": 10, "chunks": 8, "embedded": 8})
    empty = annotate({"ok": True, "success": True, "results": []}, ready)
    assert "message" not in empty  # nothing matched in a complete index: a real answer
    building = index_state(_worker("embedding"), {"notes": 10, "chunks": 8, "embedded": 2})
    hit = annotate({"ok": True, "success": True, "results": [{"id": "a:b"}]}, building)
    assert "message" not in hit and hit["index"]["state"] == "embedding"


def test_a_one_shot_command_on_an_indexed_vault_says_ready(indexed_example: Settings) -> None:
    """`kbtui path ...` opens the index without a first pass: nothing is being built."""
    runtime = VaultRuntime(indexed_example, None, watch=False)
    runtime.start(catch_up=False)
    try:
        answer = runtime.call(
            "kg_find_path",
            {"fromEntityId": "person:amara_nwosu", "toEntityId": "technology:zephyr_rtos"},
        )
    finally:
        runtime.close()
    assert answer["found"] is True and answer["index"]["state"] == "ready"
    assert "still being built" not in answer["message"]


def test_a_read_at_shutdown_does_not_wait_for_a_first_pass_that_never_comes(
    tmp_path: Path,
) -> None:
    """Closed right after opening (the stop arrives before the worker took its first pass):
    a read in flight must not sit out FIRST_READ_WAIT, which is longer than a client gives
    the server to exit."""
    vault = copy_vault(tmp_path / "vault")
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
    runtime.worker.request_stop()  # ordered, not timed: the pass never begins
    runtime.start()
    answers: list[dict[str, Any]] = []
    reader = threading.Thread(
        target=lambda: answers.append(runtime.call("kb_search", {"query": "vector"}))
    )
    reader.start()
    runtime.close()
    reader.join(FIRST_READ_WAIT / 2)
    assert not reader.is_alive(), "a read waited for a first pass that never came"
    assert len(answers) == 1


def test_an_indexed_vault_answers_at_once_while_its_first_pass_looks_for_changes(
    tmp_path: Path, tui_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started on a vault it indexed before answers from that index at once and
    says a pass is running; it does not wait for the pass to scan every file (55k notes:
    ~1.5 s of a spawned server's first answer). Here the pass is held until the end."""
    vault = copy_indexed(tui_template, tmp_path / "vault")
    release = threading.Event()
    real_pass = IndexWorker._pass

    def held_pass(worker: IndexWorker, paths: list[str] | None) -> None:
        release.wait(60)
        real_pass(worker, paths)

    monkeypatch.setattr(IndexWorker, "_pass", held_pass)
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
    runtime.start()
    answers: list[dict[str, Any]] = []
    try:
        reader = threading.Thread(
            target=lambda: answers.append(runtime.call("kb_search", {"query": "Zephyr firmware"}))
        )
        reader.start()
        reader.join(FIRST_READ_WAIT / 2)
        assert not reader.is_alive(), "the first question waited for the pass"
        (answer,) = answers
        assert answer["results"] and answer["index"]["state"] == "indexing"
    finally:
        release.set()
        runtime.close()


def test_a_spawned_servers_watcher_and_pass_wait_for_its_first_answer(
    tmp_path: Path, tui_template: Path
) -> None:
    """`kbtui mcp` on an indexed vault: the watcher and the pass at start are Python work on
    the interpreter lock the first answer needs, so they begin once it is given."""
    vault = copy_indexed(tui_template, tmp_path / "vault")
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=True)
    runtime.start(first_answer_first=True)
    try:
        assert not runtime.worker.alive  # waiting for the first answer (START_DELAY at most)
        assert runtime.watcher is not None and not runtime.watcher.alive
        answer = runtime.call("kb_search", {"query": "Zephyr firmware"})
        assert answer["results"] and answer["index"]["state"] == "indexing"
        deadline = time.monotonic() + 30
        while not runtime.worker.alive and time.monotonic() < deadline:
            time.sleep(0.01)
        assert runtime.worker.alive and runtime.worker.wait_idle(30)
        assert runtime.watcher is not None and runtime.watcher.alive
        assert runtime.call("kb_search", {"query": "Zephyr firmware"})["index"]["state"] == "ready"
    finally:
        runtime.close()


@pytest.mark.parametrize("answered", [False, True])
def test_a_deferred_start_never_begins_after_close(
    tmp_path: Path, tui_template: Path, answered: bool
) -> None:
    vault = copy_indexed(tui_template, tmp_path / "vault")
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=True)
    runtime.start(first_answer_first=True)
    if answered:
        runtime.call("kb_get", {"id": "person:amara_nwosu"})
    runtime.close()
    assert not runtime.worker.alive
    assert runtime.watcher is not None and not runtime.watcher.alive
