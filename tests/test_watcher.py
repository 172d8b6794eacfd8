"""The watcher: filtering, debouncing and coalescing with synthetic events and a hand-driven
clock, then one real observer on a temporary vault."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from watchdog.events import (
    DirCreatedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing import embedding as embedding_module
from kbtui.indexing.indexer import Indexer
from kbtui.indexing.watcher import ChangeBatch, ChangeBatcher, VaultWatcher
from kbtui.indexing.worker import IndexWorker
from kbtui.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def batcher(root: Path, **kwargs: float) -> tuple[ChangeBatcher, list[ChangeBatch], Clock]:
    got: list[ChangeBatch] = []
    clock = Clock()
    max_paths = int(kwargs.pop("max_paths", 50))
    b = ChangeBatcher(root, got.append, clock=clock, max_paths=max_paths, **kwargs)
    return b, got, clock


def test_debounce_waits_for_a_quiet_period_and_coalesces(tmp_path: Path) -> None:
    b, got, clock = batcher(tmp_path, quiet=0.3, max_wait=5)
    note = str(tmp_path / "people" / "ada.md")
    b.add_event(FileCreatedEvent(note))
    clock.now += 0.1
    b.add_event(FileModifiedEvent(note))
    b.add_event(FileModifiedEvent(str(tmp_path / "Home.md")))
    clock.now += 0.2
    assert b.poll() is None  # only 0.2 s since the last event
    clock.now += 0.15
    assert b.poll() == ChangeBatch(("Home.md", "people/ada.md"))
    assert got == [ChangeBatch(("Home.md", "people/ada.md"))]
    assert b.poll() is None and not b.pending


def test_a_continuous_storm_still_flushes_after_max_wait(tmp_path: Path) -> None:
    b, got, clock = batcher(tmp_path, quiet=0.3, max_wait=1.0)
    for i in range(12):
        b.add_event(FileModifiedEvent(str(tmp_path / f"n{i}.md")))
        clock.now += 0.1
        b.poll()
    assert len(got) == 1 and len(got[0].paths) == 11  # flushed at 1.0 s, the 12th waits
    clock.now += 0.3
    assert b.poll() == ChangeBatch(("n11.md",))


def test_ignored_paths_and_events_are_dropped(tmp_path: Path) -> None:
    b, got, clock = batcher(tmp_path)
    for event in (
        FileModifiedEvent(str(tmp_path / ".kbtui" / "index.duckdb.wal")),
        FileModifiedEvent(str(tmp_path / ".obsidian" / "workspace.md")),
        FileCreatedEvent(str(tmp_path / "notes" / ".ada.md.swp")),
        FileCreatedEvent(str(tmp_path / "node_modules" / "x" / "README.md")),
        FileCreatedEvent(str(tmp_path.parent / "elsewhere.md")),
        FileOpenedEvent(str(tmp_path / "a.md")),
        FileClosedNoWriteEvent(str(tmp_path / "a.md")),
        DirModifiedEvent(str(tmp_path / "people")),
        DirCreatedEvent(str(tmp_path / ".git" / "objects")),
    ):
        b.add_event(event)
    clock.now += 1
    assert b.poll() is None and got == []


def test_pdfs_attachments_and_any_other_file_are_watched(tmp_path: Path) -> None:
    """Every vault file is a `file.*` row a base can list (kepano's "Everything"), so a .zip
    or a .txt the index does not read still reaches it."""
    b, _got, clock = batcher(tmp_path)
    b.add_event(FileCreatedEvent(str(tmp_path / "attachments" / "photo.png")))
    b.add_event(FileModifiedEvent(str(tmp_path / "papers" / "paper.pdf")))
    b.add_event(FileCreatedEvent(str(tmp_path / "attachments" / "readme.txt")))
    b.add_event(FileDeletedEvent(str(tmp_path / "old.zip")))
    clock.now += 1
    assert b.poll() == ChangeBatch(
        ("attachments/photo.png", "attachments/readme.txt", "old.zip", "papers/paper.pdf")
    )


def test_renames_give_both_paths_and_editor_saves_the_final_one(tmp_path: Path) -> None:
    b, _got, clock = batcher(tmp_path)
    b.add_event(FileMovedEvent(str(tmp_path / "old.md"), str(tmp_path / "new name.md")))
    # an editor's atomic save: write a temp file, rename it over the note
    b.add_event(FileCreatedEvent(str(tmp_path / "people" / ".ada.md.tmp123")))
    b.add_event(
        FileMovedEvent(str(tmp_path / "people" / ".ada.md.tmp123"), str(tmp_path / "people/ada.md"))
    )
    b.add_event(FileDeletedEvent(str(tmp_path / "gone.markdown")))
    clock.now += 1
    assert b.poll() == ChangeBatch(("gone.markdown", "new name.md", "old.md", "people/ada.md"))


def test_folder_moves_and_event_storms_ask_for_a_rescan(tmp_path: Path) -> None:
    b, _got, clock = batcher(tmp_path, max_paths=100)
    b.add_event(DirMovedEvent(str(tmp_path / "people"), str(tmp_path / "team")))
    clock.now += 1
    assert b.poll() == ChangeBatch((), rescan=True)
    for i in range(5000):  # memory stays bounded: past max_paths only the flag remains
        b.add_paths([f"bulk/{i}.md"])
    assert len(b._paths) == 0 and b._rescan
    clock.now += 1
    assert b.flush() == ChangeBatch((), rescan=True)
    assert b.flush() is None


def test_the_worker_merges_batches_and_indexes_them(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people" / "ada.md").write_text("# Ada\nAda Lovelace wrote the first program.\n")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    lock = threading.RLock()
    worker = IndexWorker(settings, store, HashEmbedder(), lock)
    try:
        worker.start(full=True)
        assert worker.wait_idle(20)
        assert worker.status()["state"] == "idle" and worker.passes == 1
        with lock:
            assert store.note("person:ada") is not None
        (vault / "people" / "bob.md").write_text("# Bob\nBob builds looms.\n")
        (vault / "people" / "ada.md").unlink()
        worker.submit(ChangeBatch(("people/bob.md",)))
        worker.submit(ChangeBatch(("people/ada.md",)))
        assert worker.wait_idle(20)
        with lock:
            assert store.note("person:bob") is not None and store.note("person:ada") is None
        assert worker.last_report is not None and worker.last_report.deleted == ["people/ada.md"]
    finally:
        assert worker.stop(10)
        store.close()
    assert worker.status()["state"] == "stopped"


class HeldEmbedder(HashEmbedder):
    """Says when its first batch started and holds it until `release` is set, so a stop is
    provably asked mid-pass however loaded the machine; counts its batches."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.started.set()
        self.release.wait(20)
        return super().embed(texts)


def test_stop_ends_a_pass_at_the_next_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding_module, "EMBED_BATCH", 2)
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(20):
        (vault / f"note{i}.md").write_text(f"# Note {i}\nSome text about topic {i}.\n")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    embedder = HeldEmbedder()
    worker = IndexWorker(settings, store, embedder, threading.RLock())
    try:
        worker.start()
        assert embedder.started.wait(20)
        worker.request_stop()  # while the first of ten batches is in the model
        embedder.release.set()
        assert worker.stop(20)
        assert embedder.calls <= 2  # the batch in the model, at most one more: not all ten
        assert store.count_embedded() < 20 and store.count_pending() > 0
        Indexer(settings, store, HashEmbedder()).run()  # the next start finishes the job
        assert store.count_pending() == 0 and store.note_count() == 20
    finally:
        store.close()


def test_a_real_observer_reports_saves_renames_and_skips_ignored(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / ".kbtui").mkdir()
    got: list[ChangeBatch] = []
    arrived = threading.Event()

    def collect(batch: ChangeBatch) -> None:
        got.append(batch)
        arrived.set()

    watcher = VaultWatcher(vault, collect, index_dir=vault / ".kbtui", quiet=0.2)
    # Only the quiet period can hand a batch over (no storm cap within the test): a batch
    # proves the flush timer woke on it, whatever the machine's load delays it by.
    watcher.batcher.max_wait = 3600.0
    assert watcher.start()
    try:
        (vault / "notes" / "idea.md").write_text("# An idea\n")
        (vault / ".kbtui" / "index.duckdb").write_bytes(b"x")
        assert arrived.wait(60), "no batch after the quiet period"
        assert got == [ChangeBatch(("notes/idea.md",))]

        arrived.clear()
        temp = vault / "notes" / ".idea.md.tmp"
        temp.write_text("# An idea, revised\n")
        os.replace(temp, vault / "notes" / "idea.md")
        assert arrived.wait(60)
        assert got[-1] == ChangeBatch(("notes/idea.md",))
        assert not [b for b in got if any(".kbtui" in p or ".tmp" in p for p in b.paths)]
    finally:
        watcher.stop()


def test_watchdogs_stop_race_is_not_logged_as_an_error(caplog: pytest.LogCaptureFixture) -> None:
    """watchdog's inotify emitter logs an ERROR when a read returns after stop (a race inside
    it; every `kbtui mcp` exit printed one); other watchdog errors still show."""
    inotify_log = logging.getLogger("watchdog.observers.inotify")
    with caplog.at_level(logging.ERROR, logger="watchdog.observers.inotify"):
        inotify_log.error("InotifyEmitter.queue_events() called when the thread is inactive")
        inotify_log.error("inotify watch limit reached")
    assert [r.getMessage() for r in caplog.records] == ["inotify watch limit reached"]
