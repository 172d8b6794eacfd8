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

from kbtui.cli.bases import render as render_base
from kbtui.cli.common import emit, err, json_option, opened_vault, vault_option
from kbtui.cli.kb import exit_if_never_indexed
from kbtui.cli.vault_out import format_option, read_tool, table_text

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
    warn(answer)
    click.echo(tasks_text(answer["results"], answer.get("markdown"), fmt), nl=False)


def warn(answer: dict[str, Any]) -> None:
    """On stderr: how a line with words no date was read from was read (the answer is the
    plugin's, the words are ignored as the plugin ignores them)."""
    from rich.text import Text  # Rich loads on first output

    for warning in answer.get("warnings", []):
        err().print("[yellow]warning[/]:", Text(warning), soft_wrap=True)


def tasks_text(found: list[dict[str, Any]], markdown: str | None, fmt: str) -> str:
    """A Tasks query's tasks: md as the plugin draws them, json as `kbtui tasks --format
    json` prints tasks (with `group`), paths one `path:line` a task, csv/tsv their fields."""
    if fmt == "md":
        return f"{markdown}\n"
    if fmt == "paths":
        return "".join(f"{r['file']}:{r['line']}\n" for r in found)
    records = []
    for r in found:
        record: dict[str, Any] = {f: str(r[f]) for f in _FIELDS}
        if "group" in r:
            record["group"] = r["group"]
        records.append(record)
    if fmt == "json":
        return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    header = [*_FIELDS, *(["group"] if any("group" in r for r in records) else [])]
    return table_text([header, *([_cell(r.get(h)) for h in header] for r in records)], fmt)


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
    args: dict[str, Any] = {"query": query, "markdown": fmt == "md"}
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


# -- a note's query blocks, and every dashboard of the vault --------------------------------
_LISTED = ("file", "block", "line", "language")
_CHECKED = (*_LISTED, "status", "rows", "error_type", "message")


@click.command("blocks")
@vault_option
@click.argument("note", required=False)
@click.option("--today", help="Tasks: the day relative dates count from (YYYY-MM-DD).")
@format_option(("text", "json", "csv", "tsv"), "text")
def blocks(vault: str | None, note: str | None, today: str | None, fmt: str) -> None:
    """A note's query blocks (```base, ```dataview, ```tasks, ```dataviewjs) with their
    lines; without NOTE, every dashboard of the vault (its .base files too), each run: ok
    with its rows, or the error that stops it. `kbtui block:run NOTE#N` runs one."""
    with opened_vault(vault, need_model=False) as kb:
        listed = kb.call("vault_query", {"file": note} if note else {"limit": 100_000})
        emit(listed, as_json=False)
        exit_if_never_indexed(listed, as_json=False)
        if "blocks" not in listed:
            raise click.ClickException(f"{note!r} is a base, not a note: kbtui base:views lists")
        found: list[dict[str, Any]] = listed["blocks"]
        fields = _LISTED if note else _CHECKED
        for entry in [] if note else found:
            _check(kb.call("vault_query", _run_args(entry, today)), entry)
    if fmt == "json":
        records = [{f: e.get(f) for f in fields} for e in found]
        click.echo(json.dumps(records, indent=2, ensure_ascii=False))
    elif fmt in ("csv", "tsv"):
        lines = [fields, *([_cell(e.get(f)) for f in fields] for e in found)]
        click.echo(table_text(lines, fmt), nl=False)
    else:
        for e in found:
            click.echo(_line(e, checked=not note))


def _line(entry: dict[str, Any], checked: bool) -> str:
    """`Note.md#N  line L  language`, and with `checked` how it ran."""
    e = entry
    where = f"{e['file']}#{e['block']}  line {e['line']}" if "block" in e else e["file"]
    if not checked:
        return f"{where}  {e['language']}"
    if e["status"] != "ok":
        return f"{where}  {e['language']}  error: {e['message'].splitlines()[0]}"
    warned = f"  warning: {e['message']}" if e["message"] else ""  # words the plugin drops
    return f"{where}  {e['language']}  ok ({e['rows']} row{'' if e['rows'] == 1 else 's'}){warned}"


def _run_args(entry: dict[str, Any], today: str | None) -> dict[str, Any]:
    """A listed dashboard run whole (every row counted); a .base file: its first view."""
    args: dict[str, Any] = {"file": entry["file"], "limit": 100_000}
    if "block" not in entry:
        return {**args, "language": "base"}
    return {**args, "block": entry["block"], **({"today": today} if today else {})}


def _check(answer: dict[str, Any], entry: dict[str, Any]) -> None:
    entry["status"] = "ok" if answer["ok"] else "error"
    shown = answer.get("total") if answer.get("truncated") else answer.get("count")
    entry["rows"] = shown if answer["ok"] else None
    entry["error_type"] = "" if answer["ok"] else answer["error_type"]
    entry["message"] = "; ".join(answer.get("warnings", [])) if answer["ok"] else answer["message"]


@click.command("block:run")
@vault_option
@click.argument("block")
@click.option("--today", help="Tasks: the day relative dates count from (YYYY-MM-DD).")
@click.option("--view", help="Base: the view's name (default: the first).")
@click.option("--limit", type=int, default=1000, show_default=True, help="Max rows.")
@format_option(("md", "json", "csv", "tsv", "paths"), "md")
@json_option
def block_run(
    vault: str | None,
    block: str,
    today: str | None,
    view: str | None,
    limit: int,
    fmt: str,
    as_json: bool,
) -> None:
    """Run the Nth query block of a note (BLOCK is NOTE#N, N from 1 as `kbtui blocks NOTE`
    numbers them), printed as `kbtui base:query`, `kbtui dataview` or `kbtui tasks:query`
    print its language."""
    note, _, number = block.rpartition("#")
    if not note or not number.isdigit() or int(number) < 1:
        raise click.BadParameter("give NOTE#N, e.g. Dashboard.md#2", param_hint="BLOCK")
    args = {"file": note, "block": int(number), "today": today, "view": view, "limit": limit}
    with opened_vault(vault, need_model=False) as kb:
        answer = kb.call("vault_query", {k: v for k, v in args.items() if v is not None})
    if not emit(answer, as_json):
        return
    if fmt == "md" and "markdown" not in answer and answer["language"] != "base":
        raise click.ClickException(f"{answer['message']}: --limit shows more")
    if answer["language"] == "base":
        click.echo(render_base(answer, fmt), nl=False)
    elif answer["language"] == "dataview":
        click.echo(render(answer, fmt), nl=False)
    else:
        warn(answer)
        click.echo(tasks_text(answer["rows"], answer.get("markdown"), fmt), nl=False)


DATAVIEW_COMMANDS = (dataview, blocks, block_run)
