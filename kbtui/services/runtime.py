"""The owner of a vault's index in a long-lived process (MCP server, TUI).

`VaultHandle` is what a front end needs of a vault: tool calls, a page of notes, a status.
`VaultRuntime` is the in-process implementation that owns the DuckDB file.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, Protocol

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.services.kb import KnowledgeBase
from kbtui.services.watcher import IndexWorker, VaultWatcher

log = logging.getLogger("kbtui.runtime")


class VaultHandle(Protocol):
    """The query layer as every long-lived front end sees it."""

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]: ...

    def status(self) -> dict[str, Any]: ...


class VaultRuntime:
    """The process that owns a vault's index: the knowledge base, its background indexer and
    the watcher, started and stopped as one. They share one lock around the store (DuckDB
    connections are not safe for concurrent use from threads). Every front end that owns the
    vault (the MCP server, the TUI) reaches the query layer through `call`."""

    def __init__(self, settings: Settings, embedder: Embedder | None, watch: bool = True) -> None:
        self.settings = settings
        self.embedder = embedder
        self.lock = threading.RLock()
        self.kb = KnowledgeBase.open(settings, embedder)
        self.worker = IndexWorker(settings, self.kb.store, embedder, self.lock)
        self.watcher = (
            VaultWatcher(settings.vault, self.worker.submit, index_dir=settings.index_dir)
            if watch
            else None
        )
        self._closing = threading.Lock()
        self._closed = False

    def start(self) -> None:
        """Load the model, start watching, then index in the background. The watcher starts
        first so that a change made while the first pass runs is queued, not missed."""
        load = getattr(self.embedder, "load", None)
        if callable(load):
            load()  # once, here: concurrent first embeds would each load the model
        if self.watcher is not None:
            self.watcher.start()
        self.worker.start(full=True)

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """One tool call under the lock; `kb.call` validates and never raises."""
        with self.lock:
            return self.kb.call(name, args)

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]:
        """Notes `start:start+size` by entity id (id, title, type, path), and how many exist."""
        with self.lock:
            ids = sorted(entity_id for entity_id, *_ in self.kb.store.note_states().values())
            page = ids[start : start + size]
            rows = self.kb.store.entity_rows(page)
        return [rows[i] for i in page if i in rows], len(ids)

    def status(self) -> dict[str, Any]:
        """What the background indexer is doing and what the index holds."""
        with self.lock:
            stats = self.kb.store.stats()
        index = self.worker.status()
        index["chunks_waiting_for_vectors"] = stats.get("chunks", 0) - stats.get("embedded", 0)
        return {
            "vault": str(self.kb.settings.vault),
            "pid": os.getpid(),
            "index": index,
            "stats": stats,
        }

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
            self.worker.request_stop()
            if self.watcher is not None:
                self.watcher.stop(timeout)
            if not self.worker.stop(timeout):
                log.info("the indexer is mid-batch; closing the index between its store calls")
            with self.lock:
                self.kb.close()
            self._closed = True
            log.info("closed the index of %s", self.settings.vault)
        finally:
            self._closing.release()
