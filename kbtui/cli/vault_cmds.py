"""Obsidian's vault commands without the app: tasks, the daily note, outline, tags,
properties and search with context (links: kbtui.cli.vault_links). Names, options and output
shapes follow the official Obsidian CLI."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import click

from kbtui.cli.common import ObsidianStyle, vault_option
from kbtui.cli.dashboards import tasks_query
from kbtui.cli.vault_links import LINK_COMMANDS, MAX_TASKS, task
from kbtui.cli.vault_out import call_tool, format_option, print_rows, total_option

_TASK_FIELDS = ("status", "text", "file", "line")
_TASK_EXTRA = ("due", "scheduled", "start", "done", "priority", "recurrence")


@click.command(cls=ObsidianStyle)
@vault_option
@click.option(
    "--todo",
    "which",
    flag_value="todo",
    help="Only tasks not done: status type TODO, IN_PROGRESS or ON_HOLD ([ ], [/], unknown).",
)
@click.option(
    "--done",
    "which",
    flag_value="done",
    help="Only tasks done: status type DONE, CANCELLED or NON_TASK ([x], [-]).",
)
@click.option("--status", "status", help="Only tasks with this status character.")
@click.option(
    "--status-type",
    help="Only these Tasks plugin status types (comma-separated, e.g. IN_PROGRESS).",
)
@click.option("--file", "--path", "note", help="Only the tasks of this note (path, name or id).")
@click.option(
    "--due-before",
    callback=lambda _c, _p, v: _date_option(v, "--due-before"),
    help="Only tasks due before this date (YYYY-MM-DD).",
)
@click.option("--daily", is_flag=True, help="Only the tasks of today's daily note.")
@click.option("--verbose", is_flag=True, help="Group by file, with line numbers and fields.")
@total_option
@format_option(("text", "json", "tsv", "csv"), "text")
def tasks(
    vault: str | None,
    which: str | None,
    status: str | None,
    status_type: str | None,
    note: str | None,
    due_before: str | None,
    daily: bool,
    verbose: bool,
    total: bool,
    fmt: str,
) -> None:
    """Tasks in the vault (`- [ ] ...`), by file and line. Statuses are the Tasks plugin's
    (its settings, else its defaults: [ ] TODO, [/] IN_PROGRESS, [x] DONE, [-] CANCELLED; any
    other character TODO)."""
    rows: list[dict[str, Any]] = []
    if daily:  # Obsidian's `tasks daily`: no daily note yet, no tasks
        today = call_tool(vault, "app_daily", {"action": "path", "date": None})
        note = today["path"] if today["exists"] else None
    if note or not daily:
        args = {
            "status": status or which or "all",
            "statusType": status_type,
            "note": note,
            "dueBefore": due_before,
        }
        answer = call_tool(vault, "tasks_list", {**args, "limit": MAX_TASKS})
        rows = answer["results"]
        for t in answer.get("notDue", ()):
            click.echo(
                f"{t['file']}:{t['line']}: due {t['due']} is not a date: not counted", err=True
            )
        for r in rows:  # the plugin reads such a date as invalid: never due, never in a range
            for key in r.get("invalidDates", ()):
                click.echo(f"{r['file']}:{r['line']}: {key} {r[key]} is not a date", err=True)
    if total:
        click.echo(len(rows))
    elif fmt != "text":
        print_rows(rows, _TASK_FIELDS + (_TASK_EXTRA if verbose else ()), fmt)
    elif verbose:
        last = None
        for r in rows:
            if r["file"] != last:
                click.echo(r["file"])
                last = r["file"]
            click.echo(f"  {r['line']}: {r['text'].strip()}")
    else:
        for r in rows:
            click.echo(r["text"].strip())


def _date_option(value: str | None, name: str) -> str | None:
    """A YYYY-MM-DD that is a real day (2021-13-45 is refused, not compared as text)."""
    if value is None:
        return None
    try:
        if len(value) == 10:
            dt.date.fromisoformat(value)
            return value
    except ValueError:
        pass
    raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)", param_hint=name)


def _daily(action: str) -> click.Command:
    @click.command(f"daily:{action}", cls=ObsidianStyle)
    @vault_option
    @click.option("--date", help="Another day (YYYY-MM-DD).")
    def command(vault: str | None, date: str | None) -> None:
        answer = call_tool(vault, "app_daily", {"action": action, "date": date})
        text = answer["path"] if action == "path" else answer["content"]
        click.echo(text, nl=bool(text) and not text.endswith("\n"))  # the prompt on its own line

    command.help = (
        "The daily note's path (whether or not it exists)."
        if action == "path"
        else ("The daily note's text.")
    )
    return command


def _daily_write(action: str) -> click.Command:
    # `kbtui daily:append "- [ ] Buy milk"`: text starting with a dash is text, not an option
    @click.command(
        f"daily:{action}", cls=ObsidianStyle, context_settings={"ignore_unknown_options": True}
    )
    @vault_option
    @click.argument("text", nargs=-1, required=True)
    @click.option("--inline", is_flag=True, help="Add no newline.")
    @click.option("--date", help="Another day (YYYY-MM-DD).")
    def command(vault: str | None, text: tuple[str, ...], inline: bool, date: str | None) -> None:
        content = " ".join(text).replace("\\n", "\n").replace("\\t", "\t")  # as Obsidian's
        args = {"action": action, "content": content, "inline": inline, "date": date}
        answer = call_tool(vault, "app_daily", args)
        click.echo(answer["message"])
        for warning in answer.get("warnings", []):
            click.echo(f"warning: {warning}", err=True)

    command.help = f"{action.capitalize()} TEXT to the daily note (made from its template if new)."
    return command


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@total_option
@format_option(("tree", "md", "json"), "tree")
def outline(vault: str | None, note: str, total: bool, fmt: str) -> None:
    """NOTE's headings."""
    answer = call_tool(vault, "app_outline", {"note": note})
    rows = answer["results"]
    if total:
        click.echo(len(rows))
    elif fmt == "json":
        print_rows(rows, ("heading", "level", "line"), "json")
    else:
        for r in rows:
            if fmt == "md":
                click.echo("#" * r["level"] + " " + r["heading"])
            else:
                click.echo("  " * (r["level"] - 1) + r["heading"])


@click.command(cls=ObsidianStyle)
@vault_option
@click.option("--file", "--path", "note", help="The tags of this note, in its order.")
@click.option("--counts", is_flag=True, help="Include how many notes carry each tag.")
@click.option("--sort", type=click.Choice(["name", "count"]), default="name", show_default=True)
@total_option
@format_option(("tsv", "json", "csv"), "tsv")
def tags(
    vault: str | None, note: str | None, counts: bool, sort: str, total: bool, fmt: str
) -> None:
    """Tags in the vault, each in the case it was first written (matching ignores case), or
    one note's tags as written (--counts: how often the note writes each)."""
    rows = call_tool(vault, "app_tags", {"note": note})["results"]
    if sort == "count":
        rows = sorted(rows, key=lambda r: (-r["count"], r["tag"].lower()))
    if total:
        click.echo(len(rows))
    else:
        print_rows(rows, ("tag", "count") if counts else ("tag",), fmt)


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("name")
@click.option("--total", is_flag=True, help="Print only how often the tag is written.")
@click.option("--verbose", is_flag=True, help="List the notes too, with how often each has it.")
def tag(vault: str | None, name: str, total: bool, verbose: bool) -> None:
    """How often tag NAME is written in the vault (nested tags included: Obsidian's
    occurrence count), and in which notes."""
    answer = call_tool(vault, "app_tags", {"name": name})
    if total:
        click.echo(answer["occurrences"])
        return
    click.echo(f"{answer['tag']}\t{answer['occurrences']}")
    for r in answer["results"] if verbose else ():
        click.echo(f"{r['file']}\t{r['count']}")


@click.command(cls=ObsidianStyle)
@vault_option
@click.option("--file", "--path", "note", help="The properties of this note.")
@click.option("--name", help="Print only how many notes have this property.")
@click.option("--counts", is_flag=True, help="Include how many notes have each.")
@click.option("--sort", type=click.Choice(["name", "count"]), default="name", show_default=True)
@total_option
@format_option(("yaml", "json", "tsv"), "yaml")
def properties(
    vault: str | None,
    note: str | None,
    name: str | None,
    counts: bool,
    sort: str,
    total: bool,
    fmt: str,
) -> None:
    """Properties in the vault (or of one note) with their types."""
    answer = call_tool(vault, "app_properties", {"note": note})
    rows = answer["results"]
    if name is not None:  # Obsidian's `properties name=<name>`: that property's count
        exact = [r for r in rows if r["name"] == name]
        found = exact or [r for r in rows if r["name"].lower() == name.lower()]
        click.echo(found[0]["count"] if found else 0)
        return
    if sort == "count":
        rows = sorted(rows, key=lambda r: (-r["count"], r["name"].lower()))
    if total:
        click.echo(len(rows))
        return
    fields = ["name", "type"] + (["count"] if counts else []) + (["value"] if note else [])
    if fmt == "yaml":
        for r in rows:
            shown = f"{r['type']}" + (f" ({r['count']})" if counts else "")
            if note:
                shown = json.dumps(r["value"], ensure_ascii=False)
            click.echo(f"{r['name']}: {shown}")
    else:
        print_rows(rows, fields, fmt)


@click.command("property:read", cls=ObsidianStyle)
@vault_option
@click.argument("name")
@click.argument("note")
def property_read(vault: str | None, name: str, note: str) -> None:
    """The value of property NAME of NOTE (a list: one item a line)."""
    value = call_tool(vault, "app_property", {"action": "read", "name": name, "note": note})[
        "value"
    ]
    for item in value if isinstance(value, list) else [value]:
        if item is None:
            click.echo("")
        elif isinstance(item, bool | dict | list):  # true/false and objects as JSON
            click.echo(json.dumps(item, ensure_ascii=False))
        else:  # each item ends its line, a text with line breaks included
            text = str(item)
            click.echo(text, nl=not text.endswith("\n"))


@click.command("property:set", cls=ObsidianStyle)
@vault_option
@click.argument("name")
@click.argument("note")
@click.argument("value")
@click.option(
    "--type",
    "kind",
    type=click.Choice(["text", "list", "number", "checkbox", "date", "datetime"]),
    help="Property type (default: .obsidian/types.json, else the type of the value it "
    "holds, else a number, true/false or text as VALUE reads).",
)
def property_set(vault: str | None, name: str, note: str, value: str, kind: str | None) -> None:
    """Set property NAME of NOTE to VALUE; the rest of the file stays byte for byte."""
    args = {"action": "set", "name": name, "note": note, "value": value, "type": kind}
    click.echo(call_tool(vault, "app_property", args)["message"])


@click.command("property:remove", cls=ObsidianStyle)
@vault_option
@click.argument("name")
@click.argument("note")
def property_remove(vault: str | None, name: str, note: str) -> None:
    """Remove property NAME from NOTE; the rest of the file stays byte for byte."""
    args = {"action": "remove", "name": name, "note": note}
    click.echo(call_tool(vault, "app_property", args)["message"])


@click.command("search:context", cls=ObsidianStyle)
@vault_option
@click.argument("query")
@click.option("--folder", "--path", "folder", help="Only notes in this folder.")
@click.option("--limit", type=int, default=1000, help="Max files.")
@click.option("--case", is_flag=True, help="Case-sensitive.")
@format_option(("text", "json"), "text")
def search_context(
    vault: str | None, query: str, folder: str | None, limit: int, case: bool, fmt: str
) -> None:
    """Lines holding QUERY, grep-style: `path:line: text`."""
    args = {"query": query, "folder": folder, "limit": limit, "case": case}
    rows = call_tool(vault, "app_search_context", args)["results"]
    if fmt == "json":
        print_rows(rows, ("file", "line", "text"), "json")
    for r in rows if fmt == "text" else ():
        click.echo(f"{r['file']}:{r['line']}: {r['text']}")


VAULT_COMMANDS = (
    *LINK_COMMANDS,
    tasks,
    task,
    tasks_query,
    _daily("path"),
    _daily("read"),
    _daily_write("append"),
    _daily_write("prepend"),
    outline,
    tags,
    tag,
    properties,
    property_read,
    property_set,
    property_remove,
    search_context,
)
