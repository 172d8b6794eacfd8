"""Writing notes from the command line, with the Obsidian CLI's names (`read`, `create`,
`append`, `prepend`, `delete`, `history`, `history:read`, `history:restore`, `diff`) and
kbtui's `edit` and `replace`. Each is a call of a note tool (kbtui.tools.notes) made as the
`cli` writer; every write takes `--dry-run` (the unified diff, nothing written),
`--expected-hash` (refused as stale if the note changed) and `--json`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from kbtui.cli.common import ObsidianStyle, emit, err, opened_vault, vault_option

F = TypeVar("F", bound=Callable[..., Any])
WRITE_KEYS = ("path", "hash", "previous_hash", "added", "removed")
MORE_KEYS = ("created", "restored", "trash", "unresolved", "dry_run", "diff")


def write_options(command: F) -> F:
    for option in (
        click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON."),
        click.option(
            "--expected-hash", help="The hash you read (`kbtui read --json`); refused if changed."
        ),
        click.option("--dry-run", is_flag=True, help="Print the unified diff; write nothing."),
    ):
        command = option(command)
    return command


def call(vault: str | None, tool: str, args: dict[str, Any], as_json: bool) -> dict[str, Any]:
    """The tool's answer, called as the `cli` writer; a failure is printed (one line, or the
    envelope with --json) and ends the command with status 1."""
    from kbtui.tools.write.origin import Origin, acting_as

    with acting_as(Origin("cli")), opened_vault(vault, need_model=False) as kb:
        response = kb.call(tool, {k: v for k, v in args.items() if v is not None})
    if not response.get("ok"):
        emit(response, as_json)
    return response


def wrote(vault: str | None, tool: str, args: dict[str, Any], as_json: bool) -> dict[str, Any]:
    """Run a write and print what it did: the JSON answer, the diff of a dry run, or a line."""
    answer = call(vault, tool, args, as_json)
    if as_json:
        keys = WRITE_KEYS + tuple(k for k in MORE_KEYS if k in answer)
        click.echo(json.dumps({k: answer.get(k) for k in keys}, indent=2, ensure_ascii=False))
    elif answer.get("dry_run"):
        click.echo(answer["diff"], nl=False)
        err().print(answer["message"], markup=False, highlight=False)
    else:
        click.echo(answer["message"])
    return answer


def text_of(raw: str) -> str:
    """TEXT as given (`-`: read from stdin); on the command line `\\n` and `\\t` are a newline
    and a tab, as the Obsidian CLI reads them."""
    if raw == "-":
        return sys.stdin.read()
    return raw.replace("\\n", "\n").replace("\\t", "\t")


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.option("--json", "as_json", is_flag=True, help="Print {path, hash, text} as JSON.")
def read(vault: str | None, note: str, as_json: bool) -> None:
    """NOTE's raw text (a path, a name as a link reaches it, or an entity id)."""
    answer = call(vault, "note_read", {"note": note}, as_json)
    if as_json:
        keys = ("path", "hash", "text", "encoding", "newline")
        click.echo(json.dumps({k: answer[k] for k in keys}, indent=2, ensure_ascii=False))
    else:
        click.echo(answer["text"], nl=False)


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("name", required=False)
@click.option("--path", "path", help="The exact vault path (a name alone: the vault's root).")
@click.option("--content", help="The note's text (- reads stdin).")
@click.option("--template", help="A template of the Templates plugin's folder.")
@click.option("--overwrite", is_flag=True, help="Replace the note there (needs --expected-hash).")
@write_options
def create(
    vault: str | None,
    name: str | None,
    path: str | None,
    content: str | None,
    template: str | None,
    overwrite: bool,
    dry_run: bool,
    expected_hash: str | None,
    as_json: bool,
) -> None:
    """A new note NAME (.md added) in the vault's folder for new notes, or at --path.

    Never replaces a file (unless --overwrite with the hash read) and refuses a name another
    note already answers to."""
    if not name and not path:
        raise click.UsageError("give NAME or --path")
    target = path if path else str(name)
    if path and "/" not in path.strip("/"):
        target = "/" + path.strip("/")  # an exact path: the root, not the new-note folder
    args = {
        "path": target,
        "content": text_of(content) if content is not None else "",
        "mode": "overwrite" if overwrite else "create",
        "template": template,
        "expected_hash": expected_hash,
        "dry_run": dry_run,
    }
    wrote(vault, "note_write", args, as_json)


def _add(mode: str) -> click.Command:
    # `kbtui append todo "- [ ] milk"`: text starting with a dash is text, not an option
    @click.command(mode, cls=ObsidianStyle, context_settings={"ignore_unknown_options": True})
    @vault_option
    @click.argument("note")
    @click.argument("text", nargs=-1, required=True)
    @click.option("--inline", is_flag=True, help="Add no line break.")
    @write_options
    def command(
        vault: str | None,
        note: str,
        text: tuple[str, ...],
        inline: bool,
        dry_run: bool,
        expected_hash: str | None,
        as_json: bool,
    ) -> None:
        content = text_of(" ".join(text))
        args = {"path": note, "content": content, "mode": mode, "inline": inline}
        wrote(
            vault,
            "note_write",
            {**args, "dry_run": dry_run, "expected_hash": expected_hash},
            as_json,
        )

    command.help = (
        "Add TEXT at the end of NOTE (- reads stdin)."
        if mode == "append"
        else "Add TEXT at the start of NOTE, after its properties (- reads stdin)."
    )
    return command


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@write_options
def delete(
    vault: str | None, note: str, dry_run: bool, expected_hash: str | None, as_json: bool
) -> None:
    """Delete NOTE: to the vault's trash as .obsidian/app.json says (.trash/ by default);
    its versions stay in the history. Lists the links it leaves unresolved."""
    answer = wrote(
        vault, "note_delete", {"note": note, "dry_run": dry_run, "expected_hash": expected_hash},
        as_json,
    )  # fmt: skip
    if not as_json:
        for link in answer["unresolved"]:
            click.echo(f"  {link['file']}: [[{link['link']}]] x{link['count']}")


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
def history(vault: str | None, note: str, as_json: bool) -> None:
    """NOTE's versions, newest first (a deleted note's too, by its path). Numbers count from
    1, the oldest, and never change."""
    answer = call(vault, "note_history", {"note": note, "action": "list"}, as_json)
    if as_json:
        click.echo(json.dumps(answer["versions"], indent=2, ensure_ascii=False))
        return
    for v in answer["versions"]:
        digest = (v["hash"] or "(deleted)")[:12]
        changes = f"+{v['added']} -{v['removed']}"
        click.echo(
            f"{v['version']}\t{v['time']}\t{v['source']}\t{digest}\t{changes}\t{v['operation']}"
        )


@click.command("history:read", cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.argument("version", type=click.IntRange(min=1))
def history_read(vault: str | None, note: str, version: int) -> None:
    """The text of VERSION of NOTE."""
    args = {"note": note, "action": "read", "version": version}
    click.echo(call(vault, "note_history", args, False)["text"], nl=False)


@click.command("history:restore", cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.argument("version", type=click.IntRange(min=1))
@write_options
def history_restore(
    vault: str | None,
    note: str,
    version: int,
    dry_run: bool,
    expected_hash: str | None,
    as_json: bool,
) -> None:
    """Make NOTE hold VERSION again (a write itself, so it can be undone; a deleted note
    comes back at its path)."""
    args = {"note": note, "action": "restore", "version": version, "dry_run": dry_run}
    wrote(vault, "note_history", {**args, "expected_hash": expected_hash}, as_json)


@click.command(cls=ObsidianStyle)
@vault_option
@click.argument("note")
@click.option("--from", "start", type=click.IntRange(min=1), help="From this version.")
@click.option("--to", "end", type=click.IntRange(min=1), help="To this version (default: now).")
def diff(vault: str | None, note: str, start: int | None, end: int | None) -> None:
    """The unified diff of NOTE between two versions, or a version and the file (default:
    from the last version before the file's bytes)."""
    args = {"note": note, "action": "diff", "from": start, "to": end}
    answer = call(vault, "note_history", args, False)
    click.echo(answer["diff"], nl=False)
    if not answer["diff"]:
        err().print(answer["message"], markup=False, highlight=False)


_PLACES = ("append", "prepend", "replace", "before", "after")


@click.command()
@vault_option
@click.argument("note")
@click.option("--section", help='A heading or a heading path: "Project > Tasks".')
@click.option("--block", help="A block id: ^id.")
@click.option("--append", help="TEXT at the end of the section or block (- reads stdin).")
@click.option("--prepend", help="TEXT at its start (under the heading).")
@click.option("--replace", help="TEXT instead of its body (the heading stays).")
@click.option("--before", help="TEXT before it.")
@click.option("--after", help="TEXT after it.")
@click.option("--create-section", is_flag=True, help="Add the last heading when it is missing.")
@write_options
def edit(
    vault: str | None,
    note: str,
    section: str | None,
    block: str | None,
    create_section: bool,
    dry_run: bool,
    expected_hash: str | None,
    as_json: bool,
    **places: str | None,
) -> None:
    """Put text at a section or a block of NOTE. A heading or block not found, or found more
    than once, is refused with the candidates and their lines."""
    given = [(p, t) for p, t in places.items() if t is not None]
    if len(given) != 1:
        raise click.UsageError(f"give one of {', '.join('--' + p for p in _PLACES)}")
    if (section is None) == (block is None):
        raise click.UsageError("give --section or --block")
    position, text = given[0]
    one = {"section": section, "block": block, "position": position, "text": text_of(text)}
    args = {
        "note": note,
        "edits": [{k: v for k, v in one.items() if v is not None}],
        "create_section": create_section,
        "dry_run": dry_run,
        "expected_hash": expected_hash,
    }
    wrote(vault, "note_edit", args, as_json)


@click.command(context_settings={"ignore_unknown_options": True})  # OLD may start with "-"
@vault_option
@click.argument("note")
@click.argument("old")
@click.argument("new")
@click.option("--count", type=click.IntRange(min=1), help="Occurrences expected (default 1).")
@click.option("--all", "every", is_flag=True, help="Replace every occurrence.")
@write_options
def replace(
    vault: str | None,
    note: str,
    old: str,
    new: str,
    count: int | None,
    every: bool,
    dry_run: bool,
    expected_hash: str | None,
    as_json: bool,
) -> None:
    """Replace the exact text OLD with NEW in NOTE; refused unless OLD occurs --count times
    (default once), or at least once with --all."""
    if count is not None and every:
        raise click.UsageError("give --count or --all, not both")
    one = {"old": old, "new": new, "count": count, "all": every or None}
    args = {
        "note": note,
        "edits": [{k: v for k, v in one.items() if v is not None}],
        "dry_run": dry_run,
        "expected_hash": expected_hash,
    }
    wrote(vault, "note_edit", args, as_json)


WRITE_COMMANDS = (
    read,
    create,
    _add("append"),
    _add("prepend"),
    delete,
    history,
    history_read,
    history_restore,
    diff,
    edit,
    replace,
)
