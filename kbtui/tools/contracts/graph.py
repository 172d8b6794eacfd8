"""The kg_* tool contracts of spec 004: parameters with defaults and ranges, result fields."""

from __future__ import annotations

from kbtui.graph.model import ENTITY_TYPES, RELATIONSHIP_TYPES
from kbtui.tools.contracts.kb import READ, Effects, ToolSpec
from kbtui.tools.params import Param

PHASES = ("observation", "reasoning", "planning", "action", "reflection")

_ID = r"^[a-z_]+:[a-z0-9_]+$"
# the spec's namespace; the vault is one: said in no words to save an assistant's context
CHANNEL = Param("string", "", pattern=r"^[A-Za-z0-9_.:-]{1,100}$")


# a repeat of the same call changes nothing more (the entity or relation is there)
ADDS_ONCE = Effects(destructive=False, idempotent=True, scoped=True)
EXTRACTS = Effects(destructive=False, read_when=("persist", (False,)), scoped=True)  # persist


def _entity_id(description: str) -> Param:
    return Param("string", description, True, min_length=3, max_length=100, pattern=_ID)


KG_TOOLS = {
    t.name: t
    for t in (
        ToolSpec(
            "kg_get_entity",
            "One knowledge-graph entity (a note: person, project, technology, ...) by id: "
            "aliases, description, Q-value (learned usefulness 0-1) and access count.",
            {"entityId": _entity_id("Entity id, e.g. person:andrei_clodius.")},
            {"entity": None},
            effects=READ,
        ),
        ToolSpec(
            "kg_find_entity",
            "Find entities by name or alias (case-insensitive substring, or exact). Use it to "
            "turn a name from the conversation into an entity id.",
            {
                "channelId": CHANNEL,
                "name": Param(
                    "string", "Name or alias to search.", True, min_length=1, max_length=200
                ),
                "exact": Param("boolean", "Require an exact name/alias match.", default=False),
                "limit": Param("integer", "Max results.", default=10, minimum=1, maximum=50),
            },
            {"entities": [], "count": 0, "totalFound": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_get_neighbors",
            "Entities connected to an entity, with the relationships (typed: WORKS_ON, "
            "MEMBER_OF, USES, REFERENCES, ...), optionally one direction or one type.",
            {
                "entityId": _entity_id("Entity to find neighbours for."),
                "direction": Param(
                    "string",
                    "incoming, outgoing or both.",
                    default="both",
                    enum=("incoming", "outgoing", "both"),
                ),
                "relationshipType": Param(
                    "string", "Only this relationship type.", enum=RELATIONSHIP_TYPES
                ),
                "limit": Param("integer", "Max neighbours.", default=20, minimum=1, maximum=100),
            },
            {"entities": [], "relationships": [], "entityCount": 0, "relationshipCount": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_find_path",
            "Shortest chain of relationships between two entities (either direction), as "
            "entity ids and relationship ids, within maxHops.",
            {
                "fromEntityId": _entity_id("Starting entity id."),
                "toEntityId": _entity_id("Target entity id."),
                "maxHops": Param("integer", "Max hops.", default=5, minimum=1, maximum=10),
            },
            {"path": None, "found": False, "hopCount": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_get_high_utility_entities",
            "Entities with the highest Q-values: the ones that proved most useful before.",
            {
                "channelId": CHANNEL,
                "limit": Param("integer", "Max entities.", default=10, minimum=1, maximum=50),
            },
            {"entities": [], "count": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_get_context",
            "Graph context for a task: entities matching the keywords (by meaning and name), "
            "the relationships among them and the high-utility entities.",
            {
                "channelId": CHANNEL,
                "taskId": Param("string", "Optional task id.", max_length=200),
                "keywords": Param(
                    "array",
                    "Keywords to find relevant entities.",
                    items=Param("string", "A keyword.", min_length=1, max_length=200),
                    max_items=50,
                    default=[],
                ),
            },
            {"context": None, "stats": None},
            effects=READ,
        ),
        ToolSpec(
            "kg_get_phase_context",
            "Graph context for one ORPAR phase: observation (matching, recently used "
            "entities), reasoning (subgraph, paths), planning (dependencies, blockers, "
            "resources), action (tools, technologies), reflection (recent changes).",
            {
                "channelId": CHANNEL,
                "phase": Param("string", "The ORPAR phase.", True, enum=PHASES),
                "taskContent": Param("string", "Task text.", max_length=5000),
                "entityIds": Param(
                    "array",
                    "Entities to focus on.",
                    items=Param("string", "Entity id.", min_length=3, max_length=100, pattern=_ID),
                    max_items=50,
                    default=[],
                ),
            },
            {"phaseContext": None, "entityCount": 0, "relationshipCount": 0, "summary": ""},
            effects=READ,
        ),
        ToolSpec(
            "kg_create_entity",
            "Create an entity: writes a new note into the user's vault (in the folder of its "
            "type, with the properties its notes use) and indexes it. Fails if the id exists.",
            {
                "channelId": CHANNEL,
                "name": Param("string", "Entity name.", True, min_length=1, max_length=200),
                "type": Param("string", "Entity type.", True, enum=ENTITY_TYPES),
                "aliases": Param(
                    "array",
                    "Alternative names.",
                    items=Param("string", "An alias.", min_length=1, max_length=200),
                    max_items=100,
                    default=[],
                ),
                "description": Param("string", "What the entity is.", max_length=5000),
                "confidence": Param("number", "Confidence 0-1.", default=0.8, minimum=0, maximum=1),
            },
            {"entity": None},
            effects=ADDS_ONCE,
        ),
        ToolSpec(
            "kg_create_relationship",
            "Relate two entities: the relation is written into the source note's frontmatter "
            "(e.g. works_on: [[project]]) and nothing else in that note changes.",
            {
                "channelId": CHANNEL,
                "fromEntityId": _entity_id("Source entity id."),
                "toEntityId": _entity_id("Target entity id."),
                "type": Param("string", "Relationship type.", True, enum=RELATIONSHIP_TYPES),
                "label": Param("string", "Human-readable label.", max_length=200),
                "confidence": Param("number", "Confidence 0-1.", default=0.8, minimum=0, maximum=1),
            },
            {"relationship": None},
            effects=ADDS_ONCE,
        ),
        ToolSpec(
            "kg_extract_from_text",
            "Find entities and typed relationships in text, locally (no LLM): known vault "
            "entities by name/alias (fuzzy), new people/organisations/projects/technologies "
            "proposed, relationships from cue phrases. Set persist to write new ones.",
            {
                "channelId": CHANNEL,
                "text": Param(
                    "string", "Text to extract from.", True, min_length=1, max_length=100_000
                ),
                "sourceId": Param("string", "Source identifier, e.g. a memory id.", max_length=200),
                "persist": Param(
                    "boolean", "Create the new entities and relationships.", default=False
                ),
            },
            {"result": None, "entitiesExtracted": 0, "relationshipsExtracted": 0},
            effects=EXTRACTS,
        ),
        ToolSpec(
            "kg_extract_from_memory",
            "Like kg_extract_from_text for a stored memory; results are linked to memoryId.",
            {
                "channelId": CHANNEL,
                "memoryId": Param("string", "Memory id.", True, min_length=1, max_length=200),
                "memoryContent": Param(
                    "string", "Memory content.", True, min_length=1, max_length=100_000
                ),
                "persist": Param(
                    "boolean", "Create the new entities and relationships.", default=False
                ),
            },
            {"result": None, "entitiesExtracted": 0, "relationshipsExtracted": 0},
            effects=EXTRACTS,
        ),
        ToolSpec(
            "kg_find_duplicates",
            "Pairs of entities whose names or aliases are similar enough to be the same thing "
            "(e.g. React / ReactJS), with a similarity 0-1. Review, then kg_merge_entities.",
            {
                "channelId": CHANNEL,
                "threshold": Param(
                    "number", "Similarity threshold.", default=0.8, minimum=0, maximum=1
                ),
            },
            {"duplicates": [], "count": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_merge_entities",
            "Merge entities into a target: their aliases and relationships move to the target, "
            "their notes' text is kept in the target note and links to them keep resolving.",
            {
                "targetEntityId": _entity_id("Entity to keep."),
                "sourceEntityIds": Param(
                    "array",
                    "Entities to merge into the target.",
                    True,
                    items=Param("string", "Entity id.", min_length=3, max_length=100, pattern=_ID),
                    max_items=50,
                ),
                "dryRun": Param("boolean", "List the changes; write nothing.", default=False),
            },
            {"result": None},
            effects=Effects(read_when=("dryRun", (True,)), scoped=True),
        ),
    )
}

# Every published tool's contract and the reads, here with the contracts rather than in the
# registry (which imports the handlers, the store, DuckDB): a process that only reaches
# another kbtui process's index (kbtui.runtime.shared) needs them without the query layer.
