"""Which tools exist and how they are used, without loading a handler: what a client process
needs (`kbtui search` through a running owner loads neither DuckDB nor the model)."""

from __future__ import annotations

from kbtui.tools.contracts.graph import KG_TOOLS
from kbtui.tools.contracts.graph_map import GRAPH_MAP_TOOLS
from kbtui.tools.contracts.kb import KB_TOOLS, ToolSpec
from kbtui.tools.contracts.links import LINK_TOOLS
from kbtui.tools.contracts.notes import NOTE_TOOLS
from kbtui.tools.contracts.obsidian import VAULT_TOOLS
from kbtui.tools.contracts.query import QUERY_TOOLS

# The published tools by subject: `kbtui mcp --tools kb,vault` offers these groups only.
SUBJECTS: dict[str, dict[str, ToolSpec]] = {
    "kb": KB_TOOLS,  # search, notes by id, passages, import
    "graph": {**KG_TOOLS, **GRAPH_MAP_TOOLS, **LINK_TOOLS},  # the knowledge graph
    # Obsidian's own: dashboards (bases, Dataview, Tasks queries), links, tasks, daily; and the
    # notes themselves (read, write, history)
    "vault": {**QUERY_TOOLS, **VAULT_TOOLS, **NOTE_TOOLS},
}
# what MCP offers
PUBLISHED: dict[str, ToolSpec] = {n: s for group in SUBJECTS.values() for n, s in group.items()}
# `--tools` groups: the subjects, plus the tools that only read, the tools that may write,
# and all of them
TOOL_GROUPS: dict[str, tuple[str, ...]] = {
    **{name: tuple(group) for name, group in SUBJECTS.items()},
    "read": tuple(n for n, s in PUBLISHED.items() if s.effects.read_only),
    "write": tuple(n for n, s in PUBLISHED.items() if not s.effects.read_only),
    "all": tuple(PUBLISHED),
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
# (vault_query is not here: its Dataview queries share app_dataview's service, which keeps
# state between calls without a lock of its own, so it runs under the store lock as that does.)
READS = frozenset(
    {"kb_search", "kb_get", "get_chunk", "knowledge_query", "kg_find_duplicates"}
    | {*GRAPH_READS, "kg_suggest_links", "base_query", "vault_links", "tasks_list"}
    | {"kg_graph_image", "app_graph_map", "note_read", "app_tasks_query"}
)


class UnknownTools(ValueError):
    """A `--tools` entry that is neither a group nor a published tool."""


def tool_set(text: str) -> tuple[str, ...]:
    """The published tools a `--tools` value names (groups and tool names, comma-separated),
    in table order; UnknownTools names what is not known."""
    wanted: set[str] = set()
    for item in (part.strip() for part in text.split(",")):
        if item in TOOL_GROUPS:
            wanted.update(TOOL_GROUPS[item])
        elif item in PUBLISHED:
            wanted.add(item)
        elif item:
            raise UnknownTools(f"{item!r} is neither a tool nor a group ({', '.join(TOOL_GROUPS)})")
    if not wanted:
        raise UnknownTools(f"no tools named; groups: {', '.join(TOOL_GROUPS)}")
    return tuple(n for n in PUBLISHED if n in wanted)
