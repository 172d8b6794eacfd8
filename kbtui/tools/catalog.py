"""Which tools exist and how they are used, without loading a handler: what a client process
needs (`kbtui search` through a running owner loads neither DuckDB nor the model)."""

from __future__ import annotations

from kbtui.tools.contracts.bases import BASE_TOOLS
from kbtui.tools.contracts.graph import KG_TOOLS
from kbtui.tools.contracts.graph_map import GRAPH_MAP_TOOLS
from kbtui.tools.contracts.kb import KB_TOOLS, ToolSpec
from kbtui.tools.contracts.links import LINK_TOOLS
from kbtui.tools.contracts.notes import NOTE_TOOLS
from kbtui.tools.contracts.obsidian import VAULT_TOOLS

# what MCP offers
PUBLISHED: dict[str, ToolSpec] = {
    **KB_TOOLS,
    **KG_TOOLS,
    **GRAPH_MAP_TOOLS,
    **LINK_TOOLS,
    **BASE_TOOLS,
    **VAULT_TOOLS,
    **NOTE_TOOLS,
}
GRAPH_READS = (
    "kg_get_entity",
    "kg_find_entity",
    "kg_get_neighbors",
    "kg_find_path",
    "kg_get_high_utility_entities",
    "kg_get_context",
    "kg_get_phase_context",
)
# Calls that change nothing but usage counters: safe to run again on the next owner.
READS = frozenset(
    {"kb_search", "kb_get", "get_chunk", "knowledge_query", "kg_find_duplicates"}
    | {*GRAPH_READS, "kg_suggest_links", "base_query", "vault_links", "tasks_list"}
    | {"kg_graph_image", "app_graph_map", "note_read"}
)
