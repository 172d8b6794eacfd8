"""The contract of app_dataview (kbtui/tools/dataview.py): a Dataview (DQL) query answered from
the index. Not published over MCP yet: the query languages are to share one tool there."""

from __future__ import annotations

from kbtui.tools.contracts.kb import ToolSpec
from kbtui.tools.params import Param

APP_DATAVIEW = ToolSpec(
    "app_dataview",
    "Run a Dataview query (DQL: LIST, TABLE or TASK, FROM, WHERE, SORT, GROUP BY, FLATTEN, "
    "LIMIT) over the vault's notes, their properties and inline fields. Rows keyed by column "
    "header; TASK rows are tasks.",
    {
        "query": Param("string", "The DQL query.", True, min_length=1, max_length=20000),
        "this": Param(
            "string", "The note holding the query (`this`): a path or name.", max_length=500
        ),
        "language": Param(
            "string",
            "dataview (DQL); dataviewjs is reported as not run.",
            default="dataview",
            enum=("dataview", "dataviewjs"),
        ),
        "markdown": Param("boolean", "Also the answer as Dataview's Markdown.", default=False),
    },
    {"rows": [], "columns": [], "paths": []},
)
DATAVIEW_TOOLS = {APP_DATAVIEW.name: APP_DATAVIEW}
