"""Contracts of the tools that answer Obsidian's own vault commands (issue 29): links, tasks,
the daily note. Kept short: every character of a description is an assistant's context."""

from __future__ import annotations

from kbtui.tools.contracts.kb import ADDS, READ, Effects, ToolSpec
from kbtui.tools.params import Param

_NOTE = Param("string", "Path, name (as a link reaches it) or entity id.", max_length=500)
VAULT_TOOLS = {
    t.name: t
    for t in (
        ToolSpec(
            "vault_links",
            "Obsidian's link lists, resolved as Obsidian does (wikilinks, markdown links, "
            "attachments): a note's backlinks (with counts) or links out; unresolved links "
            "(counts, sources); orphans (no links in); deadends (no links out).",
            {
                "kind": Param(
                    "string",
                    "What to list.",
                    True,
                    enum=("backlinks", "links", "unresolved", "orphans", "deadends"),
                ),
                "note": Param(
                    "string", "For backlinks, links: " + _NOTE.description, max_length=500
                ),
            },
            {"results": [], "count": 0},
            effects=READ,
        ),
        ToolSpec(
            "tasks_list",
            "Tasks (`- [ ] ...` list items) with file, line, status and the Tasks plugin's "
            "fields (due, scheduled, start, done, priority, recurrence).",
            {
                "status": Param(
                    "string",
                    "todo (not done), done (done or cancelled), all, or one status character.",
                    default="todo",
                    min_length=1,
                    max_length=4,
                ),
                "statusType": Param(
                    "string",
                    "Tasks plugin status types, comma-separated: TODO, IN_PROGRESS, ON_HOLD, "
                    "DONE, CANCELLED, NON_TASK.",
                    max_length=100,
                ),
                "note": _NOTE,
                "dueBefore": Param(
                    "string",
                    "Only due before this date (YYYY-MM-DD).",
                    pattern=r"^\d{4}-\d{2}-\d{2}$",
                ),
                "limit": Param("integer", "Max tasks.", default=100, minimum=1, maximum=1_000_000),
            },
            {"results": [], "count": 0},
            effects=READ,
        ),
        ToolSpec(
            "task_update",
            "Set one task's status (from tasks_list's file and line) as the Tasks plugin does: "
            "done date, a recurring task's next occurrence. Refused if the line changed.",
            {
                "file": Param("string", "Path, name or entity id.", True, max_length=500),
                "line": Param("integer", "1-based line.", True, minimum=1),
                "status": Param(
                    "string",
                    "done, todo, toggle, or one status character.",
                    default="toggle",
                    min_length=1,
                    max_length=6,
                ),
                "text": Param("string", "The task's line as listed, to check it.", max_length=2000),
            },
            {"task": None},
            effects=Effects(destructive=False, scoped=True),  # one status character, in history
        ),
        ToolSpec(
            "daily_append",
            "Append text to today's daily note (created from the vault's daily-note settings "
            "and template if missing), e.g. to log something.",
            {
                "content": Param(
                    "string", "Markdown to append.", True, min_length=1, max_length=20000
                ),
                "date": Param(
                    "string", "Another day (YYYY-MM-DD).", pattern=r"^\d{4}-\d{2}-\d{2}$"
                ),
            },
            {"path": None},
            effects=ADDS,
        ),
    )
}

_APP_NOTE = Param(
    "string", "A vault path, note name or entity id.", True, min_length=1, max_length=500
)
# The CLI's Obsidian commands that an assistant does not need as tools: not published.
APP_VAULT_TOOLS = {
    t.name: t
    for t in (
        ToolSpec(
            "app_daily",
            "The daily note: its path, text, or text appended or prepended.",
            {
                "action": Param(
                    "string", "What to do.", True, enum=("path", "read", "append", "prepend")
                ),
                "content": Param("string", "Text to add.", max_length=100_000),
                "date": Param("string", "Another day.", pattern=r"^\d{4}-\d{2}-\d{2}$"),
                "inline": Param("boolean", "Add no newline.", default=False),
            },
            {"path": None},
        ),
        ToolSpec("app_outline", "A note's headings.", {"note": _APP_NOTE}, {"results": []}),
        ToolSpec(
            "app_tasks_query",
            "A Tasks plugin query (a ```tasks block's text) over the vault's tasks.",
            {
                "query": Param("string", "The query.", True, max_length=100_000),
                "today": Param("string", "Today's date.", pattern=r"^\d{4}-\d{2}-\d{2}$"),
                "this": Param(
                    "string", "The note holding the query (placeholders).", max_length=500
                ),
                "markdown": Param("boolean", "Also the results as markdown.", default=False),
            },
            {"results": [], "count": 0},
        ),
        ToolSpec(
            "app_tags",
            "Tags with note counts and occurrences, one tag's notes, or one note's tags.",
            {
                "name": Param("string", "One tag.", max_length=300),
                "note": Param("string", "One note.", max_length=500),
            },
            {"results": []},
        ),
        ToolSpec(
            "app_properties",
            "Property names, types and counts, of the vault or of one note.",
            {"note": Param("string", "One note.", max_length=500)},
            {"results": []},
        ),
        ToolSpec(
            "app_property",
            "Read, set or remove one property of a note.",
            {
                "action": Param("string", "What to do.", True, enum=("read", "set", "remove")),
                "name": Param("string", "Property name.", True, min_length=1, max_length=200),
                "note": _APP_NOTE,
                "value": Param(
                    "string", "Value to set (a list: comma-separated).", max_length=10_000
                ),
                "type": Param(
                    "string",
                    "Property type.",
                    enum=("text", "list", "multitext", "number", "checkbox", "date", "datetime"),
                ),
            },
            {"value": None},
        ),
        ToolSpec(
            "app_search_context",
            "Lines holding the query, grep-style.",
            {
                "query": Param("string", "Text to find.", True, min_length=1, max_length=500),
                "folder": Param("string", "Only this folder.", max_length=500),
                "limit": Param("integer", "Max files.", default=1000, minimum=1, maximum=100_000),
                "case": Param("boolean", "Case-sensitive.", default=False),
            },
            {"results": []},
        ),
    )
}
