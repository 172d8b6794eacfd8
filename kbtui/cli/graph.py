"""CLI commands for the graph and for any tool: `call` runs a tool with JSON arguments and
prints its envelope; `entity`, `neighbors`, `path`, `links suggest` and `mv` are the short
forms. Entities may be given by id (type:name) or by name (resolved with kg_find_entity)."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any

import click

from kbtui.cli.common import emit, err, escape, json_option, opened_vault, out, vault_option
from kbtui.cli.vault_links import links_list
from kbtui.cli.vault_out import NoteOrCommand

if TYPE_CHECKING:
    from kbtui.runtime.shared import SharedVault

ID_RE = re.compile(r"^[a-z_]+:[a-z0-9_]+$")
# Tools that embed text when this process opens the index itself.
NEEDS_MODEL = frozenset(
    {
        "kb_search",
        "knowledge_query",
        "knowledge_import",
        "get_chunk",
        "kg_get_context",
        "kg_get_phase_context",
        "kg_extract_from_text",
        "kg_extract_from_memory",
    }
)


@click.command()
@vault_option
@click.argument("tool")
@click.argument("arguments", required=False)
def call(vault: str | None, tool: str, arguments: str | None) -> None:
    """Run any tool: ARGUMENTS is a JSON object (read from stdin when absent or `-`); prints
    the tool's envelope as JSON. Exit status 1 when the call failed."""
    if arguments is None or arguments == "-":
        arguments = sys.stdin.read() if not sys.stdin.isatty() else "{}"
    try:
        args = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        raise click.ClickException(f"the arguments are not JSON: {exc}") from exc
    if not isinstance(args, dict):
        raise click.ClickException("the arguments must be a JSON object ({...})")
    with opened_vault(vault, need_model=tool in NEEDS_MODEL) as kb:
        response = kb.call(tool, args)
    emit(response, as_json=True)


def resolve(kb: SharedVault, given: str) -> str:
    """An entity id from an id or a name (exact name or alias first, then a unique match)."""
    if ID_RE.match(given):
        return given
    for exact in (True, False):
        found = kb.call("kg_find_entity", {"name": given, "exact": exact, "limit": 5})
        ids = [str(e["id"]) for e in found.get("entities") or []]
        if len(ids) == 1:
            return ids[0]
        if len(ids) > 1:
            raise click.ClickException(f"{given!r} names several entities: {', '.join(ids)}")
    raise click.ClickException(f"no entity named {given!r}; try `kbtui entity {given}`")


@click.command()
@vault_option
@click.argument("name")
@click.option("--exact", is_flag=True, help="Only exact name or alias matches.")
@click.option("--limit", default=10, show_default=True, type=int)
@json_option
def entity(vault: str | None, name: str, exact: bool, limit: int, as_json: bool) -> None:
    """kg_find_entity: entities by name or alias."""
    from rich.table import Table  # Rich loads when a table is drawn: --version needs none
    from rich.text import Text

    with opened_vault(vault, need_model=False) as kb:
        response = kb.call("kg_find_entity", {"name": name, "exact": exact, "limit": limit})
    if not emit(response, as_json):
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("id", "type", "name", "aliases", "q"):
        table.add_column(col, overflow="fold")
    for e in response["entities"]:
        table.add_row(
            Text(e["id"]),
            e["type"],
            Text(e["name"]),
            Text(", ".join(e["aliases"])),
            f"{e['qValue']:.2f}",
        )
    out().print(table if response["entities"] else "No entity found.")
    if response["count"] == 1 and response["entities"][0].get("description"):
        out().print(Text(response["entities"][0]["description"]))


@click.command()
@vault_option
@click.argument("entity_ref", metavar="ID")
@click.option("--direction", type=click.Choice(["both", "incoming", "outgoing"]), default="both")
@click.option("--type", "rel_type", help="Only this relationship type (WORKS_ON, ...).")
@click.option("--limit", default=20, show_default=True, type=int)
@json_option
def neighbors(
    vault: str | None,
    entity_ref: str,
    direction: str,
    rel_type: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """kg_get_neighbors: the entities one relationship away."""
    from rich.table import Table
    from rich.text import Text

    with opened_vault(vault, need_model=False) as kb:
        entity_id = resolve(kb, entity_ref)
        args: dict[str, Any] = {"entityId": entity_id, "direction": direction, "limit": limit}
        if rel_type:
            args["relationshipType"] = rel_type
        response = kb.call("kg_get_neighbors", args)
    if not emit(response, as_json):
        return
    names = {e["id"]: e["name"] for e in response["entities"]}
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("", "relationship", "entity", "name"):
        table.add_column(col, overflow="fold")
    for r in response["relationships"]:
        out_going = r["fromEntityId"] == entity_id
        other = r["toEntityId"] if out_going else r["fromEntityId"]
        arrow = "->" if out_going else "<-"
        label = r["type"] + (f" ({r['label']})" if r.get("label") else "")
        table.add_row(arrow, Text(label), Text(other), Text(names.get(other, "")))
    out().print(f"[bold]{escape(entity_id)}[/]: {response['relationshipCount']} relationship(s)")
    out().print(table)


@click.command()
@vault_option
@click.argument("start", metavar="FROM")
@click.argument("goal", metavar="TO")
@click.option("--max-hops", default=5, show_default=True, type=int)
@json_option
def path(vault: str | None, start: str, goal: str, max_hops: int, as_json: bool) -> None:
    """kg_find_path: the shortest chain of relationships between two entities."""
    from rich.text import Text

    with opened_vault(vault, need_model=False) as kb:
        args = {"fromEntityId": resolve(kb, start), "toEntityId": resolve(kb, goal)}
        response = kb.call("kg_find_path", {**args, "maxHops": max_hops})
    if not emit(response, as_json):
        return
    if not response["found"]:
        out().print(Text(response["message"]))
        return
    ids = response["path"]["entityIds"]
    line = Text(ids[0], style="bold")
    for here, rel in zip(ids[1:], response["relationships"], strict=False):
        forward = rel["toEntityId"] == here
        line.append(f" -[{rel['type']}]-> " if forward else f" <-[{rel['type']}]- ")
        line.append(here, style="bold")
    out().print(line)


@click.group(cls=NoteOrCommand)
def links() -> None:
    """Links: `kbtui links NOTE` lists what NOTE links to; `links suggest`: unlinked mentions."""


@links.command("suggest")
@vault_option
@click.argument("entity_ref", metavar="[ENTITY]", required=False)
@click.option("--limit", default=20, show_default=True, type=int, help="1-100 suggestions.")
@click.option("--offset", default=0, show_default=True, type=int, help="Skip this many.")
@json_option
def suggest(
    vault: str | None, entity_ref: str | None, limit: int, offset: int, as_json: bool
) -> None:
    """kg_suggest_links: where notes name ENTITY (or any entity) without linking it; the
    total is in the last line, --offset pages through it."""
    from rich.text import Text

    with opened_vault(vault, need_model=False) as kb:
        args: dict[str, Any] = {"limit": limit, "offset": offset}
        if entity_ref:
            args["entityId"] = resolve(kb, entity_ref)
        response = kb.call("kg_suggest_links", args)
    if not emit(response, as_json):
        return
    for s in response["suggestions"]:
        where = Text(f"{s['filePath']}:{s['line']}", style="cyan")
        out().print(where, Text(f"{s['text']!r} -> {s['targetEntityId']}", style="bold"))
        out().print(Text("    " + s["context"]), soft_wrap=True)
    out().print(Text(response["message"], style="dim"))


@click.command()
@vault_option
@click.argument("entity_ref", metavar="OLD_ID")
@click.argument("new_name")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--force", is_flag=True, help="Take a name another note answers to (see --dry-run first)."
)
@json_option
def mv(
    vault: str | None, entity_ref: str, new_name: str, dry_run: bool, force: bool, as_json: bool
) -> None:
    """kg_rename_entity: rename or move a note (NEW_NAME: file name without .md, or
    folder/name); every link to it follows. All files change or none. A name another note
    already answers to is refused unless --force."""
    from rich.text import Text

    with opened_vault(vault, need_model=False, model_if_installed=True) as kb:
        args = {
            "entityId": resolve(kb, entity_ref),
            "newName": new_name,
            "dryRun": dry_run,
            "force": force,
        }
        response = kb.call("kg_rename_entity", args)
    if not emit(response, as_json):
        return
    for change in response["filesChanged"]:
        if not change["linksRewritten"] and not change.get("lines"):
            continue  # the moved note, when nothing in it changes
        out().print(Text(f"  {change['path']}: {change['linksRewritten']} link(s)"))
        for line in change.get("lines", []):
            out().print(Text(f"    {line['line']}- {line['before']}", style="red"), soft_wrap=True)
            out().print(Text(f"    {line['line']}+ {line['after']}", style="green"), soft_wrap=True)
    if response["retargeted"]:
        out().print(Text("  links that will reach another note:", style="bold yellow"))
    for link in response["retargeted"]:
        where = f"  {link['path']}:{link['line']}: {link['text']}"
        out().print(
            Text(f"{where}  ({link['from']} -> {link['to']})", style="yellow"), soft_wrap=True
        )
    (err if dry_run else out)().print(Text(response["message"]))


links.add_command(links_list)
GRAPH_COMMANDS = (call, entity, neighbors, path, links, mv)
