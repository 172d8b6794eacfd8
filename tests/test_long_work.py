"""Long work never holds the store while a search waits (issue 33, item 1): a vault-wide
mentions scan, a cluster build and a query's embedding run with the store lock let go, and
the scan gives way to calls in flight. Real DuckDB files throughout.

"Still running" is a fact in each test, not a timing guess: the long work is held mid-way (a
note that is a named pipe, a clustering or an embedding that waits for an event) while
another call must finish; under the old behaviour that call waited forever.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kbtui.search.topics as topics
import kbtui.tools.graph.extract as extract
import kbtui.tools.graph.rename as rename
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.runtime.traffic import PAUSE_LIMIT, CallTraffic
from tests.conftest import open_runtime

WAIT = 30  # s: generous; a call that waits for the long work never gets there


def _in_thread(fn: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.update(answer=fn()), daemon=True)
    thread.start()
    return thread, out


def test_a_search_answers_while_a_vault_wide_scan_reads_a_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people" / "Ada Lovelace.md").write_text("She wrote the first program.\n")
    (vault / "zz_slow.md").write_text("# Slow\nAda Lovelace again.\n")
    runtime = open_runtime(vault, HashEmbedder())
    try:
        slow = vault / "zz_slow.md"
        slow.unlink()
        os.mkfifo(slow)  # the scan's read of this note blocks until we write
        scanner, scan = _in_thread(lambda: runtime.call("kg_suggest_links", {}))
        opened = os.open(slow, os.O_WRONLY)  # returns once the scan has opened the pipe
        try:
            searcher, search = _in_thread(
                lambda: runtime.call("kb_search", {"query": "first program"})
            )
            searcher.join(WAIT)
            assert search.get("answer", {}).get("results"), "the search waited for the scan"
            assert "answer" not in scan  # the scan is still waiting on the pipe
        finally:
            os.write(opened, b"# Slow\nAda Lovelace again.\n")
            os.close(opened)
        scanner.join(WAIT)
        found = scan["answer"]
        assert found["ok"], found
        assert [(s["filePath"], s["text"]) for s in found["suggestions"]] == [
            ("zz_slow.md", "Ada Lovelace")
        ]
    finally:
        runtime.close()


def test_scans_beside_searches_all_answer(runtime: VaultRuntime) -> None:
    """The scan's store reads happen before it lets the store go: read while another thread
    used the one connection, they failed (IndexError) or broke that thread's query."""
    first = runtime.call("kg_suggest_links", {"limit": 100})
    assert first["ok"] and first["totalFound"] > 0, first
    stop = threading.Event()
    failures: list[dict[str, Any]] = []

    def scans() -> None:
        while not stop.is_set():
            answer = runtime.call("kg_suggest_links", {"limit": 100})
            if not answer["ok"] or answer["totalFound"] != first["totalFound"]:
                failures.append(answer)

    scanner = threading.Thread(target=scans, daemon=True)
    scanner.start()
    try:
        for i in range(150):
            query = ["battery life", "gesture model", "Vector Watch"][i % 3]
            for name, args in (
                ("kb_search", {"query": query}),
                ("kg_get_neighbors", {"entityId": "person:andrei_clodius"}),
            ):
                answer = runtime.call(name, args)
                if not answer["ok"]:
                    failures.append(answer)
    finally:
        stop.set()
        scanner.join(WAIT)
    assert failures == []


def test_a_search_answers_while_clusters_are_built(
    runtime: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    building, go = threading.Event(), threading.Event()
    real_build = topics.build_clusters

    def held_build(*args: Any) -> Any:
        building.set()
        go.wait(WAIT)
        return real_build(*args)

    monkeypatch.setattr(topics, "build_clusters", held_build)
    chunk_id = runtime.call("kb_search", {"query": "Vector Watch"})["results"][0]["metadata"][
        "chunk_id"
    ]
    viewer, view = _in_thread(lambda: runtime.call("get_chunk", {"chunk_id": chunk_id}))
    try:
        assert building.wait(WAIT)
        searcher, search = _in_thread(lambda: runtime.call("kb_search", {"query": "battery"}))
        searcher.join(WAIT)
        assert search.get("answer", {}).get("ok"), "the search waited for the clustering"
        assert "answer" not in view
    finally:
        go.set()
    viewer.join(WAIT)
    assert view["answer"]["ok"] and view["answer"]["cluster"] is not None, view


class HeldEmbedder(HashEmbedder):
    """Holds the embedding of one query until released."""

    def __init__(self, held: str) -> None:
        self.held, self.embedding, self.go = held, threading.Event(), threading.Event()

    def embed(self, texts: list[str]) -> np.ndarray:
        if texts == [self.held]:
            self.embedding.set()
            self.go.wait(WAIT)
        return super().embed(texts)


def test_other_calls_answer_while_a_query_is_embedded(tmp_path: Path, tui_vault: Path) -> None:
    embedder = HeldEmbedder("slow model question")
    runtime = open_runtime(tui_vault, embedder)
    try:
        searcher, search = _in_thread(
            lambda: runtime.call("kb_search", {"query": "slow model question"})
        )
        assert embedder.embedding.wait(WAIT)
        getter, get = _in_thread(lambda: runtime.call("kb_get", {"id": "person:andrei_clodius"}))
        getter.join(WAIT)
        assert get.get("answer", {}).get("ok"), "kb_get waited for another call's embedding"
        assert "answer" not in search
        embedder.go.set()
        searcher.join(WAIT)
        assert search["answer"]["ok"], search
    finally:
        embedder.go.set()
        runtime.close()


def test_long_work_pauses_while_a_call_is_in_flight_and_not_otherwise() -> None:
    traffic = CallTraffic()
    with traffic.call(), traffic.long_work():  # the long call itself is not waited for
        traffic._long.since = 0.0  # a slice of work done
        traffic.pause()
        assert traffic.paused < PAUSE_LIMIT
    in_call, done = threading.Event(), threading.Event()

    def other_call() -> None:
        with traffic.call():
            in_call.set()
            done.wait(WAIT)

    other = threading.Thread(target=other_call, daemon=True)
    other.start()
    assert in_call.wait(WAIT)
    with traffic.call(), traffic.long_work():
        traffic._long.since = 0.0
        traffic.pause()  # the other call is in flight: waits PAUSE_LIMIT
        assert traffic.paused >= PAUSE_LIMIT * 0.9
    done.set()
    other.join(WAIT)
    assert traffic.in_flight() == 0


@pytest.mark.parametrize(
    ("module", "function", "name", "args"),
    [
        (extract, "find_duplicates", "kg_find_duplicates", {"threshold": 0.8}),
        (
            rename,
            "rewrite_links",
            "kg_rename_entity",
            {"entityId": "person:andrei_clodius", "newName": "Andrei C", "dryRun": True},
        ),
    ],
)
def test_a_search_answers_while_duplicates_or_a_rename_are_planned(
    runtime: VaultRuntime,
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    function: str,
    name: str,
    args: dict[str, Any],
) -> None:
    working, go = threading.Event(), threading.Event()
    real = getattr(module, function)

    def held(*a: Any, **k: Any) -> Any:
        working.set()
        go.wait(WAIT)
        return real(*a, **k)

    monkeypatch.setattr(module, function, held)
    planner, plan = _in_thread(lambda: runtime.call(name, args))
    try:
        assert working.wait(WAIT)
        searcher, search = _in_thread(lambda: runtime.call("kb_search", {"query": "battery"}))
        searcher.join(WAIT)
        assert search.get("answer", {}).get("ok"), f"the search waited for {name}"
        assert "answer" not in plan
    finally:
        go.set()
    planner.join(WAIT)
    assert plan["answer"]["ok"], plan
