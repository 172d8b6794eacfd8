"""`kbtui backlinks`, `links NOTE`, `unresolved`, `orphans`, `deadends`: Obsidian's link
commands (vault_links), with its options and output shapes; and `kbtui task`, one task named
by its note and line as Obsidian's CLI names it (a line of a note, as a link names one)."""

from __future__ import annotations

import click

from kbtui.cli.common import ObsidianStyle, vault_option
from kbtui.cli.vault_out import call_tool, format_option, print_rows, total_option

_FORMATS = ("tsv", "json", "csv")


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.option("--counts", is_flag=True, help="Include link counts.")
@total_option
@format_option(_FORMATS, "tsv")
def backlinks(vault: str | None, note: str, counts: bool, total: bool, fmt: str) -> None:
    """Files that link to NOTE (a path or a name), by path."""
    answer = call_tool(vault, "vault_links", {"kind": "backlinks", "note": note})
    if total:
        click.echo(answer["count"])
        return
    fields = ("file", "count") if counts or fmt == "json" else ("file",)
    print_rows(answer["results"], fields, fmt)


@click.command("list", cls=ObsidianStyle, hidden=True)
@vault_option
@click.argument("note")
@total_option
def links_list(vault: str | None, note: str, total: bool) -> None:
    """The files NOTE links to (and the targets of its unresolved links)."""
    answer = call_tool(vault, "vault_links", {"kind": "links", "note": note})
    if total:
        click.echo(answer["count"])
        return
    for r in answer["results"]:
        click.echo(r.get("file") or r["link"])


@click.command(cls=ObsidianStyle)
@vault_option
@total_option
@click.option("--counts", is_flag=True, help="Include link counts.")
@click.option("--verbose", is_flag=True, help="Include the source files.")
@format_option(_FORMATS, "tsv")
def unresolved(vault: str | None, total: bool, counts: bool, verbose: bool, fmt: str) -> None:
    """Links that reach no file, by link text."""
    answer = call_tool(vault, "vault_links", {"kind": "unresolved"})
    if total:
        click.echo(answer["count"])
        return
    fields = ["link"] + (["count"] if counts else []) + (["sources"] if verbose else [])
    print_rows(answer["results"], fields, fmt)


def _paths(kind: str, doc: str) -> click.Command:
    @click.command(kind, cls=ObsidianStyle, help=doc)
    @vault_option
    @total_option
    def command(vault: str | None, total: bool) -> None:
        answer = call_tool(vault, "vault_links", {"kind": kind})
        if total:
            click.echo(answer["count"])
            return
        for r in answer["results"]:
            click.echo(r["file"])

    return command


orphans = _paths("orphans", "Notes no other file links to, one path a line.")
deadends = _paths("deadends", "Notes that link to no other file, one path a line.")
LINK_COMMANDS = (backlinks, unresolved, orphans, deadends)


MAX_TASKS = 1_000_000


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
