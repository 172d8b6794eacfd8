"""Vectors for the chunks that wait for one, the most recently modified notes first.

After a small pass (a save) this runs once the text is written. Beside a long pass (a first
index) it runs on a thread while the text pass goes on, newest notes first: the notes a
person likely wants early get their vectors without waiting for every note to be read.
ONNX releases the interpreter lock while it computes, so the text pass uses the time the
model leaves; store calls take the indexer's lock one at a time.

Each batch is committed on its own: a pass stopped midway (Ctrl-C, a closed laptop) loses at
most the texts in the model, and the next pass embeds only the rest. A stop is seen between
two model calls of `MODEL_CALL` texts, and what the batch embedded so far is committed.

A bulk run (beside a text pass, or `POOL_FROM` chunks or more) embeds on a pool of one-thread
model sessions (kbtui.indexing.pool) when the embedder offers one: one session fewer than it
has beside a text pass (the pass keeps a core), all of them after it. A stop is then seen
between two texts; the pool's threads are joined before `run()` returns or raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from kbtui.embed import Embedder
from kbtui.indexing.pool import SessionPool
from kbtui.memory import BULK_ROWS, give_back_freed_memory
from kbtui.store import Store

Progress = Callable[[str, int, int], None]  # (phase, done, total)
Texts = Callable[[str, str, str], str]  # (title, heading, shown) -> what the model sees
EMBED_BATCH = 256  # chunks embedded and committed together
EMBED_PAGE = 1024  # pending chunks fetched in priority order at once (one ORDER BY per page)
# Texts per model call within a batch: how long a stop waits (~0.1-0.3 s). At batch size 1
# (the default) a vector does not depend on the texts embedded with it, so splitting a batch
# changes no vector; an embedder batching several texts gets the whole batch in one call.
MODEL_CALL = 16
# Waiting chunks from which a run after the text is written opens the embedder's pool of
# sessions (~0.3 s and tens of MB each); a saved note's few chunks use the query's session.
POOL_FROM = 256


class PendingEmbeddings:
    """One run of embedding waiting chunks: `run()` on the caller's thread until none wait, or
    `start()` beside a text pass that calls `written()` after each group and `finish()` (or
    `cancel()` on an error) at its end."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        lock: AbstractContextManager[Any],
        progress: Progress,
        text_of: Texts,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.lock = lock
        self.progress = progress
        self.text_of = text_of
        self.done = 0
        self._stop = threading.Event()
        self._cond = threading.Condition()
        self._writing = False  # a text pass beside us may still add chunks
        self._writes = 0  # groups written so far (what a wait waits for)
        self._bytes_done = 0  # of notes the text pass has written (chunks per byte)
        self._bytes_left = 0  # of notes it has still to write
        self._thread: threading.Thread | None = None
        self._pool: SessionPool | None = None  # while a bulk run embeds on one
        self._sessions = 1  # the pool's size
        self.error: BaseException | None = None

    # -- beside a text pass -----------------------------------------------------------------
    def start(self) -> None:
        self._writing = True
        self._thread = threading.Thread(target=self._follow, name="kbtui-embed", daemon=True)
        self._thread.start()

    def written(self, bytes_done: int = 0, bytes_left: int = 0) -> None:
        """A group of notes was written (`bytes_done` of notes so far, `bytes_left` still to
        come): wake the thread if it waits for work."""
        with self._cond:
            self._writes += 1
            self._bytes_done, self._bytes_left = bytes_done, bytes_left
            self._cond.notify_all()

    def _total(self) -> int:
        """Chunks embedded + waiting + those the notes not yet written will bring, estimated
        from the chunks per byte so far (under the store lock): the progress bar's total is
        the whole pass's from its first page, so its time left is real, not 0:00:00."""
        seen = self.done + self.store.count_pending()
        with self._cond:
            left, done = (self._bytes_left, self._bytes_done) if self._writing else (0, 0)
        return seen + (round(left * seen / done) if left and done else 0)

    def check(self) -> None:
        """Raise (on the text pass's thread) what ended the embedding thread."""
        if self.error is not None:
            raise self.error

    def finish(self) -> None:
        """The text pass is over: embed what still waits, then return (or raise its error)."""
        with self._cond:
            self._writing = False
            self._cond.notify_all()
            if self._pool is not None:  # the text pass's core is free: every session works
                self._pool.set_active(self._sessions)
        self._join()
        self.check()

    def cancel(self) -> None:
        """Stop at the next model call, keeping what was embedded; the thread's own error, if
        any, gives way to the caller's."""
        self._stop.set()
        with self._cond:
            self._writing = False
            self._cond.notify_all()
            if self._pool is not None:
                self._pool.stop()
        if self._thread is not None:
            self._thread.join()

    def _join(self) -> None:
        assert self._thread is not None
        try:
            self._thread.join()
        except BaseException:  # Ctrl-C while waiting: no thread may be left in the model
            self.cancel()
            raise

    def _follow(self) -> None:
        try:
            self.run()
        except BaseException as exc:  # handed to the text pass's thread
            self.error = exc
            self._stop.set()

    # -- the loop -----------------------------------------------------------------------------
    def run(self) -> int:
        with self.lock:
            self.store.reset_embeddings_for_model(self.embedder.model_id)
            total = self._total()
        if total:
            self.progress("embed", 0, total)
        sessions = getattr(self.embedder, "bulk_sessions", lambda: 1)()
        with self._cond:
            pooled = sessions > 1 and (self._writing or total >= POOL_FROM)
            if pooled and not self._stop.is_set():
                self._sessions = sessions
                self._pool = SessionPool(
                    self.embedder.one_thread_session,  # type: ignore[attr-defined]
                    sessions,
                    sessions - 1 if self._writing else sessions,
                    self.embedder.dim,
                )
        if self._pool is None:
            return self._run(total)
        try:
            return self._run(total)
        finally:
            with self._cond:
                pool, self._pool = self._pool, None
            assert pool is not None
            pool.close()  # every thread joined, every session dropped
            give_back_freed_memory(BULK_ROWS)

    def _run(self, total: int) -> int:
        while not self._stop.is_set():
            with self._cond:
                writing, seen = self._writing, self._writes
            with self.lock:
                page = self.store.pending_embeddings(EMBED_PAGE)
                if page:  # more is written as we go: the estimate sharpens, then is exact
                    total = max(self._total(), self.done)
            if not page:
                if not writing:
                    break
                with self._cond:  # wait for the next group (or the end of the text pass)
                    while self._writing and self._writes == seen and not self._stop.is_set():
                        self._cond.wait()
                continue
            texts = [self.text_of(t, h, c) for _, t, h, c in page]
            if self._pool is not None:
                self._pool.start(texts)
            for i in range(0, len(page), EMBED_BATCH):
                end = min(i + EMBED_BATCH, len(page))
                if self._pool is not None:  # after a stop, what was embedded: maybe more
                    vectors = self._pool.take(i, end)
                else:
                    vectors = self._embed(texts[i:end])
                if len(vectors):
                    with self.lock:
                        cids = [r[0] for r in page[i : i + len(vectors)]]
                        self.store.set_embeddings(cids, vectors)
                    self.done += len(vectors)
                    total = max(total, self.done)
                    self.progress("embed", self.done, total)
                if len(vectors) != end - i or self._stop.is_set():
                    return self.done
        return self.done

    def _embed(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, in model calls of MODEL_CALL; fewer when a stop came."""
        parts: list[np.ndarray] = []
        step = MODEL_CALL if getattr(self.embedder, "batch_size", 1) == 1 else len(texts)
        for i in range(0, len(texts), step):
            if self._stop.is_set():
                break
            parts.append(self.embedder.embed(texts[i : i + step]))
        if not parts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.concatenate(parts)
