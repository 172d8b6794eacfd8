"""The dashboards' query commands: `kbtui tasks:query "QUERY"`, a Tasks plugin query (the text
of a ```tasks block) answered as the plugin answers it (kbtui.tasksquery), and `kbtui dataview
"QUERY"`, a Dataview (DQL) query (kbtui.dataview); thin wrappers over their tools."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Any

import click

from kbtui.cli.common import emit, json_option, vault_option
from kbtui.cli.kb import exit_if_never_indexed
from kbtui.cli.vault_out import format_option, read_tool

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
    answer = read_tool(vault, "app_tasks_query", {k: v for k, v in args.items() if v is not None})
    emit(answer, as_json=False)
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


FORMATS = ("md", "json", "csv", "tsv", "paths")


@click.command("dataview")
@vault_option
@click.argument("query")
@click.option("--this", "this", help="The note holding the query (`this`, `[[]]`).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="md",
    show_default=True,
    help="md: as Dataview exports it; json: rows keyed by column (TASK: tasks as "
    "`kbtui tasks --format json`); paths: one vault path a line (TASK: path:line).",
)
@json_option
def dataview(vault: str | None, query: str, this: str | None, fmt: str, as_json: bool) -> None:
    """Run a Dataview query (LIST, TABLE or TASK) and print its answer."""
    args: dict[str, Any] = {"query": query}
    if this:
        args["this"] = this
    response = read_tool(vault, "app_dataview", args)
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if shown:
        click.echo(render(response, fmt), nl=False)


def render(response: dict[str, Any], fmt: str) -> str:
    if fmt == "paths":
        return "".join(p + "\n" for p in response["paths"])
    if fmt == "md":
        return str(response["markdown"])
    rows = response["rows"]
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if response["type"] == "task":
        header = ["status", "text", "file", "line"]
        rows = list(_flat_tasks(rows))
    else:
        header = response["columns"]
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[_cell(r.get(h)) for h in header] for r in rows])
    return buf.getvalue()


def _flat_tasks(tasks: list[dict[str, Any]]) -> Any:
    for t in tasks:
        yield t
        yield from _flat_tasks(t.get("children", []))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


DATAVIEW_COMMANDS = (dataview,)
