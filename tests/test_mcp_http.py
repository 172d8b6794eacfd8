"""`kbtui mcp --http`: the SDK's Streamable HTTP client against a real server on 127.0.0.1 (a
free port), over a real index; and the guard: no token, a foreign Origin or Host, a body
over the limit are refused before anything runs."""

from __future__ import annotations

import json
import re
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.mcp.http import (
    MAX_BODY,
    HttpConfigError,
    HttpServer,
    load_token,
    parse_bind,
    token_path,
)
from kbtui.runtime.runtime import VaultRuntime
from kbtui.runtime.shared import open_vault
from kbtui.tools.registry import PUBLISHED
from tests.conftest import REPO, copy_indexed

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def served(runtime: VaultRuntime) -> Iterator[tuple[HttpServer, str]]:
    token = load_token(runtime.settings.index_dir)
    server = HttpServer(runtime, "127.0.0.1", 0, token)
    server.start()
    try:
        yield server, token
    finally:
        server.stop()


async def _list_and_call(url: str, token: str) -> tuple[list[str], dict[str, Any]]:
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        result = await session.call_tool("kg_suggest_links", {"entityId": "person:andrei_clodius"})
        assert result.structured_content is not None
        return [t.name for t in tools.tools], result.structured_content


def test_sdk_client_lists_and_calls_tools_with_the_token(served: tuple[HttpServer, str]) -> None:
    server, token = served
    names, answer = anyio.run(_list_and_call, f"http://127.0.0.1:{server.port}/mcp", token)
    assert set(names) == set(PUBLISHED)
    assert {"kg_suggest_links", "kg_rename_entity"} <= set(names)
    assert answer["ok"] and answer["count"] >= 2


def _post(
    server: HttpServer, headers: dict[str, str], body: bytes | None = None
) -> httpx2.Response:
    data = json.dumps(INIT).encode() if body is None else body
    with httpx2.Client(timeout=30) as http:
        return http.post(
            f"http://127.0.0.1:{server.port}/mcp", content=data, headers={**ACCEPT, **headers}
        )


def test_refusals_touch_nothing(served: tuple[HttpServer, str], runtime: VaultRuntime) -> None:
    server, token = served
    note = runtime.settings.vault / "people" / "andrei_clodius.md"
    before = note.read_bytes()
    rename = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "kg_rename_entity",
            "arguments": {"entityId": "person:andrei_clodius", "newName": "Pwned"},
        },
    }
    no_token = _post(server, {}, json.dumps(rename).encode())
    assert no_token.status_code == 401
    assert no_token.headers["www-authenticate"].startswith("Bearer")
    assert _post(server, {"authorization": "Bearer wrong"}).status_code == 401
    auth = {"authorization": f"Bearer {token}"}
    assert _post(server, {**auth, "origin": "http://evil.example"}).status_code == 403
    assert _post(server, {**auth, "host": f"evil.example:{server.port}"}).status_code == 421
    assert _post(server, auth, b"x" * (MAX_BODY + 1)).status_code == 413
    assert note.read_bytes() == before
    assert runtime.call("kg_get_entity", {"entityId": "person:andrei_clodius"})["ok"]
    own_origin = _post(server, {**auth, "origin": f"http://localhost:{server.port}"})
    assert own_origin.status_code == 200


def test_token_is_private_and_stable(tmp_path: Path) -> None:
    first = load_token(tmp_path / "idx")
    assert stat.S_IMODE(token_path(tmp_path / "idx").stat().st_mode) == 0o600
    assert load_token(tmp_path / "idx") == first and len(first) >= 40


def test_bind_rules(runtime: VaultRuntime) -> None:
    assert parse_bind("8765") == ("127.0.0.1", 8765)
    assert parse_bind("[::1]:9") == ("::1", 9)
    with pytest.raises(HttpConfigError, match="port"):
        parse_bind("host:http")
    with pytest.raises(HttpConfigError, match="--allow-remote"):
        HttpServer(runtime, "0.0.0.0", 0, "t")


def test_cli_show_token(tmp_path: Path, runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    shown = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", "mcp", "--vault", str(vault), "--show-token"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
        timeout=120,
    )
    assert shown.stdout.strip() == load_token(runtime.settings.index_dir)


def test_cli_serves_http_and_stops_cleanly_on_sigterm(
    tmp_path: Path, indexed_example: Settings
) -> None:
    """`kbtui mcp --http 127.0.0.1:0` as a user starts it: the URL it prints answers the SDK
    client with the token; SIGTERM closes the index and exits 0."""
    vault = copy_indexed(indexed_example.vault, tmp_path / "vault")
    cmd = [sys.executable, "-m", "kbtui.cli", "mcp", "--vault", str(vault)]
    proc = subprocess.Popen(
        [*cmd, "--http", "127.0.0.1:0", "--no-watch"],
        cwd=REPO,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stderr is not None
        url = ""
        for line in proc.stderr:  # the line is printed once the socket listens
            found = re.search(r"kbtui MCP at (http://\S+/mcp)", line)
            if found:
                url = found.group(1)
                break
        assert url.startswith("http://localhost:")
        token = load_token(Settings.for_vault(vault).index_dir)
        names, answer = anyio.run(_list_and_call, url, token)
        assert set(names) == set(PUBLISHED) and answer["ok"]
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 0
        assert "closed the index" in rest and "Traceback" not in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_http_through_the_vaults_owner(settings: Settings) -> None:
    """An HTTP server opened while another handle owns the vault serves through that owner
    (the shared-vault socket), as stdio does."""
    first = open_vault(settings, HashEmbedder, watch=False)
    try:
        assert first.runtime is not None and first.runtime.worker.wait_idle(120)
        with open_vault(settings, HashEmbedder, watch=False) as second:
            assert second.role == "client"
            server = HttpServer(second, "127.0.0.1", 0, load_token(settings.index_dir))
            server.start()
            try:
                url = f"http://127.0.0.1:{server.port}/mcp"
                names, answer = anyio.run(_list_and_call, url, load_token(settings.index_dir))
            finally:
                server.stop()
        assert answer["ok"] and "kg_rename_entity" in names
        assert first.call("kg_get_entity", {"entityId": "person:andrei_clodius"})["ok"]
    finally:
        first.close()
