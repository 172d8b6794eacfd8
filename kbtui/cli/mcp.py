"""`kbtui mcp`: the vault served to AI assistants over MCP (stdio, or Streamable HTTP)."""

from __future__ import annotations

import functools
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

import click

from kbtui.cli.common import make_embedder, model_option, settings_for, vault_option
from kbtui.config import Settings
from kbtui.store import StoreError

if TYPE_CHECKING:
    from kbtui.mcp.scope import McpScope

LEVELS = ("debug", "info", "warning", "error")


@click.command("mcp")
@vault_option
@click.option(
    "--log-file",
    type=click.Path(dir_okay=False),
    help="Also write the log to this file (it always goes to stderr).",
)
@click.option(
    "--log-level", type=click.Choice(LEVELS), default="info", show_default=True, help="Log detail."
)
@click.option("--no-watch", is_flag=True, help="Index once at start; do not watch the vault.")
@click.option(
    "--http",
    "bind",
    metavar="[HOST:]PORT",
    help="Serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio "
    "(HOST 127.0.0.1 unless given; clients need the bearer token of --show-token).",
)
@click.option(
    "--allow-remote", is_flag=True, help="Let --http listen on an address other machines reach."
)
@click.option(
    "--allow-host",
    multiple=True,
    metavar="NAME",
    help="Another Host name clients use to reach --http (repeatable).",
)
@click.option(
    "--show-token",
    is_flag=True,
    help="Print the HTTP bearer token (made if needed); with --read-only, the read-only one.",
)
@click.option(
    "--tools",
    "tools",
    default="all",
    show_default=True,
    metavar="SET",
    help="Offer only these tools: groups (read, write, kb, graph, vault, all) and tool "
    "names, comma-separated.",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Offer only the tools that read; every write is refused (forbidden).",
)
@click.option(
    "--write-folders",
    metavar="FOLDERS",
    help="Writes may land only in these vault folders (comma-separated, e.g. Inbox,Daily).",
)
@click.option(
    "--review",
    is_flag=True,
    help="Hold the assistants' note writes as proposals until you accept them in the TUI "
    "(f3); other writing tools are refused.",
)
@model_option
def mcp(
    vault: str | None,
    log_file: str | None,
    log_level: str,
    no_watch: bool,
    bind: str | None,
    allow_remote: bool,
    allow_host: tuple[str, ...],
    show_token: bool,
    tools: str,
    read_only: bool,
    write_folders: str | None,
    review: bool,
    model: str | None,
) -> None:
    """Serve the vault over MCP, indexing and watching it in the background: on
    stdin/stdout, or with --http over Streamable HTTP to any number of clients.

    When another kbtui process has the vault open, its index is used and this server takes
    it over when that process exits. Over HTTP, requests with the read-only token
    (--show-token --read-only) may only read."""
    settings = settings_for(vault, model=model)
    choice = Choice(_tool_names(tools), read_only, _folders(write_folders), tools, review)
    if bind is None and not show_token:
        _serve_stdio(settings, log_level, log_file, no_watch, choice)
        return
    from kbtui.mcp.app import run_http
    from kbtui.mcp.http import HttpConfigError, HttpServer, TokenError, load_token, parse_bind
    from kbtui.mcp.process import setup_logging
    from kbtui.runtime.shared import open_vault

    if show_token:
        try:
            click.echo(load_token(settings.index_dir, read_only=read_only))
        except TokenError as exc:
            raise click.ClickException(str(exc)) from exc
        return
    assert bind is not None

    setup_logging(log_level, log_file)
    try:
        host, port = parse_bind(bind)
        token = load_token(settings.index_dir)
        read_token = load_token(settings.index_dir, read_only=True)
        handle = open_vault(settings, lambda: make_embedder(settings), watch=not no_watch)
    except (HttpConfigError, TokenError, StoreError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        server = HttpServer(
            handle,
            host,
            port,
            token,
            allow_remote=allow_remote,
            extra_hosts=allow_host,
            index_dir=settings.index_dir,
            read_token=read_token,
            scope=choice.scope(),
        )
    except HttpConfigError as exc:
        handle.close()
        raise click.ClickException(str(exc)) from exc
    click.echo(f"kbtui MCP at {server.url} (token: kbtui mcp --show-token)", err=True)
    other = server.other_server()
    if other is not None:
        click.echo(f"note: this vault is also served at {other}", err=True)
    run_http(handle, server)


class Choice(NamedTuple):
    """What the server offers and allows, checked before anything opens."""

    tools: tuple[str, ...]
    read_only: bool
    write_folders: tuple[str, ...]
    label: str
    review: bool = False

    def scope(self) -> McpScope:
        from kbtui.mcp.scope import McpScope  # the SDK's types

        return McpScope(
            self.tools, self.read_only, self.write_folders, self.label, review=self.review
        )


def _tool_names(text: str) -> tuple[str, ...]:
    from kbtui.tools.catalog import UnknownTools, tool_set

    try:
        return tool_set(text)
    except UnknownTools as exc:
        raise click.BadParameter(str(exc), param_hint="--tools") from None


def _folders(text: str | None) -> tuple[str, ...]:
    """Vault folders as given to --write-folders, each a plain path inside the vault."""
    if text is None:
        return ()
    folders: list[str] = []
    for raw in text.split(","):
        folder = PurePosixPath(raw.strip().replace("\\", "/"))
        if folder.is_absolute() or ".." in folder.parts or not folder.parts:
            why = f"{raw.strip()!r} is not a folder inside the vault"
            raise click.BadParameter(why, param_hint="--write-folders")
        folders.append(folder.as_posix())
    return tuple(folders)


def _serve_stdio(
    settings: Settings, log_level: str, log_file: str | None, no_watch: bool, choice: Choice
) -> None:
    """The vault opens on a thread (DuckDB, side files, the model; or the owner's socket)
    while the MCP SDK is imported here, so `initialize` is answered without waiting for the
    index and the first tool call waits only for what is left of the open. An index that
    cannot be opened is logged and every call answers why (and tries again)."""
    from kbtui.mcp.process import claim_stdout, setup_logging
    from kbtui.runtime.shared import open_vault

    protocol_out = claim_stdout()  # before anything can print
    setup_logging(log_level, log_file)
    factory = functools.partial(make_embedder, settings)
    handle = open_vault(settings, factory, watch=not no_watch, background=True)
    from kbtui.mcp.app import run_stdio  # the SDK: ~0.5 s, overlapping the open

    run_stdio(handle, protocol_out, choice.scope())


MCP_COMMANDS = [mcp]
