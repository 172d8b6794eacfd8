"""The extractor's public types: entity and relationship type names, the known entities a
gazetteer is built from, and what `extract` returns (see `kbtui.graph.extract`)."""

from __future__ import annotations

from dataclasses import dataclass

ENTITY_TYPES: tuple[str, ...] = (
    "person", "organization", "project", "technology", "concept", "location", "document", "task",
)  # fmt: skip
RELATIONSHIP_TYPES: tuple[str, ...] = (
    "WORKS_ON", "OWNS", "DEPENDS_ON", "RELATED_TO", "MEMBER_OF", "USES", "CREATED", "MODIFIED",
    "REFERENCES", "BLOCKS", "CONTRADICTS",
)  # fmt: skip


@dataclass(frozen=True)
class KnownEntity:
    entity_id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mention:
    name: str
    type: str
    start: int
    end: int
    confidence: float
    entity_id: str | None  # set when it matched a KnownEntity


@dataclass(frozen=True)
class ExtractedRelation:
    source: str  # a Mention's name (the KnownEntity's name when matched)
    target: str
    type: str
    confidence: float
    evidence: str  # the sentence


@dataclass(frozen=True)
class Extraction:
    entities: tuple[Mention, ...]  # one per distinct (name, type), at its first occurrence
    relationships: tuple[ExtractedRelation, ...]
