"""Helpers for the TUI tests (their fixtures are in conftest.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp

SIZE = (120, 40)


def make_app(handle: VaultRuntime) -> KbApp:
    # A long status interval: the first poll happens at mount, later ones only add noise.
    return KbApp(handle, vault_name="vault", status_seconds=60)


async def settle(pilot: Pilot[None]) -> None:
    """Until every worker has finished and what they posted is on screen."""
    for _ in range(3):
        await pilot.pause()
        await wait_for_workers(pilot)
    await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False  # a blinking cursor would make snapshots flaky


async def wait_for_workers(pilot: Pilot[None]) -> None:
    """Every worker done. A worker cancelled meanwhile (an exclusive one replaced by a newer
    one: the note view loading a note again after a save) is not the test's failure, its
    successor is waited for instead; Textual's wait_for_complete raises WorkerCancelled."""
    for worker in list(pilot.app.workers):
        try:
            await worker.wait()
        except WorkerCancelled:
            continue


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("space" if c == " " else c for c in text))


def vault_digest(vault: Path) -> str:
    """Every file of the vault (not the index): what must not change without consent."""
    h = hashlib.blake2b()
    for path in sorted(p for p in vault.rglob("*") if p.is_file() and ".kbtui" not in p.parts):
        h.update(str(path.relative_to(vault)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()
