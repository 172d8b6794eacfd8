"""Command-line entry point: a thin wrapper over the runtime and the tools.

One composition root per command."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from kbtui import __version__
from kbtui.cli.bases import BASE_COMMANDS
from kbtui.cli.common import (
    err,
    escape,
    model_option,
    opened_vault,
    settings_for,
    vault_option,
)
from kbtui.cli.common import out as _out
from kbtui.cli.dashboards import DATAVIEW_COMMANDS
from kbtui.cli.graph import GRAPH_COMMANDS
from kbtui.cli.graph_map import GRAPH_MAP_COMMANDS
from kbtui.cli.kb import KB_COMMANDS
from kbtui.cli.mcp import MCP_COMMANDS
from kbtui.cli.sql import SQL_COMMANDS
from kbtui.cli.vault_cmds import VAULT_COMMANDS
from kbtui.cli.writes import WRITE_COMMANDS
from kbtui.config import Settings

if TYPE_CHECKING:  # imported when a command runs: `kbtui --version` loads none of this
    from rich.progress import Progress

    from kbtui.models import IndexReport


_REVIEW_HELP = (
    "Turn the vault's review mode on: assistants' note writes wait as proposals until you "
    "accept them (f3); ctrl+p turns it off."
)


@click.group(invoke_without_command=True)
@click.version_option(version=__version__, package_name="kbtui")
@vault_option
@click.option("--review", is_flag=True, help=_REVIEW_HELP)
@click.pass_context
def main(ctx: click.Context, vault: str | None, review: bool) -> None:
    """kbtui: search and walk a markdown vault from the terminal.

    Without a command, opens the TUI on the vault (same as `kbtui tui`)."""
    from kbtui.tools.write.origin import Origin, acting_as

    ctx.with_resource(acting_as(Origin("cli")))  # the writer history names (TUI, MCP: theirs)
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui, vault=vault, review=review)


@main.command()
@vault_option
@click.option("--review", is_flag=True, help=_REVIEW_HELP)
@model_option
def tui(vault: str | None, review: bool, model: str | None) -> None:
    """Open the terminal app: search as you type, read notes, walk the graph."""
    from kbtui.tui import run_app  # Textual is loaded only for the TUI

    run_app(settings_for(vault, model=model), review=review)


@main.command()
@vault_option
@click.option("--no-embed", is_flag=True, help="Update text and keyword index only.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--verbose", is_flag=True, help="List every warning (repeated ones are summarised).")
@model_option
@click.option(
    "--choose-model",
    is_flag=True,
    help="auto: decide the model again from the vault's text now (a change re-embeds).",
)
def index(
    vault: str | None,
    no_embed: bool,
    as_json: bool,
    verbose: bool,
    model: str | None,
    choose_model: bool,
) -> None:
    """Bring the index up to date with the vault (incremental).

    When another kbtui process has the vault open (TUI, MCP server), it runs the pass."""
    from kbtui.store import DatabaseError, StoreError

    settings = settings_for(vault, model=model, choose_model_again=choose_model)
    ctrl_c = _CtrlC()
    try:
        with opened_vault(
            vault, need_model=not no_embed, model_if_installed=True, settings=settings
        ) as handle:
            try:
                if handle.role == "client":
                    err().print(f"[dim]indexing through kbtui process {handle.owner_pid}[/]")
                    _model_setting_not_applied(settings)
                    report = handle.reindex(embed=not no_embed)
                else:
                    with _progress() as bar:
                        report = handle.reindex(
                            embed=not no_embed, progress=ctrl_c.checked(_bar_progress(bar))
                        )
                if ctrl_c.pressed:  # raised where it was swallowed (a DuckDB call's cleanup)
                    raise KeyboardInterrupt
                model = _model_in_use(handle)
            except StoreError as exc:
                raise click.ClickException(str(exc)) from exc
            except Exception as exc:
                if ctrl_c.pressed:  # DuckDB turns a Ctrl-C inside its call into its own error
                    raise KeyboardInterrupt from exc
                if isinstance(exc, DatabaseError):  # e.g. a disk that filled up: no traceback
                    raise click.ClickException(f"the index could not be written: {exc}") from exc
                raise
    except (KeyboardInterrupt, Exception) as exc:  # every batch embedded so far is committed
        if not isinstance(exc, KeyboardInterrupt) and not ctrl_c.pressed:
            raise
        err().print("interrupted: what was indexed is kept; `kbtui index` goes on from there")
        if ctrl_c.pressed:  # a real Ctrl-C; the index is closed and every batch committed
            ctrl_c.exit_now(130)
        sys.exit(130)
    finally:
        ctrl_c.restore()
    if as_json:
        click.echo(json.dumps(asdict(report), indent=2))
    else:
        _print_report(report, settings, verbose)
        if model:
            _out().print(f"  model {escape(model)}")


@main.command()
@vault_option
@click.option("--json", "as_json", is_flag=True)
def stats(vault: str | None, as_json: bool) -> None:
    """What the index holds."""
    settings = settings_for(vault)
    with opened_vault(vault, need_model=False) as handle:
        status = handle.status()
    if status["pid"] is None:
        raise click.ClickException(status["index"]["state"])
    data = dict(status["stats"])
    data["db_path"] = str(settings.db_path)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        _out().print(f"[bold]{key:>14}[/] {escape(str(value))}")


def _model_setting_not_applied(settings: Settings) -> None:
    """Through an owner, the model is the owner's (the process that opened the index)."""
    if settings.model != "auto" or settings.choose_model_again:
        asked = settings.model_set_by or "--choose-model"
        err().print(
            f"[yellow]{asked} is not applied: the kbtui process that has the vault open keeps "
            "its model; close it and run kbtui index again[/]"
        )


def _model_in_use(handle: Any) -> str | None:
    """Which model embeds the vault and why, as its index says (kbtui.indexing.model_choice)."""
    from kbtui.indexing.model_choice import describe

    return describe(handle.status().get("stats") or {})


class _CtrlC:
    """Python's Ctrl-C handler, noting that it was pressed: a KeyboardInterrupt raised inside a
    DuckDB call reaches us as a DuckDB error, or not at all where such errors are suppressed
    (cleanup that must not fail), and the pass would go on to its end."""

    def __init__(self) -> None:
        import signal
        import threading

        self.pressed = False
        self._previous = signal.getsignal(signal.SIGINT)
        # Not when Ctrl-C is ignored or handled by someone else, nor off the main thread.
        self._ours = (
            self._previous is signal.default_int_handler
            and threading.current_thread() is threading.main_thread()
        )
        if self._ours:
            signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: Any) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def checked(self, progress: Callable[[str, int, int], None]) -> Callable[[str, int, int], None]:
        """`progress`, ending the pass at its next mark once Ctrl-C was pressed (on any thread
        that reports progress: the embedding beside the text pass hands it on)."""

        def check(phase: str, done: int, total: int) -> None:
            if self.pressed:
                raise KeyboardInterrupt
            progress(phase, done, total)

        return check

    @staticmethod
    def exit_now(code: int) -> None:
        """Exit without running native libraries' exit-time destructors: after a Ctrl-C
        mid-pass, 2 of ~70 exits aborted there while a pool of model sessions was tried
        ("terminate called without an active exception", no Python thread left: some native
        thread pool still alive). Everything is committed and closed by then."""
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    def restore(self) -> None:
        import signal

        if self._ours:
            signal.signal(signal.SIGINT, self._previous)


def _bar_progress(bar: Progress) -> Callable[[str, int, int], None]:
    tasks: dict[str, Any] = {}

    def progress(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(f"{phase:>5}", total=total)
        bar.update(tasks[phase], completed=done, total=total)

    return progress


def _progress() -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err(),
        transient=True,
    )


def _print_report(report: IndexReport, settings: Settings, verbose: bool = False) -> None:
    from rich.text import Text

    from kbtui.cli.warnings import print_warnings

    out = _out()
    out.print(
        f"Indexed [bold]{escape(str(settings.vault))}[/] in {report.seconds:.2f}s -> "
        f"{escape(str(settings.db_path))}"
    )
    out.print(
        f"  new {len(report.new)}, changed {len(report.changed)}, "
        f"deleted {len(report.deleted)}, renamed {len(report.renamed)}, "
        f"unchanged {report.unchanged}, skipped {len(report.skipped)}"
    )
    out.print(f"  chunks embedded {report.chunks_embedded}")
    for old, new in report.renamed:
        out.print(Text(f"  renamed {old} -> {new}"))
    for s in report.skipped:
        out.print("  [yellow]skipped[/]", Text(f"{s.path}: {s.reason}"))
    print_warnings(out, report.warnings, verbose)


for _command in KB_COMMANDS:
    main.add_command(_command)
for _command in (*MCP_COMMANDS, *SQL_COMMANDS, *BASE_COMMANDS, *DATAVIEW_COMMANDS):
    main.add_command(_command)
for _command in (*GRAPH_COMMANDS, *GRAPH_MAP_COMMANDS, *VAULT_COMMANDS, *WRITE_COMMANDS):
    main.add_command(_command)
