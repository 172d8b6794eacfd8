"""What a save costs (issue 18: save -> searchable within 0.5 s on a 43k-chunk vault): the pass
for one saved note and the searches after it must do work in proportion to that note, not to
the vault. On obsidian-hub's size, every statement that read the whole vector column (the
vector reuse grouping every vector by hash, the waiting-chunk queries, the embedded count,
the vector index's list of embedded chunks) cost 20-170 ms per save.

Counted, not timed: the statements a save runs are recorded on the real DuckDB connection,
and the ones that read vectors must be bounded by chunk id to the chunks the save wrote."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from kbtui.runtime.runtime import VaultRuntime
from kbtui.search.clusters import assign
from kbtui.store import Store
from kbtui.store.file.clean_close import forget

# A statement that names the vector column reads it only for the chunks its cid condition
# selects: the new ones (cid >= / BETWEEN), an id list (cid IN (...)) or one chunk (cid =).
BOUNDED = re.compile(r"\bcid\s*(>=|=|BETWEEN\b|IN\s*\()", re.IGNORECASE)


class Recorder:
    """The store's DuckDB connection, recording each statement it runs."""

    def __init__(self, con: Any) -> None:
        self.con = con
        self.statements: list[str] = []

    def execute(self, sql: str, *args: Any) -> Any:
        self.statements.append(" ".join(sql.split()))
        return self.con.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


@contextmanager
def recorded(store: Store) -> Iterator[list[str]]:
    recorder = Recorder(store.con)
    store.con = recorder  # type: ignore[assignment]
    try:
        yield recorder.statements
    finally:
        store.con = recorder.con


def save_pass(rt: VaultRuntime, rel: str) -> None:
    """What the worker runs for a watcher batch holding this one path."""
    with rt.worker.pass_lock:
        report = rt.worker.indexer.run(paths=[rel])
    assert report.new or report.changed


def vector_reads(statements: list[str]) -> list[str]:
    return [s for s in statements if "embedding" in s and not BOUNDED.search(s)]


def test_a_save_reads_only_its_own_chunks_vectors(real_runtime: VaultRuntime) -> None:
    rt, store = real_runtime, real_runtime.kb.store
    rt.call("kb_search", {"query": "battery"})  # the in-memory indexes are loaded
    vault = rt.settings.vault
    edited = vault / "concepts" / "crdt.md"
    with recorded(store) as statements:
        (vault / "notes").mkdir(exist_ok=True)
        (vault / "notes" / "saved.md").write_text("# Saved\n\nAbout the plinthwick battery.\n")
        save_pass(rt, "notes/saved.md")
        edited.write_text(edited.read_text() + "\nAn edit about plinthwick merges.\n")
        save_pass(rt, "concepts/crdt.md")
        answer = rt.call("kb_search", {"query": "plinthwick"})
        status = rt.status()
    assert {r["id"] for r in answer["results"]} >= {"note:saved", "concept:crdt"}
    assert status["index"]["chunks_waiting_for_vectors"] == 0
    assert any("embedding" in s for s in statements)  # the recorder saw the vector work
    assert vector_reads(statements) == []


def test_embedded_count_and_waiting_chunks_stay_exact(
    tmp_path: Path, runtime: VaultRuntime
) -> None:
    """The counts that no longer read the vector column agree with it in every state."""
    store = runtime.kb.store

    def check() -> None:
        stats = store.stats()
        embedded = len(store.embedded_cids())
        assert stats["embedded"] == embedded
        assert store.count_pending() == stats["chunks"] - embedded - stats["not_embedded"]

    check()
    vault = runtime.settings.vault
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "waiting.md").write_text("# Waiting\n\nNo vector yet: glimmerquay.\n")
    with runtime.worker.pass_lock:
        runtime.worker.indexer.run(paths=["notes/waiting.md"], embed=False)
    assert store.count_pending() > 0
    check()
    with runtime.worker.pass_lock:
        runtime.worker.indexer.run(paths=["notes/waiting.md"])
    assert store.count_pending() == 0
    check()
    store.reset_embeddings_for_model("another-model")  # every vector dropped: all wait
    assert store.stats()["embedded"] == 0
    check()
    runtime.worker.indexer.embed_pending()
    assert store.count_pending() == 0
    check()


def test_the_vector_index_follows_saves_edits_deletes_and_a_new_model(
    runtime: VaultRuntime,
) -> None:
    """The vector index catches up from the store's log of written vectors; what it holds
    must equal what the store holds, vector for vector, after each kind of change."""
    store, vectors = runtime.kb.store, runtime.kb.vectors
    vault = runtime.settings.vault

    def same() -> None:
        vectors.sync()
        alive = vectors.cids[vectors.alive]
        assert alive.tolist() == store.embedded_cids().tolist()
        found, stored = store.load_vectors(alive)
        assert found.tolist() == alive.tolist()
        held = vectors.matrix[vectors.alive].astype(np.float32)
        assert np.allclose(held, stored, atol=1e-3)

    def index(*paths: str) -> None:
        with runtime.worker.pass_lock:
            runtime.worker.indexer.run(paths=list(paths))

    same()
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "fresh.md").write_text("# Fresh\n\nA new note about tidewater.\n")
    index("notes/fresh.md")
    same()
    crdt = vault / "concepts" / "crdt.md"
    crdt.write_text(crdt.read_text() + "\nOne more paragraph about tidewater.\n")
    index("concepts/crdt.md")  # unchanged chunks keep their vectors under new ids
    same()
    (vault / "notes" / "fresh.md").unlink()
    index("notes/fresh.md")
    same()
    store.reset_embeddings_for_model("another-model")
    same()
    assert vectors.size == 0
    runtime.worker.indexer.embed_pending()
    same()
    assert vectors.size == len(store.embedded_cids()) > 0


def test_a_save_places_its_note_in_a_cluster_without_looking_at_every_note(
    runtime: VaultRuntime,
) -> None:
    """get_chunk's cluster after a save (the TUI reloads the note it shows after each pass):
    the saved note is assigned to its nearest centroid, as a look at every note would place
    it, without recomputing every note's mean vector (1-3 s per save at 43k chunks)."""
    topics, vault = runtime.kb.topics, runtime.settings.vault
    assert runtime.call("get_chunk", {"chunk_id": "concept:crdt_chunk_0"})["cluster"]
    full_looks = 0
    every_note = topics.note_vectors

    def counted() -> tuple[list[str], np.ndarray]:
        nonlocal full_looks
        full_looks += 1
        return every_note()

    topics.note_vectors = counted  # type: ignore[method-assign]
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "clustered.md").write_text(
        "# Clustered\n\nCRDT merges converge on every device: conflict-free sync.\n"
    )
    save_pass(runtime, "notes/clustered.md")
    answer = runtime.call("get_chunk", {"chunk_id": "note:clustered_chunk_0"})
    assert full_looks == 0
    assert topics.model is not None
    ids, vectors = every_note()
    expected = int(assign(vectors[[ids.index("note:clustered")]], topics.model.centroids)[0][0])
    assert answer["cluster"]["cluster_id"] == topics.model.info(expected)["cluster_id"]


@pytest.mark.parametrize("last_exit", ["crash", "clean close"])
def test_opening_reads_the_vector_column_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, last_exit: str
) -> None:
    """Before the first answer, the open read every vector three times: the damage check's
    count, the embedded ids and stats' count of the waiting chunks (1M chunks: 1.2-1.8 s
    each). One read answers all three; the waiting chunks' floor it sets keeps the later
    counts to the chunks past it. After a clean close, none: the close recorded the ids
    and the floor beside the file (kbtui/store/vectors/open_facts.py), the same as the read gives;
    rows written by SQL outside the store's methods included."""
    path = tmp_path / "index.duckdb"
    store = Store(path)
    store.con.execute(
        """INSERT INTO chunks (cid, chunk_id, entity_id, chunk_index, heading, content,
               start_pos, end_pos, content_hash, n_terms, embedding, not_embedded)
           SELECT i, 'n' || i, 'n' || i, 0, '', 'text ' || i, 0, 0, md5(i::VARCHAR), 1,
                  list_transform(range(384), x -> 0.05)::FLOAT[384],
                  CASE WHEN i % 6 = 0 THEN 'code' END
           FROM range(1, 301) t(i)"""
    )
    store.con.execute("UPDATE chunks SET embedding = NULL WHERE cid % 3 = 0 OR cid = 250")
    store.con.execute("CHECKPOINT")
    store.close()
    if last_exit == "crash":
        forget(path)  # as a process killed before its close leaves it: no stamp, no facts
    connect = duckdb.connect
    recorders: list[Recorder] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        recorders.append(Recorder(connect(*args, **kwargs)))
        return recorders[-1]

    monkeypatch.setattr(duckdb, "connect", recording)
    store = Store(path)
    monkeypatch.undo()
    try:
        assert vector_reads(recorders[0].statements) == [
            s for s in recorders[0].statements if "embedding IS NOT NULL AS has" in s
        ]
        assert len(vector_reads(recorders[0].statements)) == (last_exit == "crash")
        waiting = [i for i in range(1, 301) if (i % 3 == 0 or i == 250) and i % 6 != 0]
        embedded = [i for i in range(1, 301) if i % 3 != 0 and i != 250]
        assert store.embedded_at_open().tolist() == embedded  # type: ignore[union-attr]
        assert store.count_pending() == len(waiting)
        stats = store.stats()
        assert (stats["embedded"], stats["not_embedded"]) == (len(embedded), 50)
        assert store._pending_from == min(waiting)  # the later counts start there
    finally:
        store.close()
