"""The contract of vault_query (kbtui/tools/vault_query.py): one published tool for the
dashboards of every query language (Bases, Dataview, Tasks), so MCP lists one tool, not three.
Every character is an assistant's context: tools/list has a budget (tests/test_mcp_scope.py)."""

from __future__ import annotations

from kbtui.tools.contracts.kb import READ, ToolSpec
from kbtui.tools.params import Param

LANGUAGES = ("base", "dataview", "tasks")
VAULT_QUERY = ToolSpec(
    "vault_query",
    "Run an Obsidian base, Dataview (DQL) or Tasks query, or a note's Nth query block. "
    "A note alone: its blocks; nothing: the vault's.",
    {
        "language": Param("string", "", enum=LANGUAGES),
        "query": Param("string", "Query (base: YAML).", max_length=20000),
        "file": Param("string", "A base (Books, N.md#2), or the note (`this`).", max_length=500),
        "block": Param("integer", "Its Nth query block.", minimum=1),
        "view": Param("string", "Base view.", max_length=200),
        "today": Param("string", "Tasks' today: YYYY-MM-DD.", max_length=10),
        "limit": Param("integer", "Max rows.", default=50, minimum=1, maximum=100_000),
    },
    {"rows": [], "count": 0},
    effects=READ,
)
QUERY_TOOLS = {VAULT_QUERY.name: VAULT_QUERY}
