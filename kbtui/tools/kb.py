"""kb_search, kb_get and knowledge_query (spec 000, 001, 003): notes and passages by meaning
and keywords, whole notes by id."""

from __future__ import annotations

from typing import Any

from kbtui.models import SearchFilters
from kbtui.search.service import Mode
from kbtui.textdiff import content_hash
from kbtui.tools.base_search import base_document, base_hits
from kbtui.tools.contracts.kb import ENTITY_TYPES
from kbtui.tools.envelope import NOT_INITIALIZED, NotFoundError, ValidationError, ok
from kbtui.tools.graph.read import KnowledgeGraph
from kbtui.tools.parts import VaultParts
from kbtui.vault.attachments.pdf import is_pdf, page_of, page_place
from kbtui.vault.chunk import reassemble

VOICE_TOP_K = 3
# While more than this share of the passages that take a vector is still waiting for one (a
# first pass, a large import), hybrid ranks by keywords alone: a mix in which only some
# notes can have vector evidence ranks those above better keyword matches. On SciFact (300
# training claims through `kbtui mcp` on an unindexed vault, bench/mcp_ranking.py) the mix
# scored nDCG@10 0.25-0.48 with 10-80% embedded and 0.68 at 90%+, keyword alone 0.67.
WAITING_SHARE = 0.10


class KbTools:
    """The note-level tools; `graph` records which entities were shown and used."""

    def __init__(self, parts: VaultParts, graph: KnowledgeGraph) -> None:
        self.store = parts.store
        self.vault = parts.settings.vault
        self.search_service = parts.search
        self.graph = graph

    # -- kb_search ------------------------------------------------------------------------
    def kb_search(self, args: dict[str, Any]) -> dict[str, Any]:
        filters = {k: v for k, v in args["filters"].items() if v is not None}
        # a type of the contract needs no look at the index's (a query of ~1 ms each search)
        if "type" in filters and filters["type"] not in {*ENTITY_TYPES, "base"}:
            known = sorted(set(ENTITY_TYPES) | set(self.store.note_types()) | {"base"})
            if filters["type"] not in known:
                raise ValidationError(
                    f"filters.type {filters['type']!r} is not a known type; use one of "
                    + ", ".join(known),
                    field="filters.type",
                )
        voice = bool(args["capabilities"].get("voice"))
        top_k = min(args["top_k"], VOICE_TOP_K) if voice else args["top_k"]
        mode: Mode = args["mode"]
        ranked_by, note = self._while_embedding(mode)
        results = self.search_service.search(
            args["query"], top_k, SearchFilters(**filters), mode=ranked_by
        )
        self.graph.shown([r.id for r in results])
        found = [
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
        ]
        if filters.get("type") in (None, "base") and not filters.get("tag"):
            bases = base_hits(self.store, self.vault, args["query"], filters.get("folder"))
            # by score, as the spec orders results; a base ahead of a note on a tie
            found = sorted(bases + found, key=lambda r: -r["score"])[:top_k]
        answer = ok(
            results=found,
            total_found=len(found),
            query=args["query"],
            filters_applied=filters,
            top_k=top_k,
            voice_mode=voice,
            mode=mode,
        )
        if not results and self.store.note_count() == 0:  # spec 001: still ok, and empty
            note = NOT_INITIALIZED
        if note:
            answer["message"] = note
        return answer

    def _while_embedding(self, mode: Mode) -> tuple[Mode, str | None]:
        """The mode to rank by, and what the answer says, while passages wait for vectors."""
        if mode == "keyword" or self.search_service.embedder is None:
            return mode, None
        stats = self.store.stats()
        total = stats.get("chunks", 0) - stats.get("not_embedded", 0)
        waiting = total - stats.get("embedded", 0)
        if waiting <= WAITING_SHARE * total:
            return mode, None
        done = f"{total - waiting} of {total} passages have their vectors so far"
        if mode == "vector":
            return mode, f"The index is still being embedded ({done}): only those are searched."
        return "keyword", (
            f"The index is still being embedded ({done}): these results are ranked by "
            "keywords alone until it is done - ask again shortly for hybrid ranking."
        )

    # -- kb_get ---------------------------------------------------------------------------
    def kb_get(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id = args["id"]
        note = self.store.note(entity_id)
        if note is None and entity_id.startswith("base:"):
            base = base_document(self.store, self.vault, entity_id)
            if base is not None:
                return ok(**base, hash=self.file_hash(base["metadata"]["file_path"]))
        if note is None:
            if self.store.note_count() == 0:
                raise NotFoundError(NOT_INITIALIZED)
            raise NotFoundError(f"Entity '{entity_id}' not found in KB")
        self.graph.used([entity_id])
        chunks = self.store.note_chunks(entity_id)
        content = reassemble([(c["start_pos"], c["end_pos"], c["content"]) for c in chunks])
        extra = {"pages": pdf_pages(chunks)} if is_pdf(note["path"]) else {}
        return ok(
            id=entity_id,
            type=note["type"],
            title=note["title"],
            content=content,
            metadata=note_metadata(note),
            chunks_count=len(chunks),
            hash=self.file_hash(note["path"]),
            **extra,
        )

    def file_hash(self, path: str) -> str | None:
        """sha256 of the file's bytes on disk (what note_edit's expected_hash states), None
        when it is gone since it was indexed."""
        try:
            return content_hash((self.vault / path).read_bytes())
        except OSError:
            return None

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
                    **page_place(note["path"], chunk["heading"]),  # a PDF's page and link
                }
            results.append(item)
        answer = ok(results=results, total=len(results), query=args["query"])
        if not results and self.store.note_count() == 0:  # as kb_search: still ok, and empty
            answer["message"] = NOT_INITIALIZED
        return answer


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


def pdf_pages(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A PDF's text page by page ([{page, text}], page 1 first) from its chunks."""
    by_page: dict[int, list[tuple[int, int, str]]] = {}
    for c in chunks:
        page = page_of(c["heading"])
        if page is not None:
            by_page.setdefault(page, []).append((c["start_pos"], c["end_pos"], c["content"]))
    return [{"page": n, "text": reassemble(parts)} for n, parts in sorted(by_page.items())]
