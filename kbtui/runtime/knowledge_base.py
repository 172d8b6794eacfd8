"""The composition root for one vault: its index, its search and indexing services, its tools.

`KnowledgeBase.call` is the one dispatch (kbtui.tools.registry) every front end reaches through
a VaultHandle; this module only opens and closes what the tools work with.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.indexing.indexer import Indexer
from kbtui.indexing.recovery import recover_writes
from kbtui.search.service import SearchService
from kbtui.search.topics import TopicService
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store
from kbtui.store.history import History
from kbtui.store.vectors.hnsw import HnswSideIndex
from kbtui.tools.parts import VaultParts
from kbtui.tools.registry import Toolset

log = logging.getLogger("kbtui.kb")
QUERY_TOOLS = ("kb_search", "knowledge_query")  # their `query` is embedded (before_lock)
HNSW_FILENAME = "vectors.hnsw.duckdb"  # disposable: deleted and rebuilt whenever in doubt


class KnowledgeBase:
    """Owns the store, the embedder and the in-memory indexes of one vault."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None,
        ann: HnswSideIndex | None = None,
        released: Callable[[], AbstractContextManager[None]] = nullcontext,
        pause: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._ann: HnswSideIndex | None = ann
        self._ann_thread: threading.Thread | None = None
        self._ann_state = "off" if ann is None else "opening"
        self.search_service = SearchService(store, embedder, ann, settings.hnsw_min_chunks)
        # every version of the notes, written and seen (kbtui.tools.write); beside the index
        self.history = History(settings.index_dir, keep_days=settings.history_days)
        self.history.prune()  # versions past the keep period (each note's newest stays)
        self.indexer = Indexer(settings, store, embedder, history=self.history)
        self.topics = TopicService(self.search_service, released)
        self.tools = Toolset(
            VaultParts(
                settings, store, embedder, self.search_service, self.indexer, self.topics,
                released, pause, self.history,
            )
        )  # fmt: skip
        recover_writes(settings.vault, settings.index_dir, self.history)  # killed mid-write

    @classmethod
    def open(
        cls,
        settings: Settings,
        embedder: Embedder | None,
        approximate: bool = True,
        released: Callable[[], AbstractContextManager[None]] = nullcontext,
        pause: Callable[[], None] = lambda: None,
    ) -> KnowledgeBase:
        """Opens (and migrates) the vault's index.

        A vault with more than `hnsw_min_chunks` vectors also gets an HNSW index in a side
        file, opened (reused or rebuilt) in a background thread; exact search answers until
        it is ready. `approximate=False` (a one-shot command): no HNSW index at all, since
        exact search answers a few queries at once and closing would wait for its open.
        """
        store = Store(settings.db_path)
        choose = getattr(embedder, "choose", None)  # the vault's model (indexing.model_choice)
        if callable(choose):
            try:
                choose(store)
            except BaseException:
                store.close()
                raise
        ann: HnswSideIndex | None = None
        model = store.meta("embed_model")
        big = store.count_embedded() >= settings.hnsw_min_chunks
        if approximate and embedder is not None and model and big:
            ann = HnswSideIndex(store, settings.index_dir / HNSW_FILENAME, model)
        kb = cls(settings, store, embedder, ann, released, pause)
        if ann is not None:
            kb._ann_thread = threading.Thread(target=kb._open_ann, name="hnsw", daemon=True)
            kb._ann_thread.start()
        return kb

    def _open_ann(self) -> None:
        assert self._ann is not None
        try:
            self._ann_state = self._ann.open()
            self.vectors.release_mapped()  # what the exact answers meanwhile mapped
        except Exception as exc:  # exact search keeps serving; say why HNSW is off
            log.warning("HNSW index unavailable, using exact search: %s", exc)
            self._ann_state = f"failed: {exc}"

    def wait_for_ann(self, timeout: float | None = None) -> None:
        if self._ann_thread is not None:
            self._ann_thread.join(timeout)

    def ann_state(self) -> str:
        return self._ann_state

    @property
    def vectors(self) -> VectorIndex:
        return self.search_service.vectors

    def prepare_search(self, chunk_texts: bool = True) -> None:
        """Bring the search side files (keywords, vectors, chunk texts) up to date now, at
        the end of an index pass. Left to the first query, writing them made the first search
        after a cold index of obsidian-hub take 10 s where the next took 1.4 s (issue 28).
        `chunk_texts=False` (a long-lived process): the chunk texts stay unloaded until a
        search needs them, so that the first note opened does not wait for them.
        Call it under the store's lock."""
        self.search_service.keywords.sync()
        if self.embedder is not None:
            self.search_service.vectors.sync()
        if chunk_texts:
            self.store.chunk_details([])

    def before_lock(self, name: str, args: dict[str, Any] | None) -> None:
        """What a call can do before it takes the store lock: a search's query embedded
        (the model uses no store). Never raises: the call itself reports any failure."""
        query = (args or {}).get("query")
        if name not in QUERY_TOOLS or not isinstance(query, str) or not 3 <= len(query) <= 500:
            return
        if (args or {}).get("mode", "hybrid") == "keyword":
            return
        try:
            self.search_service.warm_query(query)
        except Exception as exc:  # e.g. the model cannot load: the search says so
            log.debug("query not embedded ahead: %s", exc)

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run tool `name` with raw arguments; never raises."""
        return self.tools.call(name, args)

    def close(self) -> None:
        """A clean exit: the HNSW side file is kept for the next start."""
        self.wait_for_ann()
        self.search_service.close()
        self.store.close()
        self.history.close()
