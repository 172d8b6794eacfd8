"""`kbtui bases`, `kbtui base:views FILE`, `kbtui base:query FILE` (the Obsidian CLI's names):
thin wrappers over the base_query tool."""

from __future__ import annotations

import json
from typing import Any

import click

from kbtui.cli.common import ObsidianStyle, emit, json_option, opened_vault, out, vault_option
from kbtui.cli.kb import exit_if_never_indexed
from kbtui.cli.vault_out import format_option, table_text

FORMATS = ("table", "json", "csv", "tsv", "md", "paths")


def _call(vault: str | None, args: dict[str, Any]) -> dict[str, Any]:
    with opened_vault(vault, need_model=False) as kb:
        return kb.call("base_query", args)


@click.command("bases", cls=ObsidianStyle)
@vault_option
@json_option
def bases(vault: str | None, as_json: bool) -> None:
    """Every base of the vault (.base files and notes with ```base blocks) and its views."""
    response = _call(vault, {})
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if not shown:
        return
    if not response["bases"]:  # stdout stays empty, as a list of none; stderr says why
        click.echo("no bases in this vault (.base files or ```base blocks in notes)", err=True)
    for base in response["bases"]:
        views = ", ".join(
            f"{v['name']} ({v['type']})" + (f" [error: {v['error']}]" if v.get("error") else "")
            for v in base["views"]
        )
        name = base.get("file") or base["path"]  # a note's Nth ```base block: Note.md#N
        if base.get("block"):
            name += f" (```base at line {base['line']})"
        line = f"{name}: {views}" if views else name
        if base.get("error"):
            line += f"  [error: {base['error']}]"
        click.echo(line)


@click.command("base:views", cls=ObsidianStyle, aliases={"path": "file"})
@vault_option
@click.argument("file")
@json_option
def base_views(vault: str | None, file: str, as_json: bool) -> None:
    """The views of one base, in order (the first is the default)."""
    response = _call(vault, {})
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if not shown:
        return
    wanted = file.lower().removesuffix(".base")
    for base in response["bases"]:
        path = base["path"].lower()
        names = {path, path.removesuffix(".base"), path.rsplit("/", 1)[-1].removesuffix(".base")}
        if base.get("block"):  # a note's ```base block: Note.md#N; the note is its first
            held = {path, path.removesuffix(".md")}
            names = {f"{n}#{base['block']}" for n in held} | (held if base["block"] == 1 else set())
        if wanted in names:
            for view in base["views"]:
                note = f"  [error: {view['error']}]" if view.get("error") else ""
                click.echo(f"{view['name']}\t{view['type']}{note}")
            if base.get("error"):
                raise click.ClickException(base["error"])
            return
    raise click.ClickException(f"no base {file!r} in the vault (kbtui bases lists them)")


@click.command("base:query", cls=ObsidianStyle, aliases={"path": "file"})
@vault_option
@click.argument("file")
@click.option("--view", help="The view's name (default: the first).")
@format_option(
    FORMATS,
    "table",
    "table for reading (Obsidian's CLI defaults to json: scripts say --format json).",
)
@click.option("--this", "this", help="The note `this` is (as when the base is embedded in it).")
@click.option("--limit", type=int, default=1000, show_default=True)
@json_option
def base_query(
    vault: str | None,
    file: str,
    view: str | None,
    fmt: str,
    this: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Run a view of a base and print its rows: a table unless --format (or Obsidian's
    `format=`) says json, csv, tsv, md or paths."""
    args: dict[str, Any] = {"file": file, "limit": limit}
    if view:
        args["view"] = view
    if this:
        args["this"] = this
    response = _call(vault, args)
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if not shown:
        return
    click.echo(render(response, fmt), nl=False)


def render(response: dict[str, Any], fmt: str) -> str:
    columns = response["columns"]
    rows = response["rows"]
    if fmt == "paths":
        return "".join(r["path"] + "\n" for r in rows)
    extras = _extras(response)
    if fmt == "json":
        keyed = [{"path": r["path"], **r["values"], **{k: r.get(k) for k in extras}} for r in rows]
        return json.dumps(keyed, indent=2, ensure_ascii=False) + "\n"
    header = [c["name"] for c in columns] + [MAP_HEADERS[k] for k in extras]
    cells = [
        [_cell(r["values"].get(c["id"])) for c in columns] + [_cell(r.get(k)) for k in extras]
        for r in rows
    ]
    sections = _sections(response)
    if fmt in ("csv", "tsv"):
        grouped = response.get("groupBy")
        if not grouped:
            return table_text([header, *cells], fmt)
        name = grouped["name"]  # a grouped view: the group's value first, group by group
        first = [f"{name} (group)" if name in header else name, *header]
        return table_text([first, *([g["label"], *cells[i]] for g, idx in sections if g
                                    for i in idx)], fmt)  # fmt: skip
    if fmt == "md":
        lines: list[str] = []
        for group, idx in sections:
            if group is not None:  # a heading per group, as Obsidian draws one above its rows
                lines += [*([""] if lines else []), f"### {_md(group['label'] or NO_VALUE)}", ""]
            lines += [
                "| " + " | ".join(_md(h) for h in header) + " |",
                "|" + " --- |" * len(header),
            ]
            lines += ["| " + " | ".join(_md(c) for c in cells[i]) + " |" for i in idx]
        return "\n".join(lines) + "\n"
    return _table(response, header, cells, sections)


# Obsidian's name for the group of rows without a value (release notes 1.10.1: "None").
NO_VALUE = "None"


def group_label(group: dict[str, Any]) -> str:
    return f"{group['label'] or NO_VALUE} ({len(group['rows'])})"


def _sections(response: dict[str, Any]) -> list[tuple[dict[str, Any] | None, list[int]]]:
    """(group or None, row indices): a grouped view's groups in order, else all rows."""
    groups = response.get("groups") or []
    if not groups:
        return [(None, list(range(len(response["rows"]))))]
    return [(g, list(g["rows"])) for g in groups]


def _md(text: str) -> str:
    return text.replace("|", "\\|")


# A map view's rows carry where each note sits (Obsidian's Maps plugin: the view's
# `coordinates` property as [latitude, longitude]) and the marker's icon and colour when the
# view sets them: printed after the view's own columns.
MAP_HEADERS = {
    "coordinates": "Coordinates",
    "markerIcon": "Marker icon",
    "markerColor": "Marker color",
}


def _extras(response: dict[str, Any]) -> list[str]:
    if response.get("type") != "map":
        return []
    return [k for k in MAP_HEADERS if k == "coordinates" or any(k in r for r in response["rows"])]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _table(
    response: dict[str, Any],
    header: list[str],
    cells: list[list[str]],
    sections: list[tuple[dict[str, Any] | None, list[int]]],
) -> str:
    """A Rich table. A grouped view's groups as Obsidian draws them: a line with the group's
    value and rows count, its rows, its summaries under their columns; then the view's."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{response['base']} · {response['view']} ({response['type']})")
    for name in header:
        table.add_column(name, overflow="fold")
    at = {c["id"]: i for i, c in enumerate(response["columns"])}
    for group, idx in sections:
        if group is not None:
            table.add_row(Text(f"▸ {group_label(group)}", style="bold"), *[""] * (len(header) - 1))
        for n, i in enumerate(idx):
            table.add_row(*cells[i], end_section=group is not None and n == len(idx) - 1)
        found = (group or {}).get("summaries") or {}
        if found:
            under = [""] * len(header)
            for pid, summary in found.items():
                if pid in at:
                    under[at[pid]] = f"{summary['summary']}: {_cell(summary['value'])}"
            table.add_row(*under, style="dim", end_section=True)
    with out().capture() as captured:
        out().print(table)
        shown = len(cells)
        total = response["total"]
        out().print(
            f"[dim]{shown} of {total} rows[/]" if shown < total else f"[dim]{shown} rows[/]"
        )
        named = {c["id"]: c["name"] for c in response["columns"]}
        for pid, summary in response["summaries"].items():
            out().print(f"[dim]{summary['summary']} of {escape(named.get(pid, pid))}: "
                        f"{escape(_cell(summary['value']))}[/]")  # fmt: skip
    return captured.get()


BASE_COMMANDS = (bases, base_views, base_query)
