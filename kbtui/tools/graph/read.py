"""The knowledge-graph tools of spec 004 that read: entities, neighbours, paths, utility, context.

Every note is an entity; relationships are its typed frontmatter relations and wikilinks,
resolved like Obsidian links (kbtui/store/graph/entities.py). Q-values are a moving average of
reward: an entity *used* (fetched by id, an end of a path or new relationship, a merge target) gets
reward 1 with step 0.2; an entity merely *shown* in a list gets reward 0 with step 0.02. So
entities that keep being picked rise towards 1, ones that are shown and ignored drift down.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kbtui.search.service import Mode
from kbtui.tools.envelope import NotFoundError, ValidationError, ok
from kbtui.tools.parts import VaultParts
from kbtui.vault.parse import slug
from kbtui.vault.scan import is_markdown

USE_REWARD, USE_STEP = 1.0, 0.2
SHOW_REWARD, SHOW_STEP = 0.0, 0.02
CONTEXT_ENTITIES = 10


def iso(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.replace(microsecond=0).isoformat() + "Z"
    return str(value)


class KnowledgeGraph:
    def __init__(self, parts: VaultParts) -> None:
        self.parts = parts
        self.store = parts.store
        self.default_channel = slug(parts.settings.vault.name) or "default"

    # -- shaping --------------------------------------------------------------------------
    def entity(self, row: dict[str, Any]) -> dict[str, Any]:
        fm = row["frontmatter"]
        description = fm.get("description") or fm.get("summary")
        confidence = fm.get("confidence")
        return {
            "id": row["id"],
            "channelId": fm.get("channel") or self.default_channel,
            "name": row["name"],
            "type": row["type"],
            "aliases": row["aliases"],
            "description": description if isinstance(description, str) else None,
            "confidence": float(confidence) if isinstance(confidence, int | float) else 1.0,
            "qValue": round(row["q_value"], 4),
            "accessCount": row["access_count"],
            "lastAccessed": iso(row["last_accessed"]),
            "source": row["path"],
            "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["indexed_at"]),
        }

    def relationship(self, rel: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": rel["id"],
            "channelId": rel["channel"] or self.default_channel,
            "fromEntityId": rel["fromEntityId"],
            "toEntityId": rel["toEntityId"],
            "type": rel["type"],
            "label": rel["label"],
            "confidence": rel["confidence"],
            "source": rel["source"],
            "createdAt": iso(rel["createdAt"]),
        }

    def entities(self, ids: list[str]) -> list[dict[str, Any]]:
        rows = self.store.entity_rows(ids)
        return [self.entity(rows[i]) for i in ids if i in rows]

    def require(self, entity_id: str) -> dict[str, Any]:
        rows = self.store.entity_rows([entity_id])
        if entity_id not in rows:
            raise NotFoundError(f"Entity not found: {entity_id}")
        return rows[entity_id]

    def require_all(self, ids: list[str], required: list[str]) -> dict[str, dict[str, Any]]:
        """The rows of `ids` in one query; NotFoundError for the first of `required` missing."""
        rows = self.store.entity_rows(ids)
        for entity_id in required:
            if entity_id not in rows:
                raise NotFoundError(f"Entity not found: {entity_id}")
        return rows

    def channel(self, args: dict[str, Any]) -> str:
        return str(args.get("channelId") or self.default_channel)

    def used(self, ids: list[str]) -> None:
        self.store.record_usage(ids, USE_REWARD, USE_STEP, count=True)

    def shown(self, ids: list[str]) -> None:
        self.store.record_usage(ids, SHOW_REWARD, SHOW_STEP, count=False)

    # -- tools ----------------------------------------------------------------------------
    def kg_get_entity(self, args: dict[str, Any]) -> dict[str, Any]:
        self.require(args["entityId"])
        self.used([args["entityId"]])
        entity = self.entity(self.store.entity_rows([args["entityId"]])[args["entityId"]])
        return ok(entity=entity, message=f"Found entity {entity['name']}")

    def kg_find_entity(self, args: dict[str, Any]) -> dict[str, Any]:
        ids, total = self.store.find_entity_ids(
            args["name"], args["exact"], args["limit"], self.channel(args), self.default_channel
        )
        found = self.entities(ids)
        self.shown(ids)
        return ok(
            entities=found,
            count=len(found),
            totalFound=total,
            message=f"Found {total} entities matching '{args['name']}'",
        )

    def kg_get_neighbors(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id = args["entityId"]
        rels = self.store.neighbor_relationships(
            entity_id, args["direction"], args["relationshipType"], args["limit"] * 5
        )
        neighbour_ids: list[str] = []
        kept = []
        for rel in rels:
            other = rel["toEntityId"] if rel["fromEntityId"] == entity_id else rel["fromEntityId"]
            if other not in neighbour_ids:
                if len(neighbour_ids) == args["limit"]:
                    continue
                neighbour_ids.append(other)
            kept.append(self.relationship(rel))
        # the entity and its neighbours in one query (each costs ~1.5 ms, issue 33): the
        # relationships read above change nothing, so a missing entity still fails first
        rows = self.require_all([entity_id, *neighbour_ids], [entity_id])
        found = [self.entity(rows[i]) for i in neighbour_ids if i in rows]
        self.shown(neighbour_ids)
        return ok(
            entities=found,
            relationships=kept,
            entityCount=len(found),
            relationshipCount=len(kept),
            message=f"{len(found)} neighbours of {entity_id}",
        )

    def kg_find_path(self, args: dict[str, Any]) -> dict[str, Any]:
        start, goal = args["fromEntityId"], args["toEntityId"]
        self.require_all([start, goal], [start, goal])
        found = self.store.shortest_path(start, goal, args["maxHops"])
        if found is None:
            return ok(
                path=None,
                found=False,
                hopCount=0,
                message=f"No path from {start} to {goal} within {args['maxHops']} hops",
            )
        entity_ids, rel_ids = found
        self.used([start, goal])
        return ok(
            path={"entityIds": entity_ids, "relationshipIds": rel_ids},
            found=True,
            hopCount=len(rel_ids),
            relationships=[
                self.relationship(r)
                for r in self.store.relationships_by_id(rel_ids, among=entity_ids)
            ],
            message=f"Path of {len(rel_ids)} hops",
        )

    def kg_get_high_utility_entities(self, args: dict[str, Any]) -> dict[str, Any]:
        ids = self.store.top_entity_ids(
            "q_value", args["limit"], self.channel(args), self.default_channel
        )
        found = self.entities(ids)
        return ok(entities=found, count=len(found), message=f"Top {len(found)} by Q-value")

    def kg_get_context(self, args: dict[str, Any]) -> dict[str, Any]:
        keywords = [k for k in args["keywords"] if k.strip()]
        ids = self.matching(" ".join(keywords), self.channel(args)) if keywords else []
        rels = self.store.relationships_among(ids) if ids else []
        high = self.entities(
            self.store.top_entity_ids("q_value", 5, self.channel(args), self.default_channel)
        )
        stats = {"entityCount": len(ids), "relationshipCount": len(rels)}
        self.shown(ids)
        context = {
            "entities": self.entities(ids),
            "relationships": [self.relationship(r) for r in rels],
            "highUtilityEntities": high,
            "stats": stats,
        }
        if args["taskId"]:
            context["taskId"] = args["taskId"]
        return ok(
            context=context,
            stats=stats,
            message=f"{len(ids)} entities and {len(rels)} relationships for the keywords",
        )

    # -- helpers for context --------------------------------------------------------------
    def matching(self, text: str, channel: str, limit: int = CONTEXT_ENTITIES) -> list[str]:
        """Entities a text is about: names said outright first, then search by meaning."""
        ids: list[str] = []
        for word in [text, *text.split()]:
            if len(word) >= 3:
                exact, _ = self.store.find_entity_ids(word, True, 3, channel, self.default_channel)
                ids += [i for i in exact if i not in ids]
        if len(text.strip()) >= 3:
            mode: Mode = "hybrid" if self.parts.embedder is not None else "keyword"
            for hit in self.parts.search.search(text[:500], limit, mode=mode):
                if hit.id not in ids:
                    ids.append(hit.id)
        return ids[:limit]

    def validate_pair(self, start: str, goal: str) -> None:
        if start == goal:
            raise ValidationError(
                "fromEntityId and toEntityId are the same entity; a relationship needs two",
                field="toEntityId",
            )


def note_file(row: dict[str, Any], field: str) -> dict[str, Any]:
    """The entity's row when its file is a markdown note, which a write may edit or move;
    a PDF or an attachment is the user's own file, never edited: VALIDATION."""
    if not is_markdown(str(row["path"])):
        raise ValidationError(
            f"{row['id']} is {row['path']}, not a markdown note: kbtui edits and moves only notes",
            field=field,
        )
    return row
