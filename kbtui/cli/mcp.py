"""`kbtui mcp`: the vault served to AI assistants over MCP (stdio, or Streamable HTTP)."""

from __future__ import annotations

import click

from kbtui.cli.common import make_embedder, settings_for, vault_option
from kbtui.config import Settings
from kbtui.store import StoreError

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
@click.option("--show-token", is_flag=True, help="Print the HTTP bearer token (made if needed).")
def mcp(
    vault: str | None,
    log_file: str | None,
    log_level: str,
    no_watch: bool,
    bind: str | None,
    allow_remote: bool,
    allow_host: tuple[str, ...],
    show_token: bool,
) -> None:
    """Serve the vault over MCP, indexing and watching it in the background: on
    stdin/stdout, or with --http over Streamable HTTP to any number of clients.

    When another kbtui process has the vault open, its index is used and this server takes
    it over when that process exits."""
    from kbtui.mcp.http import HttpConfigError, HttpServer, load_token, parse_bind

    settings = settings_for(vault)
    if show_token:
        click.echo(load_token(settings.index_dir))
        return
    if bind is None:
        _serve_stdio(settings, log_level, log_file, no_watch)
        return
    from kbtui.mcp.app import run_http, setup_logging
    from kbtui.runtime.shared import open_vault

    setup_logging(log_level, log_file)
    try:
        host, port = parse_bind(bind)
        token = load_token(settings.index_dir)
        handle = open_vault(settings, lambda: make_embedder(settings), watch=not no_watch)
    except (HttpConfigError, StoreError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        server = HttpServer(
            handle, host, port, token, allow_remote=allow_remote, extra_hosts=allow_host
        )
    except HttpConfigError as exc:
        handle.close()
        raise click.ClickException(str(exc)) from exc
    click.echo(f"kbtui MCP at {server.url} (token: kbtui mcp --show-token)", err=True)
    run_http(handle, server)


def _serve_stdio(settings: Settings, log_level: str, log_file: str | None, no_watch: bool) -> None:
    from kbtui.mcp.app import claim_stdout, run_stdio, setup_logging
    from kbtui.runtime.shared import open_vault
    from kbtui.store import StoreError

    protocol_out = claim_stdout()  # before anything can print
    setup_logging(log_level, log_file)
    try:  # the owner's handle when the TUI (or another server) has the vault open
        handle = open_vault(settings, lambda: make_embedder(settings), watch=not no_watch)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    run_stdio(handle, protocol_out)


MCP_COMMANDS = [mcp]
