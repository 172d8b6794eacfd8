"""Reads beside a save (issue 33, goal 1): kb_search, kb_get and the graph reads answer while
a save's statements run, from the index as it was before the save, and from the new index
once it committed; never a mix, never an error. Real DuckDB files, a real VaultRuntime.

"Mid-way" is a fact, not a timing guess: the save is held after its last statement and before
its COMMIT (the store's `before_commit` hook waits for an event), and the reads must finish
meanwhile; under one lock around the store they waited for the save forever.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import copy_indexed

WAIT = 60  # s: generous; a read that waits for the held save never gets there
NOTE = "people/andrei_clodius.md"
ENTITY = "person:andrei_clodius"
WORD = "quokkaventure"  # in no note of vault_example


def _open(vault: Path, approximate: bool) -> VaultRuntime:
    settings = Settings.for_vault(vault)
    if approximate:  # the HNSW side index (vss, its own cursors) serves the vector half
        settings = dataclasses.replace(settings, hnsw_min_chunks=1)
    runtime = VaultRuntime(settings, HashEmbedder(), watch=False, approximate=approximate)
    runtime.start()
    assert runtime.worker.wait_idle(WAIT)
    if approximate:
        runtime.kb.wait_for_ann(WAIT)
        assert runtime.kb.ann_state() in ("built", "reused"), runtime.kb.ann_state()
    return runtime


@pytest.fixture(params=[False, True], ids=["exact", "hnsw"])
def beside(request: pytest.FixtureRequest, tmp_path: Path, tui_template: Path) -> Iterator[Any]:
    runtime = _open(copy_indexed(tui_template, tmp_path / "vault"), request.param)
    yield runtime
    runtime.close()


def _in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["answer"] = fn()
        except BaseException as exc:  # reported by the test, not lost in the thread
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def _hold_before_commit(runtime: VaultRuntime) -> tuple[threading.Event, threading.Event]:
    """The next save stops after its statements, before its COMMIT, until `go`."""
    store = runtime.kb.store
    reached, go = threading.Event(), threading.Event()

    def held() -> None:
        store.before_commit = None  # once
        reached.set()
        assert go.wait(WAIT)

    store.before_commit = held
    return reached, go


def _results(answer: dict[str, Any]) -> list[tuple[str, str, float]]:
    assert answer["ok"], answer
    return [(r["id"], r["metadata"]["chunk_id"], r["score"]) for r in answer["results"]]


READS: list[tuple[str, dict[str, Any]]] = [
    ("kb_search", {"query": "battery life on the watch"}),
    ("kb_search", {"query": WORD}),
    ("kb_search", {"query": "Andrei", "mode": "keyword"}),
    ("kb_get", {"id": ENTITY}),
    ("kg_get_neighbors", {"entityId": ENTITY, "limit": 100}),
]


def _seen(runtime: VaultRuntime) -> list[Any]:
    """What the reads above answer, without what changes between two asks (usage, times)."""
    out: list[Any] = []
    for name, args in READS:
        answer = runtime.call(name, args)
        assert answer["ok"], answer
        if name == "kb_search":
            out.append(_results(answer))
        elif name == "kb_get":
            out.append((answer["title"], answer["content"]))
        else:
            edges = answer["relationships"]
            out.append(sorted((e["fromEntityId"], e["type"], e["toEntityId"]) for e in edges))
    return out


def _edit(vault: Path, text: str) -> None:
    path = vault / NOTE
    path.write_text(path.read_text() + text)


def test_reads_answer_from_the_last_commit_while_a_save_is_held(beside: VaultRuntime) -> None:
    runtime = beside
    before = _seen(runtime)
    assert before[1] == [], "the new word is in no note yet"
    _edit(
        runtime.settings.vault, f"\n## Travels\nHe met a {WORD} and linked [[Kestrel Dashboard]].\n"
    )
    reached, go = _hold_before_commit(runtime)
    saver, saved = _in_thread(lambda: runtime.reindex())
    try:
        assert reached.wait(WAIT), saved
        reader, read = _in_thread(lambda: _seen(runtime))
        reader.join(WAIT)
        assert "error" not in read, read
        assert read.get("answer") == before, "a read waited for the save, or saw part of it"
        assert "answer" not in saved  # the save is still held before its COMMIT
    finally:
        go.set()
        saver.join(WAIT)
    assert "error" not in saved, saved
    assert saved["answer"].changed == [NOTE]
    after = _seen(runtime)
    assert [hit[0] for hit in after[1]][:1] == [ENTITY], after[1]
    assert WORD in after[3][1]
    new = {edge for edge in after[4] if "project:kestrel_dashboard" in edge}
    assert new and not {edge for edge in before[4] if "project:kestrel_dashboard" in edge}


def test_a_reader_cannot_take_the_write_lock() -> None:
    """A read that tried to write would wait for a writer waiting for it: refused at once."""
    from kbtui.store.file.access import LockOrderError, StoreLock

    lock = StoreLock()
    with lock.read, pytest.raises(LockOrderError):
        lock.acquire()
    with lock, lock.read, lock:  # the store lock is re-entrant, the read lock inside it too
        assert lock.owns_write() and lock.owns_read()
    assert not lock.owns_write() and not lock.owns_read()


SAVES = 12


def _save(vault: Path, i: int) -> None:
    """Save i of the stress run: edits, a new note, then that note deleted."""
    if i == 5:
        (vault / "people" / "zoe_quokka.md").write_text(
            f"# Zoe\nA {WORD} keeper at [[Tidepool]].\n"
        )
    elif i == 9:
        (vault / "people" / "zoe_quokka.md").unlink()
    else:
        _edit(vault, f"\nUpdate {i}: a {WORD} seen near [[vector_watch_project]].\n")


def _read(runtime: VaultRuntime, n: int) -> Any:
    name, args = READS[n]
    answer = runtime.call(name, args)
    if not answer.get("ok"):
        return ("failed", answer)
    if name == "kb_search":
        return _results(answer)
    if name == "kb_get":
        return (answer["title"], answer["content"])
    return sorted((e["fromEntityId"], e["type"], e["toEntityId"]) for e in answer["relationships"])


def _reader(runtime: VaultRuntime, n: int, stop: threading.Event, seen: list[Any]) -> None:
    while not stop.is_set():
        seen.append((n, _read(runtime, n)))
        n = (n + 1) % len(READS)


def test_readers_beside_repeated_saves_see_only_committed_states(
    tmp_path: Path, tui_template: Path
) -> None:
    """Readers on three threads while saves follow one another: every answer equals the
    answer a serial run gave at one of the committed states (a save commits its text, then
    its vectors), never an error."""
    for approximate in (False, True):
        serial = _open(copy_indexed(tui_template, tmp_path / f"serial{approximate}"), approximate)
        try:
            states = [[_read(serial, n) for n in range(len(READS))]]
            for i in range(SAVES):
                _save(serial.settings.vault, i)
                for embed in (False, True):  # a save commits its text, then its vectors
                    serial.reindex(embed=embed)
                    states.append([_read(serial, n) for n in range(len(READS))])
        finally:
            serial.close()
        assert all(len({repr(s[n]) for s in states}) > 1 for n in (1, 3)), "saves change answers"
        runtime = _open(copy_indexed(tui_template, tmp_path / f"busy{approximate}"), approximate)
        stop, seen = threading.Event(), []
        readers = [
            threading.Thread(target=_reader, args=(runtime, k, stop, seen), daemon=True)
            for k in range(3)
        ]
        try:
            for thread in readers:
                thread.start()
            for i in range(SAVES):
                _save(runtime.settings.vault, i)
                assert runtime.reindex().changed or i in (5, 9)
        finally:
            stop.set()
            for thread in readers:
                thread.join(WAIT)
            final = [_read(runtime, n) for n in range(len(READS))]
            runtime.close()
        assert final == states[-1]
        odd = [(n, got) for n, got in seen if all(got != state[n] for state in states)]
        assert len(seen) > 3 * SAVES and odd == [], odd[:3]


def test_reads_racing_a_close_end_with_the_closed_answer(runtime: VaultRuntime) -> None:
    """Reads on threads while the runtime closes: each answers, or says the index is closed
    (a structured TRANSIENT error); none raises or fails otherwise, no thread is left."""
    answers: list[dict[str, Any]] = []
    enough = threading.Event()

    def reader() -> None:
        while True:
            answer = runtime.call("kb_search", {"query": "battery life"})
            answers.append(answer)
            if len(answers) >= 20:
                enough.set()
            if not answer["ok"]:
                return

    readers = [threading.Thread(target=reader, daemon=True) for _ in range(3)]
    for thread in readers:
        thread.start()
    assert enough.wait(WAIT)
    runtime.close()
    for thread in readers:
        thread.join(WAIT)
        assert not thread.is_alive()
    failed = [a for a in answers if not a["ok"]]
    assert len(failed) == 3 and {a["error_type"] for a in failed} == {"UnavailableError"}


def test_a_rename_touching_many_notes_finishes(runtime: VaultRuntime) -> None:
    """A tool call that indexes more than one group of notes embeds on a second thread while
    it holds the store lock: that thread must not wait for the caller's lock (it did, and
    the soak's server stopped answering)."""
    orbit = {"query": "Orbit", "mode": "keyword"}
    assert runtime.call("kb_search", orbit)["results"] == []
    renamer, renamed = _in_thread(
        lambda: runtime.call(
            "kg_rename_entity", {"entityId": "project:vector_watch_project", "newName": "Orbit"}
        )
    )
    renamer.join(WAIT)
    assert renamed.get("answer", {}).get("ok"), renamed
    assert len(renamed["answer"]["filesChanged"]) > 16  # more than a pass's first group
    assert runtime.call("kb_search", orbit)["results"] != []
