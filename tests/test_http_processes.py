"""`kbtui mcp --http` as real processes over a real index and the real model, reached with the
SDK's Streamable HTTP client: the request log, 64 idle sessions, two servers on one vault,
and faults (a client killed mid-request, the server killed under load and restarted)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from kbtui.config import Settings
from kbtui.mcp.files import LOG_FILE
from tests.conftest import REPO, copy_indexed

sys.path.insert(0, str(REPO / "bench"))
from http_faults import run_rounds
from http_kit import Served, call, process_stats, session


@pytest.fixture
def vault(tmp_path: Path, indexed_example: Settings) -> Path:
    return copy_indexed(indexed_example.vault, tmp_path / "vault")


async def _some_calls(served: Served) -> list[dict[str, Any]]:
    async with session(served.url, served.token) as client:
        await client.list_tools()
        return [
            await call(client, "kb_search", {"query": "watch battery", "top_k": 3}),
            await call(client, "kb_get", {"id": "person:andrei_clodius"}),
        ]


def test_each_request_is_logged_in_the_index_folder_never_the_token(vault: Path) -> None:
    served = Served(vault, "--no-watch")
    try:
        answers = anyio.run(_some_calls, served)
        assert all(a["ok"] for a in answers)
        with httpx2.Client(timeout=30) as http:
            refused = http.post(served.url, headers={"authorization": "Bearer guessed-token"})
        assert refused.status_code == 401
    finally:
        assert served.stop() == 0
    index_dir = Settings.for_vault(vault).index_dir
    log = (index_dir / LOG_FILE).read_text(encoding="utf-8")
    lines = log.splitlines()
    assert any("POST tools/call tool=kb_search status=200 ms=" in x for x in lines)
    assert any("POST tools/call tool=kb_get status=200 ms=" in x for x in lines)
    assert any("POST initialize tool=- status=200" in x for x in lines)
    assert any("POST - tool=- status=401" in x for x in lines)
    assert served.token not in log and "guessed-token" not in log
    assert served.token not in served.stderr()


async def _idle_sessions(served: Served, count: int) -> tuple[float, float, int]:
    """RSS with one warm session, then with `count` more open and idle; how many answer."""
    async with session(served.url, served.token) as warm:
        await call(warm, "kb_search", {"query": "watch", "top_k": 3})
        await anyio.sleep(2)
        idle = process_stats(served.pid)["rss_mb"]
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(session(served.url, served.token))
                for _ in range(count)
            ]
            await anyio.sleep(2)
            with_sessions = process_stats(served.pid)["rss_mb"]
            listed = 0
            for client in clients:
                listed += bool((await client.list_tools()).tools)
    return idle, with_sessions, listed


def test_64_idle_sessions_cost_little_memory(vault: Path) -> None:
    served = Served(vault, "--no-watch")
    try:
        idle, with_sessions, listed = anyio.run(_idle_sessions, served, 64)
    finally:
        assert served.stop() == 0
    print(f"idle RSS {idle:.1f} MB, with 64 idle sessions {with_sessions:.1f} MB")
    assert listed == 64
    assert with_sessions - idle <= 50


async def _search(served: Served) -> list[str]:
    async with session(served.url, served.token) as client:
        answer = await call(client, "kb_search", {"query": "watch battery", "top_k": 5})
        assert answer["ok"], answer
        return [hit["id"] for hit in answer["results"]]


def said(served: Served, text: str, timeout: float = 30) -> None:
    """Wait for `text` on the server's stderr (read on a thread)."""
    deadline = time.monotonic() + timeout
    while text not in served.stderr():
        assert time.monotonic() < deadline, served.stderr()
        time.sleep(0.1)


def test_two_servers_on_one_vault(vault: Path) -> None:
    """The second serves through the first (its owner) and says where the first serves; a
    third asking for the first's port is told who holds it; when the first stops, the
    second takes the vault over and still answers."""
    first = Served(vault)
    second: Served | None = None
    try:
        second = Served(vault)
        said(second, f"also served at {first.url} (kbtui process {first.pid})")
        said(second, f"through kbtui process {first.pid}")
        want = anyio.run(_search, first)
        assert anyio.run(_search, second) == want
        port = first.url.rsplit(":", 1)[1].split("/")[0]
        third = subprocess.run(
            [sys.executable, "-m", "kbtui.cli", "mcp", "--vault", str(vault), "--http", port],
            cwd=REPO, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert third.returncode == 1
        assert f"kbtui process {first.pid} serves this vault at {first.url}" in third.stderr
        assert first.stop() == 0
        assert anyio.run(_search, second) == want  # taken over
    finally:
        first.kill()
        if second is not None:
            assert second.stop() == 0


def test_killed_clients_and_a_killed_server_lose_nothing(vault: Path, tmp_path: Path) -> None:
    """One round of bench/http_faults.py: three client processes import notes; one is
    killed mid-request (the others are still served), then the server is killed (kill -9)
    under that load and started again: every acknowledged note is whole in the vault and
    found by the restarted server, no note is partial, and once stopped its index equals
    a fresh build's."""
    counts, diffs = run_rounds(vault, 1, 7, tmp_path / "fresh")
    assert counts.client_kills == 1 and counts.server_kills == 1
    assert counts.acknowledged >= 3
    assert counts.lost == [] and counts.partial == [] and counts.unserved == []
    assert diffs == []
