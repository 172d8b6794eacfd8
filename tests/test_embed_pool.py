"""Bulk embedding on a pool of one-thread model sessions (issue 18): the real model's vectors
are the single session's bit for bit, the sessions exist only for a bulk run and are released
after it, and a stop mid-pass keeps every vector embedded and joins every thread."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kbtui.embed import FastEmbedder
from kbtui.indexing.embedding import POOL_FROM, PendingEmbeddings
from kbtui.indexing.indexer import Indexer
from kbtui.indexing.pool import SessionPool
from kbtui.indexing.texts import embed_text
from kbtui.interpreter import SWITCH_INTERVAL
from kbtui.store import Store
from tests.test_recent_first import _vault


def _pool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kbtui-embed-")]


class _Sessions(FastEmbedder):
    """The real model, two sessions for a bulk run whatever the cores; notes each session it
    makes (weakly: it must be released) and every text the sessions embed, on which thread."""

    def __init__(self) -> None:
        super().__init__(threads=2)
        self.made: list[weakref.ref[FastEmbedder]] = []
        self.embedded: list[tuple[str, str]] = []  # (thread name, text)
        self.lock = threading.Lock()
        self.after: Any = None  # called with the count after each text a session embeds

    def one_thread_session(self) -> FastEmbedder:
        session = super().one_thread_session()
        self.made.append(weakref.ref(session))
        embed = session.embed
        counted = self

        def embed_counted(texts: list[str]) -> np.ndarray:
            vectors = embed(texts)
            with counted.lock:
                counted.embedded.extend((threading.current_thread().name, t) for t in texts)
                n = len(counted.embedded)
            if counted.after is not None:
                counted.after(n)
            return vectors

        session.embed = embed_counted  # type: ignore[method-assign]
        return session

    def released(self) -> bool:
        gc.collect()  # the counting wrapper refers to its session: a cycle
        return all(ref() is None for ref in self.made)


def _rows(store: Store) -> list[tuple[str, str, str, Any]]:
    return store.con.execute(
        "SELECT n.title, c.heading, coalesce(c.shown, c.content), c.embedding "
        "FROM chunks c JOIN notes n USING (entity_id) WHERE c.not_embedded IS NULL "
        "ORDER BY c.cid"
    ).fetchall()


def test_a_bulk_run_embeds_on_released_sessions_giving_the_single_sessions_vectors(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    settings = _vault(tmp_path, notes=64)
    store = Store(settings.db_path)
    embedder = _Sessions()
    switch = sys.getswitchinterval()
    intervals: set[float] = set()
    embedder.after = lambda n: intervals.add(sys.getswitchinterval())
    try:
        Indexer(settings, store, None).run(embed=False)
        assert store.count_pending() >= POOL_FROM
        assert embedder.embed(["a query"]).shape == (1, 384) and embedder.made == []
        assert Indexer(settings, store, embedder).embed_pending() == len(embedder.embedded)
        rows = _rows(store)
    finally:
        store.close()
    assert len(embedder.made) == 2 and embedder.released() and _pool_threads() == []
    assert intervals == {SWITCH_INTERVAL} and sys.getswitchinterval() == switch  # restored
    assert {name for name, _ in embedder.embedded} == {"kbtui-embed-0", "kbtui-embed-1"}
    assert len(rows) == len(embedder.embedded) and all(r[3] is not None for r in rows)
    texts = [embed_text(title, heading, shown) for title, heading, shown, _ in rows]
    alone = real_embedder.embed(texts)  # the query's session (two threads), text by text
    stored = np.asarray([r[3] for r in rows], dtype=np.float32)
    assert np.array_equal(stored, alone)


def test_a_saved_notes_few_chunks_use_the_querys_session(tmp_path: Path) -> None:
    settings = _vault(tmp_path, notes=3)
    store = Store(settings.db_path)
    embedder = _Sessions()
    try:
        report = Indexer(settings, store, embedder).run()
        assert 0 < report.chunks_embedded < POOL_FROM
    finally:
        store.close()
    assert embedder.made == [] and embedder.embedded == []


def test_a_stop_mid_batch_keeps_every_vector_the_sessions_made_and_joins_them(
    tmp_path: Path,
) -> None:
    settings = _vault(tmp_path, notes=64)
    store = Store(settings.db_path)
    embedder = _Sessions()
    run: list[PendingEmbeddings] = []
    try:
        Indexer(settings, store, None).run(embed=False)
        pending = store.count_pending()
        embedder.after = lambda n: run[0].cancel() if n == 300 else None  # mid second batch
        run.append(PendingEmbeddings(store, embedder, threading.RLock(), _quiet, embed_text))
        done = run[0].run()
        kept = store.stats()["embedded"]
        assert _pool_threads() == []  # joined before run() returned
        assert 300 <= done == kept == len(embedder.embedded) < pending  # none lost
        second = Indexer(settings, store, FastEmbedder()).embed_pending()
        assert second == pending - kept and store.count_pending() == 0
    finally:
        store.close()
    assert embedder.released()


def test_beside_a_text_pass_one_session_fewer_works(real_embedder: FastEmbedder) -> None:
    """Two sessions of which one is active: every text goes to the first until both are, and
    the second session is made only then."""
    embedded: list[str] = []
    made: list[str] = []

    def make() -> FastEmbedder:
        made.append(threading.current_thread().name)
        session = real_embedder.one_thread_session()
        embed = session.embed

        def embed_noted(texts: list[str]) -> np.ndarray:
            embedded.append(threading.current_thread().name)
            return embed(texts)

        session.embed = embed_noted  # type: ignore[method-assign]
        return session

    texts = [f"Passage {i} on the subject of pooled sessions." for i in range(24)]
    pool = SessionPool(make, 2, 1, real_embedder.dim)
    try:
        pool.start(texts)
        first = pool.take(0, 12)
        assert set(embedded) == {"kbtui-embed-0"} and made == ["kbtui-embed-0"]
        pool.set_active(2)
        rest = pool.take(12, 24)
    finally:
        pool.close()
    assert _pool_threads() == []
    assert np.array_equal(np.concatenate([first, rest]), real_embedder.embed(texts))


def _quiet(phase: str, done: int, total: int) -> None:
    pass


def test_a_session_that_cannot_be_made_is_raised_on_the_callers_thread(
    real_embedder: FastEmbedder,
) -> None:
    made: list[int] = []
    failed = threading.Event()
    lock = threading.Lock()

    def make() -> FastEmbedder:
        with lock:
            made.append(1)
            second = len(made) == 2
        if second:
            failed.set()
            raise OSError("no memory for a second session")
        failed.wait()  # the first session is made after the second failed: nothing embedded
        return real_embedder.one_thread_session()

    pool = SessionPool(make, 2, 2, real_embedder.dim)
    try:
        pool.start([f"Passage {i} for a pool whose second session fails." for i in range(64)])
        with pytest.raises(OSError, match="second session"):
            pool.take(0, 64)
    finally:
        pool.close()
    assert _pool_threads() == []
