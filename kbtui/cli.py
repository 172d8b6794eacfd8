"""Command-line entry point: a thin wrapper over the services. One composition root per command."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, cast

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from kbtui.config import Settings
from kbtui.embed import EmbedderError, FastEmbedder
from kbtui.models import IndexReport, SearchFilters
from kbtui.services.indexer import Indexer
from kbtui.services.search import Mode, SearchService
from kbtui.store import Store, StoreError

err = Console(stderr=True)
out = Console()

vault_option = click.option(
    "--vault",
    "vault",
    envvar="KBTUI_VAULT",
    type=click.Path(file_okay=False),
    help="The vault folder (default: $KBTUI_VAULT, else the current folder).",
)


def _settings(vault: str | None) -> Settings:
    settings = Settings.for_vault(vault)
    if not settings.vault.is_dir():
        raise click.ClickException(f"vault folder not found: {settings.vault}")
    return settings


@contextmanager
def _opened(settings: Settings) -> Iterator[Store]:
    try:
        store = Store(settings.db_path)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield store
    finally:
        store.close()


def _embedder(settings: Settings) -> FastEmbedder:
    try:
        return FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
    except EmbedderError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group(invoke_without_command=True)
@click.version_option(package_name="kbtui")
@click.pass_context
def main(ctx: click.Context) -> None:
    """kbtui: search and walk a markdown vault from the terminal."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@main.command()
@vault_option
@click.option("--no-embed", is_flag=True, help="Update text and keyword index only.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def index(vault: str | None, no_embed: bool, as_json: bool) -> None:
    """Bring the index up to date with the vault (incremental)."""
    settings = _settings(vault)
    embedder = None if no_embed else _embedder(settings)
    with _opened(settings) as store, _progress() as bar:
        tasks: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(f"{phase:>5}", total=total)
            bar.update(tasks[phase], completed=done, total=total)

        report = Indexer(settings, store, embedder, progress).run(embed=not no_embed)
    if as_json:
        click.echo(json.dumps(asdict(report), indent=2))
    else:
        _print_report(report, settings)


@main.command()
@vault_option
@click.argument("query")
@click.option("--type", "type_", help="Only notes of this type (person, project, ...).")
@click.option("--tag", help="Only notes with this tag (nested tags included).")
@click.option("--folder", help="Only notes under this folder.")
@click.option("--top-k", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "vector", "keyword"]),
    default="hybrid",
    show_default=True,
)
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
def search(
    vault: str | None,
    query: str,
    type_: str | None,
    tag: str | None,
    folder: str | None,
    top_k: int,
    mode: str,
    as_json: bool,
) -> None:
    """Hybrid (vector + keyword) search over the indexed vault."""
    settings = _settings(vault)
    embedder = None if mode == "keyword" else _embedder(settings)
    with _opened(settings) as store:
        service = SearchService(store, embedder)
        filters = SearchFilters(type=type_, tag=tag, folder=folder)
        results = service.search(query, top_k, filters, cast(Mode, mode))
    if as_json:
        click.echo(json.dumps([asdict(r) for r in results], indent=2, ensure_ascii=False))
        return
    if not results:
        out.print("No results.")
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("score", "id", "title", "snippet"):
        table.add_column(col, overflow="fold")
    for r in results:
        table.add_row(f"{r.score:.2f}", Text(r.id), Text(r.title), Text(r.snippet))
    out.print(table)


@main.command()
@vault_option
@click.option("--json", "as_json", is_flag=True)
def stats(vault: str | None, as_json: bool) -> None:
    """What the index holds."""
    settings = _settings(vault)
    with _opened(settings) as store:
        data = store.stats()
    data["db_path"] = str(settings.db_path)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        out.print(f"[bold]{key:>14}[/] {value}")


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )


def _print_report(report: IndexReport, settings: Settings) -> None:
    out.print(f"Indexed [bold]{settings.vault}[/] in {report.seconds:.2f}s -> {settings.db_path}")
    out.print(
        f"  new {len(report.new)}, changed {len(report.changed)}, "
        f"deleted {len(report.deleted)}, renamed {len(report.renamed)}, "
        f"unchanged {report.unchanged}, skipped {len(report.skipped)}"
    )
    out.print(f"  chunks embedded {report.chunks_embedded}")
    for old, new in report.renamed:
        out.print(f"  renamed {old} -> {new}")
    for s in report.skipped:
        out.print("  [yellow]skipped[/]", Text(f"{s.path}: {s.reason}"))
    for w in report.warnings:
        out.print("  [dim]warning[/]", Text(f"{w.path}: {w.reason}"))


if __name__ == "__main__":
    sys.exit(main())
