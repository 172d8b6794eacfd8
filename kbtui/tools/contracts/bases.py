"""The contract of base_query (kbtui/tools/bases.py), loadable without the evaluator."""

from __future__ import annotations

from kbtui.tools.contracts.kb import READ, ToolSpec
from kbtui.tools.params import Param

BASE_QUERY = ToolSpec(
    "base_query",
    "Run a view of an Obsidian base (.base file or a note's ```base block): rows with the "
    "view's columns, groups and summaries, as Obsidian shows them. Without file or yaml: "
    "the vault's bases and their views.",
    {
        "file": Param(
            "string",
            "The base: vault path or name (e.g. Books); a note's Nth ```base block: Note.md#N.",
            max_length=500,
        ),
        "yaml": Param("string", "A base's YAML, instead of a file.", max_length=20000),
        "view": Param("string", "View name (default: the first).", max_length=200),
        "this": Param("string", "Note that `this` is (as when embedded in it).", max_length=500),
        "limit": Param("integer", "Max rows.", default=50, minimum=1, maximum=1000),
    },
    {"rows": [], "columns": []},
    effects=READ,
)
BASE_TOOLS = {BASE_QUERY.name: BASE_QUERY}
