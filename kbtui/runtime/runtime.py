"""The owner of a vault's index in a process (MCP server, TUI, a CLI command).

`VaultHandle` is what a front end needs of a vault: tool calls, a page of notes, a status, an
indexing pass. `VaultRuntime` is the in-process implementation that owns the DuckDB file;
`kbtui.runtime.shared.open_vault` gives the handle a front end should use (this process's
runtime, or the owner's reached over its socket, with takeover when the owner exits).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from kbtui.config import Settings
from kbtui.models import IndexReport
from kbtui.runtime.index_state import FIRST_READ_WAIT, WITH_INDEX_STATE, annotate, index_state
from kbtui.runtime.traffic import CallTraffic
from kbtui.tools.catalog import PUBLISHED, READS
from kbtui.tools.envelope import UnavailableError, failure

START_DELAY = 1.0  # s: the longest a deferred start waits for the first answer
# Calls that run under the store's read lock only, beside a save's statements (issue 33,
# kbtui/store/file/access.py): they change nothing but usage counters held in memory.
BESIDE_SAVES = READS | {"app_search", "app_facets", "app_list_entities", "app_entity_labels"}
BESIDE_SAVES |= {"app_proposals", "app_link_names"}  # the history file; the names for [[

if TYPE_CHECKING:  # loaded by the process that opens the index: a client needs none of it
    from kbtui.embed import Embedder
    from kbtui.indexing.indexer import Progress
    from kbtui.indexing.watcher import ChangeBatch, VaultWatcher

log = logging.getLogger("kbtui.runtime")


def _watcher(settings: Settings, submit: Callable[[ChangeBatch], None]) -> VaultWatcher:
    """The vault's watcher, imported only where one runs: a one-shot command (base:query,
    search) does not load watchdog (tests/test_cli_imports.py)."""
    from kbtui.indexing.watcher import VaultWatcher

    return VaultWatcher(settings.vault, submit, index_dir=settings.index_dir)


class VaultHandle(Protocol):
    """The query layer as every long-lived front end sees it."""

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]: ...

    def status(self) -> dict[str, Any]: ...

    def reindex(self, embed: bool = True) -> IndexReport:
        """An incremental pass over the whole vault now (what `kbtui index` runs)."""
        ...

    def close(self) -> None: ...


class VaultClosed(RuntimeError):
    """The runtime was closed before this request ran: it was not executed at all."""


class VaultRuntime:
    """The process that owns a vault's index: the knowledge base, its background indexer and
    the watcher, started and stopped as one. They share the store's lock (`lock`: one writer
    at a time, kbtui/store/file/access.py); reads (BESIDE_SAVES) take only its read lock and
    run beside a save's statements. Every front end that owns the vault (the MCP server, the
    TUI) reaches the query layer through `call`."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None,
        watch: bool = True,
        approximate: bool = True,
    ) -> None:
        """`approximate=False` for a one-shot command: exact vector search only (no HNSW)."""
        from kbtui.indexing.worker import IndexWorker
        from kbtui.runtime.knowledge_base import KnowledgeBase

        self.settings = settings
        self.embedder = embedder
        self.traffic = CallTraffic()
        self.kb = KnowledgeBase.open(
            settings, embedder, approximate, self._released, self.traffic.pause
        )
        self.lock = self.kb.store.lock
        self.worker = IndexWorker(
            settings, self.kb.store, embedder, self.lock, after_pass=self._after_pass
        )
        self.watcher = _watcher(settings, self.worker.submit) if watch else None
        self._closing = threading.Lock()
        self._closed = False
        self._read_deadline: float | None = None
        # An index that already holds notes answers at once while the first pass looks for
        # what changed since (its `index` says "indexing"): on 55k notes that scan alone kept
        # a spawned server's first answer waiting ~1.5 s. A new vault's first question waits.
        self._answer_at_once = self.kb.store.note_count() > 0
        self._answered = threading.Event()  # a call was answered (or the runtime closes)
        self._start_lock = threading.Lock()
        self._no_start = False  # set by close(): the deferred start must not begin
        self._starter: threading.Thread | None = None

    def start(self, catch_up: bool = True, first_answer_first: bool = False) -> None:
        """Start loading the model, start watching, then index in the background. The watcher starts
        first so that a change made while the first pass runs is queued, not missed.

        `catch_up=False` (a one-shot command): no first pass and the model loads on first use;
        the worker thread still waits for batches and `reindex` requests. `first_answer_first`
        (a spawned MCP server): on an index that holds notes, the watcher and the pass at
        start wait for the first answer, up to START_DELAY: they are Python work on the one
        interpreter lock the first answer needs (100k chunks: ~0.2 s of a 1.8 s spawn)."""
        preload = getattr(self.embedder, "preload", None)
        load = getattr(self.embedder, "load", None)
        if catch_up and callable(preload):
            preload()  # on its thread: the first embed (a query, the first pass) waits for it
        elif catch_up and callable(load):
            with self.lock:
                load()
        if catch_up and first_answer_first and self._answer_at_once:
            self._starter = threading.Thread(target=self._start_later, name="kbtui-start")
            self._starter.start()
            return
        self._start_indexing(catch_up)

    def _start_indexing(self, catch_up: bool) -> None:
        if self.watcher is not None:
            self.watcher.start()
        self.worker.start(full=catch_up)

    def _start_later(self) -> None:
        self._answered.wait(START_DELAY)
        with self._start_lock:
            if not self._no_start:
                self._start_indexing(True)

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """One tool call under the lock; `kb.call` validates and never raises. Reads say
        what the index held when they ran (`index`)."""
        self.wait_until_read(name)
        with self.traffic.call():
            if not self._closed:
                self.kb.before_lock(name, args)  # the query's vector, beside other calls
            return self._call_locked(name, args)

    def _call_locked(self, name: str, args: dict[str, Any] | None) -> dict[str, Any]:
        with self._lock_for(name):
            if self._closed:
                closed = UnavailableError(f"the index of {self.settings.vault} is closed")
                return failure(closed, spec.empty if (spec := PUBLISHED.get(name)) else None)
            answer = self.kb.call(name, args)
            if self._closed:  # closed while the call had let the store go (`_released`)
                closed = UnavailableError(f"the index of {self.settings.vault} is closed")
                return failure(closed, spec.empty if (spec := PUBLISHED.get(name)) else None)
            if name in WITH_INDEX_STATE:
                annotate(answer, index_state(self.worker.status(), self.kb.store.stats()))
        self._answered.set()
        return answer

    def _lock_for(self, name: str | None) -> AbstractContextManager[Any]:
        """The read lock for a read (beside a save), else the store lock."""
        return self.lock.read if name in BESIDE_SAVES else self.lock

    @contextmanager
    def _released(self) -> Iterator[None]:
        """The store lock let go, however deep this thread holds it, and taken back: for a
        tool that reads only files or values it read before (VaultParts.released). The
        unlinked-mentions scan of a 6.6k-note vault held it 2-28 s, stalling every search and
        save. Meanwhile the work is long work: it pauses for other calls (traffic.py)."""
        state = self.lock._release_save()  # both locks, as this thread holds them
        try:
            with self.traffic.long_work():
                yield
        finally:
            self.lock._acquire_restore(state)

    def wait_until_read(self, name: str) -> None:
        """On a vault that had no notes indexed, a read that arrives before the first pass
        has read the vault waits for it, up to FIRST_READ_WAIT after the first such read
        (never while holding the store lock: the pass needs it). Keyword results come as soon
        as the notes are written."""
        if name not in WITH_INDEX_STATE or self._answer_at_once or self.worker.vault_read.is_set():
            return
        if self._read_deadline is None:
            self._read_deadline = time.monotonic() + FIRST_READ_WAIT
        self.worker.vault_read.wait(max(0.0, self._read_deadline - time.monotonic()))

    @contextmanager
    def open_lock(self, name: str | None = None) -> Iterator[None]:
        """Hold the store lock (the read lock for tool `name` if it is a read) while the
        index is open; `VaultClosed` (nothing will run) once it is closed. The owner's
        socket server runs calls inside it."""
        with self._lock_for(name):
            self._check_open()
            yield

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]:
        """Notes `start:start+size` by entity id (id, title, type, path), and how many exist."""
        with self.lock.read:  # beside a save
            self._check_open()
            ids = sorted(entity_id for entity_id, *_ in self.kb.store.note_states().values())
            page = ids[start : start + size]
            rows = self.kb.store.entity_rows(page)
        return [rows[i] for i in page if i in rows], len(ids)

    def status(self) -> dict[str, Any]:
        """What the background indexer is doing and what the index holds; like `note_page`
        and `reindex`, raises `VaultClosed` once the runtime is closed."""
        with self.lock.read:  # beside a save: the TUI polls it every second
            self._check_open()
            stats = {**self.kb.store.stats(), **self.kb.store.pdf_summary()}
        index = self.worker.status()
        index["chunks_waiting_for_vectors"] = (
            stats.get("chunks", 0) - stats.get("embedded", 0) - stats.get("not_embedded", 0)
        )
        return {
            "vault": str(self.kb.settings.vault),
            "pid": os.getpid(),
            "index": index,
            "stats": stats,
            "recovered": self.kb.store.recovered,  # a damaged index was set aside at open
            # grows with each version in the history: a front end notices any note written
            # (an assistant's edit too, which the indexer takes in without a pass of its own)
            "writes": self.kb.history.last_id(),
        }

    def reindex(self, embed: bool = True, progress: Progress | None = None) -> IndexReport:
        """An incremental pass now, after any pass of the background worker (one at a time)."""
        from kbtui.indexing.indexer import Indexer

        self._check_open()
        indexer = Indexer(self.settings, self.kb.store, self.embedder, progress, lock=self.lock)
        with self.worker.pass_lock:
            report = indexer.run(embed=embed)
        with self.lock:  # `kbtui index`: the next command's first search finds every file
            self.kb.prepare_search()
        return report

    def _after_pass(self, report: IndexReport) -> None:
        """After a background whole-vault pass: the keyword and vector side files, written
        now if missing or far behind (cheap when they are current: they are mapped)."""
        with self.lock:
            self.kb.prepare_search(chunk_texts=False)

    def _check_open(self) -> None:
        if self._closed:
            raise VaultClosed(f"the index of {self.settings.vault} is closed")

    @property
    def closing(self) -> bool:
        return self._closing.locked()

    def close(self, timeout: float = 1.5) -> None:
        """Stop the watcher, let the indexer stop at its next batch, close the index cleanly.

        Quick on purpose: a client gives the server 2 s after closing stdin before SIGTERM,
        then 2 s before SIGKILL. An indexer still embedding a batch after `timeout` is left
        behind: the store closes under the lock, between two of its calls, and the batch is
        embedded again at the next start. Idempotent; a second caller returns at once."""
        if not self._closing.acquire(blocking=False):
            return
        try:
            if self._closed:
                return
            with self._start_lock:  # a deferred start either ran or never will
                self._no_start = True
            self._answered.set()
            if self._starter is not None:
                self._starter.join()  # at once: it sees _no_start, or it has started them
            self.worker.request_stop()
            if self.watcher is not None:
                self.watcher.stop(timeout)
            if not self.worker.stop(timeout):
                log.info("the indexer is mid-batch; closing the index between its store calls")
            with self.lock:
                self._closed = True  # under the lock: a request either ran before or sees it
                self.kb.close()
            log.info("closed the index of %s", self.settings.vault)
            wait_for_model = getattr(self.embedder, "wait_for_preload", None)
            if callable(wait_for_model):  # an interpreter exiting under an import fails
                wait_for_model()
        finally:
            self._closing.release()
