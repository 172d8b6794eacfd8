"""The live index status line shown at the bottom of every screen."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from kbtui.cells import cell_safe
from kbtui.indexing.model_choice import describe

STATE_STYLE = {"idle": "green", "indexing": "yellow", "embedding": "yellow", "queued": "yellow"}


CHANGE_KINDS = ("new", "changed", "deleted", "renamed")


def pass_summary(last_pass: dict[str, Any]) -> str | None:
    """What a background pass changed, in counts (the status says no more), or None."""
    changes = [f"{last_pass[k]} {k}" for k in CHANGE_KINDS if last_pass.get(k)]
    if last_pass.get("other_files"):  # a .zip or .psd: only a base over files shows it
        changes.append(f"{last_pass['other_files']} other files")
    return ", ".join(changes) or None


def report_summary(report: dict[str, Any]) -> str | None:
    """What an app_reindex changed, naming the file (the report does), or None."""
    for kind in CHANGE_KINDS:
        paths = report.get(kind) or []
        if paths:
            first = " → ".join(paths[0]) if kind == "renamed" else str(paths[0])
            more = f" (+{len(paths) - 1} more)" if len(paths) > 1 else ""
            return f"{kind} {first}{more}"
    return None


def status_text(
    status: dict[str, Any] | None, vault_name: str, last_change: str | None = None
) -> Text:
    """One line: vault, indexer state and files pending, vectors done, last change.

    No clock times or durations: the line must read the same for the same index."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if status is None:
        text.append(f" {vault_name or 'vault'} ", style="bold")
        text.append("│ opening the index…", style="dim")
        return text
    vault = str(status.get("vault", vault_name)).rstrip("/").rsplit("/", 1)[-1]
    index: dict[str, Any] = status.get("index") or {}
    stats: dict[str, Any] = status.get("stats") or {}
    state = str(index.get("state", "?"))
    text.append(f" {cell_safe(vault)} ", style="bold")
    if status.get("role") == "client":  # another kbtui process owns the index
        text.append(f"(via pid {status.get('pid')}) ", style="dim")
    text.append("│ indexer ")
    text.append(state if len(state) < 60 else state[:57] + "…", style=_state_style(state))
    phase = index.get("phase")
    if phase and phase.get("name") in ("read", "write"):
        pending = max(0, int(phase["total"]) - int(phase["done"]))
        if pending:
            text.append(f" · {pending} files pending", style="yellow")
    chunks, embedded = int(stats.get("chunks", 0)), int(stats.get("embedded", 0))
    # Code and data chunks are never embedded (kbtui.vault.meaning): done, counted apart.
    wanted = chunks - int(stats.get("not_embedded", 0))
    text.append(f" │ {stats.get('notes', 0)} notes │ ")
    text.append(f"{embedded}/{wanted} chunks embedded", style="green" if embedded >= wanted else "")
    if wanted < chunks:
        text.append(f" (+{chunks - wanted} code/data)", style="dim")
    text.append(f" │ last change: {last_change or 'none'}")
    last = index.get("last_pass") or {}
    if last.get("skipped"):
        text.append(f" · {last['skipped']} skipped", style="bold red")
    review = status.get("review") or {}
    if review.get("pending"):
        text.append(" │ ")
        text.append(f"⚑ {review['pending']} to review (f3)", style="bold black on yellow")
    elif review.get("review"):
        text.append(" │ review on", style="green")
    model = describe(stats)  # which model and why, once this kbtui chose it: last, it may be cut
    if model is not None:
        text.append(f" │ {cell_safe(model)}", style="dim")
    return text


def _state_style(state: str) -> str:
    if state.startswith("failed"):
        return "bold red"
    return STATE_STYLE.get(state, "")


class StatusBar(Static):
    """Shows the app's latest status; the app polls and pushes it here."""

    def on_mount(self) -> None:
        self.show(getattr(self.app, "last_status", None))

    def show(self, status: dict[str, Any] | None) -> None:
        app = self.app
        self.update(
            status_text(status, getattr(app, "vault_name", ""), getattr(app, "last_change", None))
        )
