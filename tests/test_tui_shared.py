"""The TUI shares its vault: opened while `kbtui mcp` (a real server process, driven by the
SDK's stdio client) owns the index, the app works through that owner, says so in the status
line, and takes the index over when the server stops, still answering afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.interpreter import SWITCH_INTERVAL
from kbtui.tui import VaultSession
from kbtui.tui.app import KbApp
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList
from kbtui.tui.widgets.status import StatusBar
from tests.test_owner_processes import Servers, role
from tests.tui_helpers import SIZE, settle, type_text

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def servers(tmp_path: Path, indexed_example: Settings) -> Iterator[Servers]:
    vault = Path(shutil.copytree(indexed_example.vault, tmp_path / "vault", symlinks=True))
    with ExitStack() as stack:
        yield Servers(vault, stack)


def result_ids(app: KbApp) -> list[str]:
    results = app.screen.query_one("#results", EntityList)
    ids = (results.get_option_at_index(i).id for i in range(results.option_count))
    return [str(i) for i in ids if i]


async def test_the_tui_uses_a_running_server_and_takes_over(servers: Servers) -> None:
    server = servers.start()
    _, server_pid, _ = role(server)
    session = VaultSession(Settings.for_vault(servers.vault))
    app = KbApp(opener=session.open, vault_name="vault", status_seconds=0.2)
    found_interval = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.monotonic() + 30
            while app.handle is None and time.monotonic() < deadline:
                await pilot.pause(0.05)
            await settle(pilot)
            assert isinstance(app.screen, SearchScreen)
            deadline = time.monotonic() + 30  # until a status poll came back from the owner
            status = ""
            while f"via pid {server_pid}" not in status and time.monotonic() < deadline:
                await pilot.pause(0.05)
                status = str(app.screen.query_one(StatusBar).render())
            assert f"via pid {server_pid}" in status, status
            await type_text(pilot, "Zephyr firmware")
            await settle(pilot)
            assert result_ids(app), "no results through the owner"

            os.kill(server_pid, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while app.handle.status()["role"] != "owner" and time.monotonic() < deadline:
                await pilot.pause(0.1)
            assert app.handle.status()["role"] == "owner"
            # a `kbtui mcp` started now is answered here, beside the TUI's own work
            assert sys.getswitchinterval() == SWITCH_INTERVAL
            (servers.vault / "concepts" / "late.md").write_text("# Late\nThe frobnicast note.\n")
            deadline = time.monotonic() + 15
            found: list[str] = []
            while not found and time.monotonic() < deadline:
                answer = app.handle.call("kb_search", {"query": "frobnicast", "mode": "keyword"})
                found = [r["id"] for r in answer["results"]]
                await pilot.pause(0.2)
            assert found == ["concept:late"]  # the app's own watcher indexes now
        session.close()
        assert sys.getswitchinterval() == 0.005  # the vault closed: nobody served here
    finally:
        session.close()
        sys.setswitchinterval(found_interval)
    servers.check_logs()
