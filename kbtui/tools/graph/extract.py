"""kg_extract_from_text / kg_extract_from_memory and kg_find_duplicates over kbtui.graph.

Extraction proposes; it writes nothing unless `persist` is set, because every entity it would
create becomes a note in the user's vault.
"""

from __future__ import annotations

import time
from typing import Any

from kbtui.graph.duplicates import Candidate, find_duplicates
from kbtui.graph.extract import Gazetteer, KnownEntity, extract
from kbtui.tools.envelope import ToolError, ok
from kbtui.tools.graph.read import KnowledgeGraph
from kbtui.tools.graph.write import GraphWriter
from kbtui.vault.parse import slug

_GAZETTEERS: dict[tuple[int, str, int], Gazetteer] = {}


def gazetteer(graph: KnowledgeGraph, channel: str) -> Gazetteer:
    """The vault's entities as a name matcher, rebuilt only after the index changed."""
    key = (id(graph.store), channel, graph.store.generation)
    if key not in _GAZETTEERS:
        _GAZETTEERS.clear()
        rows = graph.store.name_candidates(channel, graph.default_channel)
        _GAZETTEERS[key] = Gazetteer(
            KnownEntity(eid, kind, name, tuple(aliases)) for eid, kind, name, aliases in rows
        )
    return _GAZETTEERS[key]


def extract_tool(writer: GraphWriter, args: dict[str, Any]) -> dict[str, Any]:
    graph = writer.graph
    started = time.perf_counter()
    memory = "memoryId" in args
    text = args["memoryContent"] if memory else args["text"]
    source = args["memoryId"] if memory else args.get("sourceId")
    found = extract(text, gazetteer(graph, graph.channel(args)))
    ids: dict[str, str] = {}
    entities: list[dict[str, Any]] = []
    known_rows = graph.store.entity_rows([m.entity_id for m in found.entities if m.entity_id])
    for mention in found.entities:
        if mention.entity_id and mention.entity_id in known_rows:
            entity = {**graph.entity(known_rows[mention.entity_id]), "isNew": False}
        else:
            entity = {
                "id": f"{mention.type}:{slug(mention.name)[:80] or 'unnamed'}",
                "channelId": graph.channel(args),
                "name": mention.name,
                "type": mention.type,
                "aliases": [],
                "confidence": round(mention.confidence, 3),
                "source": source or "text",
                "isNew": True,
            }
            if args["persist"]:
                entity = _create(writer, entity, args, source)
        entity["mention"] = mention.name
        ids[mention.name.lower()] = entity["id"]
        entities.append(entity)
    relationships = []
    for rel in found.relationships:
        start, goal = ids.get(rel.source.lower()), ids.get(rel.target.lower())
        if start is None or goal is None or start == goal:
            continue
        item: dict[str, Any] = {
            "id": None,
            "fromEntityId": start,
            "toEntityId": goal,
            "type": rel.type,
            "label": None,
            "confidence": round(rel.confidence, 3),
            "evidence": rel.evidence,
            "source": source or "text",
        }
        if args["persist"]:
            made = writer.create(
                "kg_create_relationship",
                {
                    "fromEntityId": start,
                    "toEntityId": goal,
                    "type": rel.type,
                    "confidence": rel.confidence,
                },
            )
            if made["success"]:
                item["id"] = made["relationship"]["id"]
        relationships.append(item)
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    result: dict[str, Any] = {
        "entities": entities,
        "relationships": relationships,
        "entitiesExtracted": len(entities),
        "relationshipsExtracted": len(relationships),
        "executionTimeMs": elapsed,
    }
    if memory:
        result["linkedToMemory"] = bool(args["persist"])
    return ok(
        result=result,
        entitiesExtracted=len(entities),
        relationshipsExtracted=len(relationships),
        executionTimeMs=elapsed,
        message=f"Extracted {len(entities)} entities and {len(relationships)} relationships",
    )


def _create(
    writer: GraphWriter, proposed: dict[str, Any], args: dict[str, Any], source: str | None
) -> dict[str, Any]:
    existing = writer.store.entity_rows([proposed["id"]])
    if proposed["id"] in existing:
        return {**writer.graph.entity(existing[proposed["id"]]), "isNew": False}
    made = writer.create(
        "kg_create_entity",
        {
            "name": proposed["name"],
            "type": proposed["type"],
            "confidence": proposed["confidence"],
            "description": f"Extracted from {source}." if source else None,
            "channelId": args.get("channelId"),
        },
    )
    if not made["success"]:
        raise ToolError(f"could not create {proposed['name']}: {made['message']}")
    return {**made["entity"], "isNew": True}


def duplicates_tool(graph: KnowledgeGraph, args: dict[str, Any]) -> dict[str, Any]:
    rows = graph.store.name_candidates(graph.channel(args), graph.default_channel)
    candidates = [Candidate(eid, kind, name, tuple(aliases)) for eid, kind, name, aliases in rows]
    with graph.parts.released():  # pure work on the rows read: searches go on meanwhile
        pairs = find_duplicates(candidates, args["threshold"])
    ids = sorted({p.entity1 for p in pairs} | {p.entity2 for p in pairs})
    entities = graph.store.entity_rows(ids)
    duplicates = [
        {
            "entity1": graph.entity(entities[p.entity1]),
            "entity2": graph.entity(entities[p.entity2]),
            "similarity": round(p.similarity, 4),
            "matched": list(p.matched),
        }
        for p in pairs
        if p.entity1 in entities and p.entity2 in entities
    ]
    return ok(
        duplicates=duplicates,
        count=len(duplicates),
        message=f"{len(duplicates)} possible duplicate pairs at threshold {args['threshold']}",
    )
