"""The dashboards' query commands: `kbtui tasks:query "QUERY"`, a Tasks plugin query (the text
of a ```tasks block) answered as the plugin answers it (kbtui.tasksquery), and `kbtui dataview
"QUERY"`, a Dataview (DQL) query (kbtui.dataview); thin wrappers over their tools. And
`kbtui task`: one task, shown or updated (task_update)."""

from __future__ import annotations

import csv
import io
import json
import sys
from typing import Any

import click

from kbtui.cli.common import ObsidianStyle, emit, json_option, opened_vault, vault_option
from kbtui.cli.kb import exit_if_never_indexed
from kbtui.cli.vault_out import call_tool, format_option

_FIELDS = ("status", "text", "file", "line")
MAX_TASKS = 1_000_000


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


FORMATS = ("md", "json", "csv", "tsv", "paths")


@click.command("dataview")
@vault_option
@click.argument("query")
@click.option("--this", "this", help="The note holding the query (`this`, `[[]]`).")
@format_option(
    FORMATS,
    "md",
    "md: as Dataview exports it; json: rows keyed by column (TASK: tasks as "
    "`kbtui tasks --format json`); paths: one vault path a line (TASK: path:line).",
)
@json_option
def dataview(vault: str | None, query: str, this: str | None, fmt: str, as_json: bool) -> None:
    """Run a Dataview query (LIST, TABLE or TASK) and print its answer."""
    args: dict[str, Any] = {"query": query}
    if this:
        args["this"] = this
    with opened_vault(vault, need_model=False) as kb:
        response = kb.call("app_dataview", args)
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


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("ref", metavar="[PATH:LINE]", required=False)
@click.option("--file", "--path", "note", help="The task's note (path, name or id), with --line.")
@click.option("--line", type=click.IntRange(min=1), help="The task's line (1-based).")
@click.option("--daily", is_flag=True, help="The task is in today's daily note, with --line.")
@click.option("--toggle", "action", flag_value="toggle", help="Toggle done / to do.")
@click.option("--done", "action", flag_value="done", help="Mark done: [x].")
@click.option("--todo", "action", flag_value="todo", help="Mark to do: [ ].")
@click.option("--status", "status", help="Set this status character.")
def task(
    vault: str | None,
    ref: str | None,
    note: str | None,
    line: int | None,
    daily: bool,
    action: str | None,
    status: str | None,
) -> None:
    """Show or update one task, named as PATH:LINE, --file NOTE --line N or --daily --line N
    (Obsidian's `ref=`, `file=... line=N`, `daily line=N`); only its line is written."""
    path, at = _task_at(vault, ref, note, line, daily)
    if not action and not status:
        args = {"status": "all", "note": path, "limit": MAX_TASKS}
        answer = call_tool(vault, "tasks_list", args)
        found = [t for t in answer["results"] if t["line"] == at]
        if not found:
            raise click.ClickException(f"no task at {path}:{at}")
        for key, value in found[0].items():
            click.echo(f"{key}\t{value}")
        return
    args = {"file": path, "line": at, "status": status or action}
    answer = call_tool(vault, "task_update", args)
    for written in answer.get("lines") or [answer["task"]["text"]]:
        click.echo(written)


def _task_at(
    vault: str | None, ref: str | None, note: str | None, line: int | None, daily: bool
) -> tuple[str, int]:
    """The note and line a task is named by: PATH:LINE, or a note (or the daily note) and
    --line."""
    if ref and (note or daily or line):
        raise click.UsageError("give PATH:LINE or --file/--daily with --line, not both")
    if ref:
        path, _, at = ref.rpartition(":")
        if path and at.isdigit():
            return path, int(at)
    elif line is not None and (note or daily) and not (note and daily):
        if note:
            return note, line
        today = call_tool(vault, "app_daily", {"action": "path"})
        if not today["exists"]:
            raise click.ClickException(f"no daily note yet ({today['path']})")
        return today["path"], line
    raise click.BadParameter(
        "give the task as PATH:LINE (todo.md:3), --file NOTE --line N or --daily --line N",
        param_hint="REF",
    )


DATAVIEW_COMMANDS = (dataview,)
