"""The query layer over one vault: the kb tools of spec 000-003, for TUI, CLI and MCP alike.

`KnowledgeBase.call(name, args)` validates the arguments against the tool's declared
parameters, runs it and always returns the one envelope of kbtui.services.envelope.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.models import SearchFilters
from kbtui.services.browse import APP_TOOLS, app_handlers
from kbtui.services.envelope import (
    NotFoundError,
    ToolError,
    UnavailableError,
    ValidationError,
    guarded,
    ok,
)
from kbtui.services.graph import KnowledgeGraph
from kbtui.services.graph_tools import ALL_TOOLS, GRAPH_READS
from kbtui.services.graph_write import GraphWriter
from kbtui.services.indexer import Indexer
from kbtui.services.params import validate
from kbtui.services.search import Mode, SearchService
from kbtui.services.tools import ENTITY_TYPES
from kbtui.services.topics import TopicService
from kbtui.services.vector_index import VectorIndex
from kbtui.store import DatabaseError, Store, StoreError
from kbtui.store.hnsw import HnswSideIndex
from kbtui.vault.chunk import reassemble

log = logging.getLogger("kbtui.kb")
HNSW_FILENAME = "vectors.hnsw.duckdb"  # disposable: deleted and rebuilt whenever in doubt
GRAPH_WRITES = ("kg_create_entity", "kg_create_relationship", "kg_merge_entities")
VOICE_TOP_K = 3


class KnowledgeBase:
    """Owns the store, the embedder and the in-memory indexes of one vault."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None,
        ann: HnswSideIndex | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self._ann: HnswSideIndex | None = ann
        self._ann_thread: threading.Thread | None = None
        self._ann_state = "off" if ann is None else "opening"
        self.search_service = SearchService(store, embedder, ann, settings.hnsw_min_chunks)
        self.indexer = Indexer(settings, store, embedder)
        self.topics = TopicService(self.search_service)
        self.graph = KnowledgeGraph(self)
        self.graph_writer = GraphWriter(self.graph)
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "kb_search": self.kb_search,
            "kb_get": self.kb_get,
            "get_chunk": self.get_chunk,
            "knowledge_import": self.knowledge_import,
            "knowledge_query": self.knowledge_query,
            **{name: getattr(self.graph, name) for name in GRAPH_READS},
            **{name: getattr(self.graph_writer, name) for name in GRAPH_WRITES},
            "kg_extract_from_text": self.kg_extract,
            "kg_extract_from_memory": self.kg_extract,
            "kg_find_duplicates": self.kg_find_duplicates,
            **app_handlers(self),  # the TUI's app_* operations: callable, not published
        }

    @classmethod
    def open(
        cls, settings: Settings, embedder: Embedder | None, approximate: bool = True
    ) -> KnowledgeBase:
        """The composition root for one vault: opens (and migrates) its index.

        A vault with more than `hnsw_min_chunks` vectors also gets an HNSW index in a side
        file, opened (reused or rebuilt) in a background thread; exact search answers until
        it is ready. `approximate=False` (a one-shot command): no HNSW index at all, since
        exact search answers a few queries at once and closing would wait for its open.
        """
        store = Store(settings.db_path)
        ann: HnswSideIndex | None = None
        model = store.meta("embed_model")
        big = store.count_embedded() >= settings.hnsw_min_chunks
        if approximate and embedder is not None and model and big:
            ann = HnswSideIndex(store, settings.index_dir / HNSW_FILENAME, model)
        kb = cls(settings, store, embedder, ann)
        if ann is not None:
            kb._ann_thread = threading.Thread(target=kb._open_ann, name="hnsw", daemon=True)
            kb._ann_thread.start()
        return kb

    def _open_ann(self) -> None:
        assert self._ann is not None
        try:
            self._ann_state = self._ann.open()
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

    def close(self) -> None:
        """A clean exit: the HNSW side file is kept for the next start."""
        self.wait_for_ann()
        self.search_service.close()
        self.store.close()

    # -- dispatch -------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run tool `name` with raw arguments; never raises."""
        spec = ALL_TOOLS.get(name) or APP_TOOLS.get(name)
        handler = self._handlers.get(name)
        if spec is None or handler is None:
            return guarded(lambda: _raise(ValidationError(f"unknown tool {name!r}")), name)

        def run() -> dict[str, Any]:
            checked = validate(spec.params, args)
            try:
                return handler(checked)
            except (StoreError, DatabaseError) as exc:
                raise UnavailableError(f"the index is unavailable: {exc}") from exc

        return guarded(run, name, spec.empty)

    # -- kb_search ------------------------------------------------------------------------
    def kb_search(self, args: dict[str, Any]) -> dict[str, Any]:
        filters = {k: v for k, v in args["filters"].items() if v is not None}
        if "type" in filters:
            known = sorted(set(ENTITY_TYPES) | set(self.store.note_types()))
            if filters["type"] not in known:
                raise ValidationError(
                    f"filters.type {filters['type']!r} is not a known type; use one of "
                    + ", ".join(known),
                    field="filters.type",
                )
        voice = bool(args["capabilities"].get("voice"))
        top_k = min(args["top_k"], VOICE_TOP_K) if voice else args["top_k"]
        mode: Mode = args["mode"]
        results = self.search_service.search(
            args["query"], top_k, SearchFilters(**filters), mode=mode
        )
        self.graph.shown([r.id for r in results])
        return ok(
            results=[
                {
                    "id": r.id,
                    "type": r.type,
                    "title": r.title,
                    "snippet": r.snippet,
                    "score": r.score,
                    "source_type": "kb_document",
                    "metadata": r.metadata,
                }
                for r in results
            ],
            total_found=len(results),
            query=args["query"],
            filters_applied=filters,
            top_k=top_k,
            voice_mode=voice,
            mode=mode,
        )

    # -- kb_get ---------------------------------------------------------------------------
    def kb_get(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id = args["id"]
        note = self.store.note(entity_id)
        if note is None:
            if self.store.note_count() == 0:
                raise NotFoundError(
                    "KB not initialized: no notes are indexed yet; run `kbtui index`"
                )
            raise NotFoundError(f"Entity '{entity_id}' not found in KB")
        self.graph.used([entity_id])
        chunks = self.store.note_chunks(entity_id)
        content = reassemble([(c["start_pos"], c["end_pos"], c["content"]) for c in chunks])
        return ok(
            id=entity_id,
            type=note["type"],
            title=note["title"],
            content=content,
            metadata=note_metadata(note),
            chunks_count=len(chunks),
        )

    # -- knowledge_query ------------------------------------------------------------------
    def knowledge_query(self, args: dict[str, Any]) -> dict[str, Any]:
        filters = SearchFilters(category=args["category"], document_id=args["document_id"])
        hits = self.search_service.search_chunks(args["query"], args["top_k"], filters)
        details = self.store.chunk_details([h.cid for h in hits])
        notes = self.store.notes_meta(sorted({h.entity_id for h in hits}))
        results = []
        for hit in hits:
            chunk, note = details.get(hit.cid), notes.get(hit.entity_id)
            if chunk is None or note is None:
                continue
            item: dict[str, Any] = {
                "chunk_id": hit.chunk_id,
                "content": chunk["content"],
                "similarity": hit.score,
            }
            if args["include_document_info"]:
                fm = note["frontmatter"]
                item["document"] = {
                    "id": fm.get("document_id") or hit.entity_id,
                    "title": note["title"],
                    "category": fm.get("category"),
                    "entity_id": hit.entity_id,
                    "file_path": note["path"],
                    "chunk_index": chunk["chunk_index"],
                }
            results.append(item)
        return ok(results=results, total=len(results), query=args["query"])

    # -- extraction and duplicates (kbtui.graph) ------------------------------------------
    def kg_extract(self, args: dict[str, Any]) -> dict[str, Any]:
        from kbtui.services.graph_extract import extract_tool

        return extract_tool(self.graph_writer, args)

    def kg_find_duplicates(self, args: dict[str, Any]) -> dict[str, Any]:
        from kbtui.services.graph_extract import duplicates_tool

        return duplicates_tool(self.graph, args)

    # -- get_chunk / knowledge_import live in their own modules ----------------------------
    def get_chunk(self, args: dict[str, Any]) -> dict[str, Any]:
        from kbtui.services.chunk_view import get_chunk

        return get_chunk(self, args)

    def knowledge_import(self, args: dict[str, Any]) -> dict[str, Any]:
        from kbtui.services.importer import import_document

        return import_document(self, args)


def note_metadata(note: dict[str, Any]) -> dict[str, Any]:
    """Frontmatter plus what the index knows about the file (spec 000's `metadata`)."""
    return {
        **note["frontmatter"],
        "aliases": note["aliases"],
        "tags": note["tags"],
        "file_path": note["path"],
        "folder": note["folder"],
        "created_at": note["created_at"],
        "indexed_at": note["indexed_at"],
    }


def _raise(exc: ToolError) -> dict[str, Any]:
    raise exc
