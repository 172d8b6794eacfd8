"""Contracts of the graph map: the TUI's `app_graph_map` and MCP's `kg_graph_image`."""

from __future__ import annotations

from kbtui.tools.contracts.kb import ENTITY_ID_PATTERN, READ, ToolSpec
from kbtui.tools.params import Param

GROUP_PATTERN = r"^type:[^\s]{1,80}$"
_DEPTH = Param("integer", "Hops from the centre, 1-3.", default=1, minimum=1, maximum=3)

APP_GRAPH_MAP = ToolSpec(
    "app_graph_map",
    "The graph map's data (model.hood_to_dict): a note's neighbourhood (`centre`), the "
    "members of one overview group (`group`, an overview node id), or the overview (neither).",
    {
        "centre": Param("string", "Entity id.", max_length=100, pattern=ENTITY_ID_PATTERN),
        "group": Param("string", "Overview group id.", max_length=90, pattern=GROUP_PATTERN),
        "depth": _DEPTH,
        "types": Param(
            "array",
            "Entity types to keep (the centre always stays).",
            items=Param("string", "Entity type.", min_length=1, max_length=50),
            max_items=50,
        ),
        "maxNodes": Param("integer", "Nodes at most.", default=60, minimum=2, maximum=300),
    },
    {"map": None},
    effects=READ,
)

KG_GRAPH_IMAGE = ToolSpec(
    "kg_graph_image",
    "Draw part of the knowledge graph as SVG for the user: an entity and its neighbours to "
    "`depth` hops (hubs keep their most linked, '+N more'), or without entityId the entity "
    "types as groups. Returns svg, nodeCount, edgeCount.",
    {
        "entityId": Param(
            "string",
            "Centre entity id, e.g. person:andrei_clodius; omit for the overview.",
            min_length=3,
            max_length=100,
            pattern=ENTITY_ID_PATTERN,
        ),
        "depth": _DEPTH,
        "type": Param(
            "string",
            "Only neighbours of this entity type (e.g. project).",
            min_length=1,
            max_length=50,
        ),
        "maxNodes": Param("integer", "Nodes at most.", default=60, minimum=2, maximum=200),
    },
    {"svg": None, "nodeCount": 0, "edgeCount": 0},
    effects=READ,
)

GRAPH_MAP_TOOLS = {KG_GRAPH_IMAGE.name: KG_GRAPH_IMAGE}
APP_GRAPH_MAP_TOOLS = {APP_GRAPH_MAP.name: APP_GRAPH_MAP}
