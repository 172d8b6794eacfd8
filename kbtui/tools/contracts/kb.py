"""The tool contracts of spec/000-003: names, arguments, defaults, ranges, descriptions.

Declared once here; the MCP server publishes them as input schemas, the CLI maps its options
onto them and `KnowledgeBase.call` validates every call against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kbtui.graph.model import ENTITY_TYPES
from kbtui.tools.params import Param, input_schema

ENTITY_ID_PATTERN = r"^[a-z_]+:[a-z0-9_]+$"
__all__ = ["ADDS", "ENTITY_ID_PATTERN", "ENTITY_TYPES", "KB_TOOLS", "READ", "Effects", "ToolSpec"]


@dataclass(frozen=True)
class Effects:
    """What a tool does to the vault: published as MCP tool annotations (readOnlyHint,
    destructiveHint, idempotentHint; openWorldHint is always false: nothing leaves the
    machine) and enforced by the scopes (`kbtui mcp --read-only`, `--write-folders`).

    The default is the careful one: a tool that may write, destroy and not be repeated."""

    read_only: bool = False
    destructive: bool = True  # may change or remove what is there, not only add
    idempotent: bool = False  # a repeat with the same arguments changes nothing more
    # (argument, values): a call with one of these values only reads (persist false, dryRun
    # true); a missing argument counts as its default
    read_when: tuple[str, tuple[Any, ...]] | None = None
    # every note it writes goes through NoteWriter.check_scope: it may serve --write-folders
    # (a writing tool without it is refused while the caller is held to folders)
    scoped: bool = False
    # a writing call can be held for review (`kbtui mcp --review`): its dry run shows the
    # change and it takes expected_hash, so it can be applied later exactly as proposed
    reviewable: bool = False

    def annotations(self) -> dict[str, bool]:
        """The MCP ToolAnnotations, camelCase as published. tools/list has a budget, so a
        hint is left out where leaving it out says the same to every reader: readOnlyHint
        and idempotentHint when false (their default, and falsy), destructiveHint and
        idempotentHint of a read (the spec gives them no meaning there). destructiveHint of
        a writer is always said: its default is true, but a missing value reads as false."""
        if self.read_only:
            return {"readOnlyHint": True, "openWorldHint": False}
        hints = {"destructiveHint": self.destructive}
        if self.idempotent:
            hints["idempotentHint"] = True
        return {**hints, "openWorldHint": False}


READ = Effects(read_only=True, destructive=False, idempotent=True)
# writes new notes or lines, never takes text away; through NoteWriter (held to folders)
ADDS = Effects(destructive=False, scoped=True)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    params: dict[str, Param]
    empty: dict[str, Any] = field(default_factory=dict)  # result fields on failure
    effects: Effects = Effects()

    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.params)

    def reads(self, args: Mapping[str, Any] | None = None) -> bool:
        """True when a call with `args` (raw or checked; the defaults fill what is missing)
        only reads the vault."""
        if self.effects.read_only:
            return True
        when = self.effects.read_when
        if when is None:
            return False
        name, values = when
        given = args.get(name) if isinstance(args, Mapping) else None
        if given is None:
            given = self.params[name].default
        return any(type(given) is type(v) and given == v for v in values)


KB_SEARCH = ToolSpec(
    "kb_search",
    "Search the user's markdown vault (people, projects, meetings, notes) with a "
    "natural-language question. Hybrid semantic + keyword; one result per note: entity id, "
    "title, snippet, score 0..1 (>= 0.6 strong, < 0.3 weak). Empty results are a valid "
    "answer. kb_get a result's id for the whole note.",
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
    effects=READ,
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
    effects=READ,
)

GET_CHUNK = ToolSpec(
    "get_chunk",
    "Get one chunk (a passage) by chunk id (`<entity_id>_chunk_<n>`, from kb_search or "
    "knowledge_query) with its note's knowledge card (summary, takeaways), topic cluster, "
    "URLs and the most similar chunks elsewhere.",
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
    effects=READ,
)

KNOWLEDGE_IMPORT = ToolSpec(
    "knowledge_import",
    "Save a document as a new markdown note in the vault's imports folder, chunked "
    "(chunk_size, chunk_overlap) and indexed at once. Never overwrites a note.",
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
    effects=ADDS,
)

KNOWLEDGE_QUERY = ToolSpec(
    "knowledge_query",
    "Semantic search returning chunks (passages), optionally of one category or one "
    "document (document_id from knowledge_import, or an entity id). Each result: the chunk "
    "text, a similarity 0..1 and its document.",
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
    effects=READ,
)

KB_TOOLS = {t.name: t for t in (KB_SEARCH, KB_GET, GET_CHUNK, KNOWLEDGE_IMPORT, KNOWLEDGE_QUERY)}
