"""The tool contracts of spec/000-003: names, arguments, defaults, ranges, descriptions.

Declared once here; the MCP server publishes them as input schemas, the CLI maps its options
onto them and `KnowledgeBase.call` validates every call against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbtui.graph.model import ENTITY_TYPES
from kbtui.tools.params import Param, input_schema

ENTITY_ID_PATTERN = r"^[a-z_]+:[a-z0-9_]+$"
__all__ = ["ENTITY_ID_PATTERN", "ENTITY_TYPES", "KB_TOOLS", "ToolSpec"]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    params: dict[str, Param]
    empty: dict[str, Any] = field(default_factory=dict)  # result fields on failure

    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.params)


KB_SEARCH = ToolSpec(
    "kb_search",
    "Search the knowledge base (the user's markdown vault: people, projects, meetings, notes) "
    "with a natural-language question. Hybrid semantic + keyword ranking; one result per "
    "note with its entity id, title, a snippet (<= 200 chars) and a score in 0..1 (>= 0.6 "
    "strong, < 0.3 weak). Empty results are a valid answer, not an error. Use kb_get with a "
    "result's id for the full note.",
    {
        "query": Param(
            "string", "What to look for, 3-500 characters.", True, min_length=3, max_length=500
        ),
        "top_k": Param("integer", "How many notes to return.", default=5, minimum=1, maximum=10),
        "filters": Param(
            "object",
            "Optional filters, combined with AND.",
            properties={
                "type": Param(
                    "string",
                    "Entity type, e.g. person, project, organization, technology, concept, "
                    "meeting.",
                    pattern=r"^[a-z_]+$",
                    max_length=50,
                ),
                "tag": Param("string", "A tag (nested tags match too).", max_length=200),
                "folder": Param("string", "A vault folder (subfolders match too).", max_length=500),
            },
            default={},
        ),
        "capabilities": Param(
            "object",
            "What the caller's channel can show. In voice mode results are clamped to 3.",
            properties={
                "voice": Param("boolean", "The answer will be spoken.", default=False),
                "messaging": Param("boolean", "The answer will be shown as text.", default=True),
            },
            default={},
        ),
        "mode": Param(
            "string",
            "Ranking: hybrid (default), vector (meaning only) or keyword (BM25 only).",
            default="hybrid",
            enum=("hybrid", "vector", "keyword"),
        ),
    },
)

KB_GET = ToolSpec(
    "kb_get",
    "Get one whole note by its exact entity id (type:name, e.g. person:andrei_clodius, as "
    "returned by kb_search): full content with all chunks joined in order, frontmatter "
    "metadata, chunks_count and the file's hash (note_edit's expected_hash). Ids are "
    "case-sensitive. Faster than kb_search.",
    {
        "id": Param(
            "string",
            "Entity id, format type:name in lower case.",
            True,
            min_length=3,
            max_length=100,
            pattern=ENTITY_ID_PATTERN,
        ),
    },
)

GET_CHUNK = ToolSpec(
    "get_chunk",
    "Get one chunk (a passage of a note) by chunk id (`<entity_id>_chunk_<n>`, from "
    "kb_search metadata or knowledge_query) with its note's knowledge card (summary and "
    "takeaways), topic cluster, URLs and the most similar chunks elsewhere in the vault.",
    {
        "chunk_id": Param(
            "string",
            "The chunk id, e.g. person:andrei_clodius_chunk_0.",
            True,
            min_length=1,
            max_length=200,
        ),
        "include_related": Param(
            "boolean", "Include related chunks by vector similarity.", default=True
        ),
        "related_limit": Param(
            "integer", "Maximum related chunks.", default=5, minimum=1, maximum=20
        ),
        "exclude_same_note": Param(
            "boolean", "Leave chunks of the same note out of related_chunks.", default=False
        ),
    },
)

KNOWLEDGE_IMPORT = ToolSpec(
    "knowledge_import",
    "Save a document into the user's vault as a new markdown note (in the imports folder), "
    "split into chunks of chunk_size characters overlapping by chunk_overlap, and index it "
    "so it is searchable at once. Never overwrites an existing note.",
    {
        "title": Param("string", "Document title.", True, min_length=1, max_length=300),
        "content": Param(
            "string",
            "Full document text (markdown welcome).",
            True,
            min_length=1,
            max_length=10_000_000,
        ),
        "source": Param("string", "Source URL or file path.", nullable=True, max_length=2000),
        "category": Param("string", "Classification category.", nullable=True, max_length=100),
        "chunk_size": Param(
            "integer", "Characters per chunk.", default=500, minimum=100, maximum=10000
        ),
        "chunk_overlap": Param(
            "integer",
            "Characters shared by consecutive chunks; less than chunk_size.",
            default=50,
            minimum=0,
        ),
        "metadata": Param(
            "object",
            "Additional metadata, kept in the note's frontmatter.",
            default={},
            free_form=True,
        ),
    },
)

KNOWLEDGE_QUERY = ToolSpec(
    "knowledge_query",
    "Semantic search returning chunks (passages) rather than notes, optionally limited to a "
    "category or to one document (document_id from knowledge_import, or an entity id). "
    "Each result has the chunk text, a similarity in 0..1 and its document.",
    {
        "query": Param("string", "Search query.", True, min_length=1, max_length=500),
        "top_k": Param("integer", "Number of chunks to return.", default=5, minimum=1, maximum=50),
        "category": Param("string", "Filter by category.", nullable=True, max_length=100),
        "document_id": Param(
            "string", "Filter by document id (or entity id).", nullable=True, max_length=200
        ),
        "include_document_info": Param(
            "boolean", "Include each chunk's document metadata.", default=True
        ),
    },
)

KB_TOOLS = {t.name: t for t in (KB_SEARCH, KB_GET, GET_CHUNK, KNOWLEDGE_IMPORT, KNOWLEDGE_QUERY)}
