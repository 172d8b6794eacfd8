"""Shared pieces of the command line: vault option, opening the vault, printing envelopes.

Imports stay light at module level (click and the settings only): `kbtui --version` and
`--help` must not pay for DuckDB, numpy, the model or Rich. Each command imports what it
uses when it runs (tests/test_cli_imports.py holds this)."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import click

from kbtui.config import Settings

if TYPE_CHECKING:
    from rich.console import Console

    from kbtui.indexing.model_choice import VaultEmbedder
    from kbtui.runtime.shared import SharedVault


PIPE_WIDTH = 100_000  # tables only: a pipe gets every row on one line, however long


@functools.cache
def err() -> Console:
    """The console for messages (stderr), made on first use."""
    return _console(stderr=True)


@functools.cache
def out() -> Console:
    """The console for answers (stdout), made on first use."""
    return _console(stderr=False)


def _console(stderr: bool) -> Console:
    """A terminal's console wraps at its width; a pipe's never wraps (Rich would wrap at 80
    columns), so `| grep` gets whole lines: no soft wrapping, tables as wide as their rows.
    COLUMNS, when set, still says how wide to be (as for `kbtui search`)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS", "").isdigit():
        return Console(stderr=stderr)
    return Console(stderr=stderr, soft_wrap=True, width=PIPE_WIDTH)


def piped() -> bool:
    """stdout goes to a pipe or a file, not a terminal."""
    return not sys.stdout.isatty()


def _vault_before_command(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """`kbtui --vault V search ...` means vault V: the command takes the `--vault` typed
    before it unless it was given its own. Without this the command silently used
    $KBTUI_VAULT or the current folder, and made an empty index there."""
    from click.core import ParameterSource

    if ctx.get_parameter_source("vault") is ParameterSource.COMMANDLINE:
        return value
    parent = ctx.parent
    while parent is not None:
        if parent.get_parameter_source("vault") is ParameterSource.COMMANDLINE:
            return parent.params["vault"]
        parent = parent.parent
    return value


vault_option = click.option(
    "--vault",
    "vault",
    envvar="KBTUI_VAULT",
    type=click.Path(file_okay=False),
    callback=_vault_before_command,
    help="The vault folder (default: $KBTUI_VAULT, else the current folder).",
)
model_option = click.option(
    "--model",
    type=click.Choice(["auto", "minilm", "e5", "multilingual"], case_sensitive=False),
    default=None,
    help="The embedding model: auto (default: by the vault's languages), minilm (English) "
    "or e5 = multilingual (multilingual-e5-small); $KBTUI_MODEL.",
)
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print the tool's response as JSON, exactly."
)


def settings_for(vault: str | None, **options: Any) -> Settings:
    """The settings of a command: its options (`model=...`) over the environment's."""
    try:
        settings = Settings.for_vault(vault, **options)
    except ValueError as exc:  # e.g. KBTUI_MODEL=bert
        raise click.ClickException(str(exc)) from exc
    if not settings.vault.is_dir():
        raise click.ClickException(f"vault folder not found: {settings.vault}")
    return settings


def make_embedder(settings: Settings) -> VaultEmbedder:
    """The vault's embedder, for every front end: the model its settings and its index
    choose (kbtui.indexing.model_choice)."""
    from kbtui.embed import EmbedderError
    from kbtui.indexing.model_choice import VaultEmbedder

    try:
        return VaultEmbedder(settings)
    except EmbedderError as exc:
        raise click.ClickException(str(exc)) from exc


@contextmanager
def opened_vault(
    vault: str | None,
    need_model: bool = True,
    model_if_installed: bool = False,
    settings: Settings | None = None,
) -> Iterator[SharedVault]:
    """The vault for one command: through the kbtui process that has it open (TUI, MCP
    server), else opened here. The model is made only if this process opens the index:
    always with `need_model`, when its package is there with `model_if_installed` (a long
    command with the model serves the others meanwhile), else never (a quick read).
    Reaching an owner loads neither DuckDB nor the model (tests/test_cli_imports.py)."""
    from kbtui.runtime.shared import open_vault_once
    from kbtui.store.file.recover import StoreError

    settings = settings or settings_for(vault)

    made: list[VaultEmbedder] = []

    def embedder() -> VaultEmbedder | None:
        if need_model:  # this process opens the index: load the model while it does
            made.append(make_embedder(settings))
            made[0].preload()
            return made[0]
        if model_if_installed:
            with suppress(click.ClickException):
                return make_embedder(settings)
        return None

    try:
        handle = open_vault_once(settings, embedder)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield handle
    finally:
        handle.close()
        for model in made:
            model.wait_for_preload()


def escape(text: str) -> str:
    """Text from the vault printed inside Rich markup: a title like `[draft] plan` or a
    pattern like `[a-z]+` must print as written, not be read as a style tag and vanish."""
    from rich.markup import escape as rich_escape  # Rich loads on first output

    return rich_escape(text)


def plural(count: int, word: str) -> str:
    """`1 chunk`, `2 chunks`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def emit(response: dict[str, Any], as_json: bool) -> bool:
    """Print a failed envelope (JSON or a one-line error); True when the call succeeded.

    Failed calls end the command with exit status 1.
    """
    if as_json:
        click.echo(json.dumps(response, indent=2, ensure_ascii=False))
    if not response.get("ok"):
        if not as_json:
            err().print(f"[red]error[/] ({response['error_type']}): {escape(response['message'])}")
        sys.exit(1)
    return not as_json


# -- Obsidian's argument style ------------------------------------------------------------
# Obsidian's CLI names a file `file=<name>` or `path=<path>`; where a kbtui command takes the
# note (or the text) as an argument, these keys fill it.
_ARGUMENT_KEYS = {"file": "note", "path": "note", "content": "text"}


class ObsidianStyle(click.Command):
    """A command that also reads the official Obsidian CLI's arguments beside its own flags
    (help: Extending Obsidian/Obsidian CLI): `key=value` gives the option `--key` or the
    argument named key, a bare word naming a flag turns it on (`tags counts total`), so the
    help's examples run as written. `aliases` maps Obsidian's key to kbtui's option where they
    differ. A bare word an argument needs stays that argument (`kbtui tag total`), words of a
    free text (`append NOTE TEXT...`) stay words, and what follows `--` is taken as written."""

    def __init__(self, *args: Any, aliases: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases = aliases or {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, obsidian_args(self, args))


def obsidian_args(command: click.Command, args: list[str]) -> list[str]:
    """`args` with Obsidian's `key=value` and bare flags written as click reads them."""
    options: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option):
            options.update({o.lstrip("-"): param for o in param.opts if o.startswith("--")})
    arguments = {p.name: p for p in command.params if isinstance(p, click.Argument) and p.name}
    aliases: dict[str, str] = getattr(command, "aliases", {})
    out: list[str] = []  # click's words, in the order given
    free: list[int] = []  # where in `out` the plain words are (arguments, or bare flags)
    given: dict[str, str] = {}  # arguments named by key=value
    literal: list[str] | None = None  # the words after `--`
    words = iter(args)
    for word in words:
        key, eq, value = word.partition("=")
        key = aliases.get(key, key) if eq else key
        if word == "--":
            literal = list(words)
        elif word.startswith("-"):
            taken = options.get(word.lstrip("-"))
            out += [word, next(words, "")] if taken and not taken.is_flag and not eq else [word]
        elif eq and key in options and key not in arguments:
            out += [f"--{key}"] if options[key].is_flag else [f"--{key}", value]
        elif eq and (key in arguments or _ARGUMENT_KEYS.get(key) in arguments):
            given[key if key in arguments else _ARGUMENT_KEYS[key]] = value
        else:
            free.append(len(out))
            out.append(word)
    needed = sum(1 for n, p in arguments.items() if p.required and n not in given)
    flags = {i for i in free if (o := options.get(out[i])) is not None and o.is_flag}
    if any(p.nargs == -1 for p in arguments.values()):  # free text: its words stay words
        flags = set()
    plain = len(free) - len(flags) + len(literal or ())
    for i in free:  # a flag's name that an argument needs is that argument
        if i in flags and plain < needed:
            flags.discard(i)
            plain += 1
    for i in flags:
        out[i] = f"--{out[i]}"
    if not given:
        return out if literal is None else [*out, "--", *literal]
    rest = [out[i] for i in free if i not in flags] + (literal or [])
    head = [w for i, w in enumerate(out) if i in flags or i not in free]
    ordered: list[str] = []
    for name, param in arguments.items():
        if name in given:
            ordered.append(given[name])
        elif param.nargs == -1:
            ordered, rest = ordered + rest, []
        elif rest:
            ordered.append(rest.pop(0))
    return [*head, "--", *ordered, *rest]
