"""kg_get_phase_context: graph context shaped for each ORPAR phase (spec 004's table).

observation  entities the task text names or is about, plus recently used entities;
reasoning    the focus entities, their neighbours and shortest paths between focus pairs;
planning     dependencies and blockers (DEPENDS_ON, BLOCKS), resources (USES, OWNS,
             MEMBER_OF, WORKS_ON) and the high-utility entities;
action       technologies, tools and documents the focus uses or the task mentions;
reflection   entities changed most recently in the vault and those used most recently.
"""

from __future__ import annotations

import time
from itertools import combinations
from typing import Any

from kbtui.tools.envelope import ok
from kbtui.tools.graph.read import KnowledgeGraph

PLANNING_TYPES = ("DEPENDS_ON", "BLOCKS", "USES", "OWNS", "MEMBER_OF", "WORKS_ON")
ACTION_ENTITY_TYPES = ("technology", "document", "task", "tool")
LIMIT = 15


def phase_context(
    graph: KnowledgeGraph, args: dict[str, Any]
) -> tuple[list[str], list[dict[str, Any]], str]:
    channel = graph.channel(args)
    task = args["taskContent"] or ""
    focus = list(dict.fromkeys(args["entityIds"]))
    if task and len(focus) < 3:
        focus += [i for i in graph.matching(task, channel, 5) if i not in focus]
    phase = args["phase"]
    store = graph.store
    rels: list[dict[str, Any]] = []
    ids = list(focus)
    if phase == "observation":
        recent = store.top_entity_ids("last_accessed", 5, channel, graph.default_channel)
        ids += [i for i in recent if i not in ids]
        rels = store.relationships_among(ids)
        summary = f"{len(focus)} entities match the task; {len(ids) - len(focus)} used recently."
    elif phase == "reasoning":
        for entity_id in focus[:5]:
            for rel in store.neighbor_relationships(entity_id, "both", None, 8):
                rels.append(rel)
                for end in (rel["fromEntityId"], rel["toEntityId"]):
                    if end not in ids:
                        ids.append(end)
        paths = 0
        for a, b in combinations(focus[:5], 2):
            found = store.shortest_path(a, b, 4)
            if found:
                paths += 1
                ids += [i for i in found[0] if i not in ids]
                rels += store.relationships_by_id(found[1], among=found[0])
        summary = (
            f"Subgraph of {len(focus)} focus entities with {len(ids)} entities; "
            f"{paths} paths connect focus pairs."
        )
    elif phase == "planning":
        for entity_id in focus[:8]:
            for rel_type in PLANNING_TYPES:
                for rel in store.neighbor_relationships(entity_id, "both", rel_type, 10):
                    rels.append(rel)
                    for end in (rel["fromEntityId"], rel["toEntityId"]):
                        if end not in ids:
                            ids.append(end)
        high = store.top_entity_ids("q_value", 5, channel, graph.default_channel)
        ids += [i for i in high if i not in ids]
        blockers = sum(1 for r in rels if r["type"] in ("BLOCKS", "DEPENDS_ON"))
        summary = (
            f"{blockers} dependencies or blockers and {len(rels) - blockers} resource links "
            f"around {len(focus)} focus entities; {len(high)} high-utility entities added."
        )
    elif phase == "action":
        for entity_id in focus[:8]:
            for rel in store.neighbor_relationships(entity_id, "outgoing", "USES", 10):
                rels.append(rel)
                if rel["toEntityId"] not in ids:
                    ids.append(rel["toEntityId"])
        rows = store.entity_rows(ids)
        tools = [i for i in ids if rows.get(i, {}).get("type") in ACTION_ENTITY_TYPES]
        summary = f"{len(tools)} technologies, tools or documents relevant to acting on the task."
    else:  # reflection
        changed = store.top_entity_ids("indexed_at", 8, channel, graph.default_channel)
        used = store.top_entity_ids("last_accessed", 8, channel, graph.default_channel)
        ids += [i for i in changed + used if i not in ids]
        rels = store.relationships_among(ids)
        summary = (
            f"{len(changed)} entities changed most recently and {len(used)} used most "
            "recently, for reviewing the outcome."
        )
    unique = {r["id"]: r for r in rels}
    return ids[: LIMIT * 2], list(unique.values())[: LIMIT * 4], summary


def kg_get_phase_context(graph: KnowledgeGraph, args: dict[str, Any]) -> dict[str, Any]:
    """kg_get_phase_context: the task's entities plus what the phase needs around them."""
    started = time.perf_counter()
    for entity_id in args["entityIds"]:
        graph.require(entity_id)
    entity_ids, rels, summary = phase_context(graph, args)
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    phase = {
        "phase": args["phase"],
        "entities": graph.entities(entity_ids),
        "relationships": [graph.relationship(r) for r in rels],
        "summary": summary,
        "executionTimeMs": elapsed,
    }
    return ok(
        phaseContext=phase,
        entityCount=len(phase["entities"]),
        relationshipCount=len(phase["relationships"]),
        summary=summary,
        executionTimeMs=elapsed,
        message=f"{args['phase']} context: {len(entity_ids)} entities",
    )
