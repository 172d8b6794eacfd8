"""`kbtui tasks:query "QUERY"`: a Tasks plugin query (the text of a ```tasks block) over the
vault's tasks, answered as the plugin answers it (kbtui.tasksquery)."""

from __future__ import annotations

import json
import sys

import click

from kbtui.cli.common import vault_option
from kbtui.cli.vault_out import call_tool, format_option

_FIELDS = ("status", "text", "file", "line")


@click.command("tasks:query")
@vault_option
@click.argument("query")
@click.option("--today", help="The day relative dates count from (YYYY-MM-DD); default today.")
@click.option("--this", "this", help="The note holding the query, for {{query.file.*}}.")
@format_option(("md", "json", "paths"), "md")
def tasks_query(
    vault: str | None, query: str, today: str | None, this: str | None, fmt: str
) -> None:
    """Run a Tasks plugin query, e.g. "not done\\ndue before tomorrow\\nsort by priority".

    QUERY is the block's text (`-` reads it from stdin; a literal `\\n` is a new line).
    md prints the results as the plugin draws them (group headings, hide/show, task count);
    json the tasks as `kbtui tasks --format json` prints them, in result order, each with its
    `group` when the query groups; paths one `path:line` a task."""
    text = sys.stdin.read() if query == "-" else query.replace("\\n", "\n")
    args = {"query": text, "today": today, "this": this, "markdown": fmt == "md"}
    answer = call_tool(vault, "app_tasks_query", args)
    if fmt == "md":
        click.echo(answer["markdown"])
    elif fmt == "paths":
        found = answer["results"]
        if found:
            click.echo("\n".join(f"{r['file']}:{r['line']}" for r in found))
    else:
        records = []
        for r in answer["results"]:
            record: dict[str, object] = {f: str(r[f]) for f in _FIELDS}
            if "group" in r:
                record["group"] = r["group"]
            records.append(record)
        click.echo(json.dumps(records, indent=2, ensure_ascii=False))
