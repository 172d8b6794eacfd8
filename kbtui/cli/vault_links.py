"""`kbtui backlinks`, `links NOTE`, `unresolved`, `orphans`, `deadends`: Obsidian's link
commands (vault_links), with its options and output shapes."""

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
