"""`kbtui mcp`: the vault served to an AI assistant over MCP (stdio)."""

from __future__ import annotations

import click

from kbtui.cli.common import make_embedder, settings_for, vault_option

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
def mcp(vault: str | None, log_file: str | None, log_level: str, no_watch: bool) -> None:
    """Serve the vault over MCP on stdin/stdout, indexing and watching it in the background.

    When another kbtui process has the vault open, its index is used and this server takes
    it over when that process exits."""
    from kbtui.mcp.app import claim_stdout, run_stdio, setup_logging
    from kbtui.runtime.shared import open_vault
    from kbtui.store import StoreError

    protocol_out = claim_stdout()  # before anything can print
    setup_logging(log_level, log_file)
    settings = settings_for(vault)
    try:  # the owner's handle when the TUI (or another server) has the vault open
        handle = open_vault(settings, lambda: make_embedder(settings), watch=not no_watch)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    run_stdio(handle, protocol_out)


MCP_COMMANDS = [mcp]
