"""Printing Obsidian-style answers: `--format json|tsv|csv` as the official CLI prints them
(JSON values as strings, one record a line), plain text with no Rich markup so scripts can
read it, and the one way a vault command calls its tool."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from kbtui.cli.common import emit, opened_vault, settings_for


def read_tool(vault: str | None, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A query that reads only the index (kbtui.runtime.reader): run on the index opened
    alone when no other kbtui process has the vault, else through the shared path."""
    from kbtui.runtime.reader import read_once

    answer = read_once(settings_for(vault), tool, args)
    if answer is None:
        with opened_vault(vault, need_model=False) as kb:
            answer = kb.call(tool, args)
    return answer


def call_tool(vault: str | None, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool's answer; a failure is printed and ends the command with status 1."""
    with opened_vault(vault, need_model=False) as kb:
        response = kb.call(tool, {k: v for k, v in args.items() if v is not None})
    emit(response, as_json=False)
    return response


F = TypeVar("F", bound=Callable[..., Any])


def format_option(
    choices: Sequence[str], default: str, help: str = "Output format."
) -> Callable[[F], F]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
    )


total_option = click.option("--total", is_flag=True, help="Print only how many there are.")


def print_rows(rows: list[dict[str, Any]], fields: Sequence[str], fmt: str) -> None:
    """Records as json (string values), or csv or tsv, each with a header line of the field
    names (as `kbtui base:query` prints them)."""
    records = [{f: _text(r.get(f)) for f in fields} for r in rows]
    if fmt == "json":
        click.echo(json.dumps(records, indent=2, ensure_ascii=False))
        return
    lines = [list(fields), *([r[f] for f in fields] for r in records)]
    click.echo(table_text(lines, fmt), nl=False)


def table_text(lines: Sequence[Sequence[str]], fmt: str) -> str:
    """Lines of cells (the header first) as csv (quoted where needed) or tsv: cells joined by
    tabs, a tab or line break inside a cell written as a space (no quoting: `cut -f` and
    `awk -F'\t'` read it)."""
    if fmt == "tsv":
        clean = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
        return "".join("\t".join(c.translate(clean) for c in line) + "\n" for line in lines)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(lines)
    return buf.getvalue()


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


class NoteOrCommand(click.Group):
    """A group whose first argument may be a note instead of a subcommand: `kbtui links NOTE`
    lists the note's links, `kbtui links suggest` stays the suggestions."""

    default_command = "list"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not any(a in self.commands or a in ("--help", "-h") for a in args):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Both forms: `links [OPTIONS] NOTE`, then `links COMMAND [ARGS]...`."""
        default = self.commands[self.default_command]
        formatter.write_usage(ctx.command_path, " ".join(default.collect_usage_pieces(ctx)))
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="   or: ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The options of the NOTE form (its command is hidden), then the commands."""
        default = self.commands[self.default_command]
        options = [p for p in default.get_params(ctx) if isinstance(p, click.Option)]
        rows = [r for p in options if (r := p.get_help_record(ctx))]
        with formatter.section("Options"):
            formatter.write_dl(rows)
        self.format_commands(ctx, formatter)
