"""The one background thread that indexes the vault: a full incremental pass at start, then
each batch of changes from the watcher. Batches arriving while it is busy are merged, so a
burst of saves costs one pass."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.indexing.indexer import Indexer
from kbtui.memory import give_back_freed_memory
from kbtui.models import IndexReport
from kbtui.store import Store
from kbtui.store.history import History

if TYPE_CHECKING:  # the watcher (watchdog) loads only where a vault is watched
    from kbtui.indexing.watcher import ChangeBatch

log = logging.getLogger("kbtui.watcher")


class IndexingStopped(Exception):
    """Raised from the progress hook to end a pass at the next batch when shutting down."""


class EmbeddingDeferred(Exception):
    """Raised from the progress hook between two embedded batches, once the pass's text is
    written, when changes wait: a 1,000-page PDF's minutes of embedding give way to a note
    saved meanwhile. The next pass writes that note, then embeds what still waits."""


class IndexWorker:
    """The one background thread that writes the index from the vault.

    Store calls happen under `lock` (shared with every other store user), file reads and
    embedding outside it, so readers are answered throughout; keyword results see a change as
    soon as its batch is written, vectors follow.
    """

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None,
        lock: AbstractContextManager[Any],
        after_pass: Callable[[IndexReport], None] | None = None,
        history: History | None = None,
    ) -> None:
        """`after_pass`: run after each whole-vault pass (the search side files are
        written then, not by the first query: kbtui.runtime)."""
        self.indexer = Indexer(
            settings, store, embedder, progress=self._progress, lock=lock, history=history
        )
        self._after_pass = after_pass
        self.state = "starting"
        self.phase: tuple[str, int, int] | None = None
        self.passes = 0
        self.last_report: IndexReport | None = None
        self.last_change: float | None = None  # when a pass last changed the index (epoch s)
        # Set once the first pass has written every note it read (keyword search sees them
        # all); a question that arrives earlier waits for it a little (kbtui.runtime).
        self.vault_read = threading.Event()
        self._cond = threading.Condition()
        self._paths: set[str] = set()
        self._rescan = False
        self._busy = False
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        # One pass at a time: `kbtui index` asking the owner for a pass runs beside this thread.
        self.pass_lock = threading.Lock()

    def start(self, full: bool = True) -> None:
        self._rescan = full
        if not full:  # a one-shot command: no first pass, so nothing is being indexed
            self.state = "idle"
            self.vault_read.set()
        self._thread = threading.Thread(target=self._loop, name="indexer", daemon=True)
        self._thread.start()

    def submit(self, batch: ChangeBatch) -> None:
        """Queue a watcher batch (any thread); merged with whatever is still waiting."""
        from kbtui.indexing.watcher import MAX_PATHS  # loaded already: the watcher calls this

        with self._cond:
            if batch.rescan or len(self._paths) + len(batch.paths) > MAX_PATHS:
                self._rescan, self._paths = True, set()
            elif not self._rescan:
                self._paths.update(batch.paths)
            self._cond.notify()

    def request_stop(self) -> None:
        """Ask the pass in progress to end at its next batch; returns at once. A read waiting
        for the first pass stops waiting: that pass may never come (stopped before it began)
        or may take a batch to notice, and the runtime answers "closed" from here on."""
        self._stopping.set()
        self.vault_read.set()
        with self._cond:
            self._cond.notify()

    def stop(self, timeout: float = 30.0) -> bool:
        """`request_stop`, then wait; True once the thread is gone. A thread still embedding a
        batch after `timeout` is harmless once the store is closed: its next store call fails
        and it ends (the batch is embedded again at the next start)."""
        self.request_stop()
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def idle(self) -> bool:
        with self._cond:
            return not (self._busy or self._rescan or self._paths)

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.idle():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def _waiting(self) -> bool:
        with self._cond:
            return bool(self._paths) or self._rescan

    def status(self) -> dict[str, Any]:
        """What the worker is doing, for a status display: indexing / embedding / queued /
        idle / failed: ... / stopped, the current phase's progress and the last pass."""
        phase, report = self.phase, self.last_report
        with self._cond:
            queued = not self._busy and (self._rescan or bool(self._paths))
        return {
            "state": "queued" if queued else self.state,
            "phase": None
            if phase is None
            else {"name": phase[0], "done": phase[1], "total": phase[2]},
            "passes": self.passes,
            "last_pass": None if report is None else _summary(report),
            "notes_known": self.indexer.files_seen,
            "last_change": self.last_change,
        }

    def _loop(self) -> None:
        while not self._stopping.is_set():
            with self._cond:
                while not (self._rescan or self._paths or self._stopping.is_set()):
                    self._cond.wait()
                if self._stopping.is_set():
                    break
                paths = None if self._rescan else sorted(self._paths)
                self._paths, self._rescan, self._busy = set(), False, True
            try:
                self._pass(paths)
            finally:
                with self._cond:
                    self._busy = False
        self.state = "stopped"

    def _pass(self, paths: list[str] | None) -> None:
        self.state = "indexing"
        try:
            with self.pass_lock:
                report = self.indexer.run(paths=paths)
        except IndexingStopped:
            log.info("indexing stopped for shutdown")
            return
        except EmbeddingDeferred:  # every text written; vectors go on in the next pass
            log.info("embedding deferred to the next pass: changes are waiting")
            self.passes += 1
            self.last_change = time.time()
            self.state = "idle"
            return
        except Exception as exc:  # the next batch may well succeed; keep serving
            if self._stopping.is_set():  # the store was closed under a pass: expected
                log.info("indexing abandoned at shutdown (%s)", exc)
                return
            log.exception("indexing failed")
            self.state = f"failed: {type(exc).__name__}: {exc}"
            return
        finally:
            self.phase = None
            self.vault_read.set()
        self.passes += 1
        self.last_report = report
        if paths is None and self._after_pass is not None:
            try:
                self._after_pass(report)
            except Exception:  # the first query builds them instead; keep serving
                log.exception("writing the search side files failed")
        if report.chunks_embedded or report.new or report.changed:
            give_back_freed_memory()  # what embedding a batch freed (~100 MB)
        self.state = "idle"
        changed = report.new or report.changed or report.deleted or report.renamed
        if changed or report.other_files:
            self.last_change = time.time()
        if changed or report.skipped or report.other_files:
            log.info("indexed %s", _summary(report))

    def _progress(self, phase: str, done: int, total: int) -> None:
        if self._stopping.is_set():
            raise IndexingStopped
        last = self.phase
        beside = last is not None and (
            last[0] == "read" or (last[0] == "write" and last[1] < last[2])
        )
        if phase == "embed" and beside:
            return  # embedding beside the text pass: the status shows the files left to read
        if phase == "embed" and done and self.indexer.text_written and self._waiting():
            raise EmbeddingDeferred
        self.phase = (phase, done, total)
        writes_done = phase == "write" and done == total
        if writes_done:
            self.vault_read.set()
        self.state = "embedding" if phase == "embed" or writes_done else "indexing"


def _summary(report: IndexReport) -> dict[str, Any]:
    return {
        "new": len(report.new),
        "changed": len(report.changed),
        "deleted": len(report.deleted),
        "renamed": len(report.renamed),
        "other_files": len(report.other_files),
        "unchanged": report.unchanged,
        "skipped": len(report.skipped),
        "chunks_embedded": report.chunks_embedded,
        "seconds": round(report.seconds, 3),
    }
