"""The HTTP server's bounds, against a real server on 127.0.0.1 over a real index: a body that
never finishes, a reader that never reads, a call past its time bound, a queue of calls
behind a busy pool; sessions kept apart; and the token made once by racing processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from kbtui.mcp.guard import Limits
from kbtui.mcp.http import LOG_FILE, MAX_BODY, HttpServer, load_token, token_path
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import REPO


def read_response(sock: socket.socket) -> bytes:
    """One whole response (head and its content-length of body) from `sock`."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class Gated:
    """The runtime, with one tool's calls held until the test lets them go (a slow call)."""

    def __init__(self, runtime: VaultRuntime, tool: str) -> None:
        self.runtime, self.tool = runtime, tool
        self.gate = threading.Event()
        self.entered = threading.Semaphore(0)
        self.finished: list[str] = []

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        if name == self.tool:
            self.entered.release()
            self.gate.wait(60)
        answer = self.runtime.call(name, args)
        self.finished.append(name)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runtime, name)


def serve(handle: Any, tmp_path: Path, **options: Any) -> tuple[HttpServer, str]:
    token = load_token(tmp_path / "idx")
    server = HttpServer(handle, "127.0.0.1", 0, token, index_dir=tmp_path / "idx", **options)
    server.start()
    return server, token


@pytest.fixture
def stop_after() -> Iterator[list[HttpServer]]:
    servers: list[HttpServer] = []
    yield servers
    for server in servers:
        server.stop()


async def calls(url: str, token: str, work: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        out = []
        for name, args in work:
            result = await session.call_tool(name, args)
            out.append(result.structured_content)
        return out


def timed_search(url: str, token: str) -> tuple[float, dict[str, Any]]:
    started = time.monotonic()
    (answer,) = anyio.run(calls, url, token, [("kb_search", {"query": "watch", "top_k": 3})])
    return time.monotonic() - started, answer


def log_lines(tmp_path: Path) -> list[str]:
    return (tmp_path / "idx" / LOG_FILE).read_text(encoding="utf-8").splitlines()


def wait_for(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_body_that_never_finishes_is_cut_off_and_holds_nobody(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    """Others are served while a body hangs (one worker), and the hanging one gets 408."""
    server, token = serve(runtime, tmp_path, limits=Limits(MAX_BODY, body_seconds=20), workers=1)
    stop_after.append(server)
    stalled = socket.create_connection(("127.0.0.1", server.port))
    stalled.sendall(
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nauthorization: Bearer %s\r\n"
        b"content-type: application/json\r\naccept: application/json, text/event-stream\r\n"
        b'content-length: 5000\r\n\r\n{"jsonrpc": ' % (server.port, token.encode())
    )
    _, answer = timed_search(f"http://127.0.0.1:{server.port}/mcp", token)
    assert answer["ok"]
    stalled.setblocking(False)
    with pytest.raises(BlockingIOError):
        stalled.recv(1)  # still hanging (nothing answered yet) while the search was served
    stalled.settimeout(40)
    reply = read_response(stalled).decode()  # head and body may come in two segments
    stalled.close()
    assert reply.startswith("HTTP/1.1 408")
    error = json.loads(reply.split("\r\n\r\n", 1)[1])
    assert "did not arrive within 20 s" in error["error"]["message"]
    wait_for(lambda: any("status=408" in line for line in log_lines(tmp_path)))


def test_a_body_over_the_limit_without_a_length_is_refused(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    server, token = serve(runtime, tmp_path, limits=Limits(4096))
    stop_after.append(server)

    def chunks() -> Iterator[bytes]:  # chunked: no content-length to refuse up front
        for _ in range(10):
            yield b"x" * 1000

    with httpx2.Client(timeout=30) as http:
        answer = http.post(
            f"http://127.0.0.1:{server.port}/mcp",
            content=chunks(),
            headers={**ACCEPT, "authorization": f"Bearer {token}"},
        )
    assert answer.status_code == 413
    assert "over 4096 bytes" in answer.json()["error"]["message"]


def _open_session(port: int, token: str) -> str:
    """A session opened over plain HTTP (initialize + initialized); its id."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    headers = {**ACCEPT, "authorization": f"Bearer {token}"}
    with httpx2.Client(timeout=30) as http:
        url = f"http://127.0.0.1:{port}/mcp"
        opened = http.post(url, json=init, headers=headers)
        session = opened.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        headers = {**headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        assert http.post(url, json=done, headers=headers).status_code == 202
    return session


def server_end_open(server_port: int, client_port: int) -> bool:
    """Whether the kernel still has the server's end of this connection (Linux's table of
    TCP sockets: a connection dropped by TCP_USER_TIMEOUT leaves it)."""
    here, there = f":{server_port:04X}", f":{client_port:04X}"
    rows = (line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:])
    return any(row[1].endswith(here) and row[2].endswith(there) for row in rows)


def test_a_reader_that_never_reads_is_cut_off_and_holds_nobody(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    """A 4 MB note asked for by a client that reads nothing: the answer cannot all be
    sent; the one worker is free for the others, and the stalled connection is dropped."""
    big = runtime.settings.vault / "big.md"
    big.write_text("# Big\n\n" + ("the quick brown fox jumps over the lazy dog\n" * 95_000))
    runtime.reindex(embed=False)
    recorder = Gated(runtime, tool="")  # records finished calls, holds none
    limits = Limits(MAX_BODY, send_seconds=1.5)
    server, token = serve(recorder, tmp_path, limits=limits, workers=1)
    stop_after.append(server)
    session = _open_session(server.port, token)
    call = json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "kb_get", "arguments": {"id": "note:big"}}}
    ).encode()  # fmt: skip
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reader.connect(("127.0.0.1", server.port))
    reader.sendall(
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nauthorization: Bearer %s\r\n"
        b"content-type: application/json\r\naccept: application/json, text/event-stream\r\n"
        b"mcp-session-id: %s\r\nmcp-protocol-version: 2025-06-18\r\ncontent-length: %d\r\n\r\n"
        % (server.port, token.encode(), session.encode(), len(call))
        + call
    )
    wait_for(lambda: "kb_get" in recorder.finished, 60)  # the answer left the one worker
    for _ in range(3):  # so the worker is free for the others
        _, answer = timed_search(f"http://127.0.0.1:{server.port}/mcp", token)
        assert answer["ok"]
    wait_for(lambda: any("reader-stalled" in line for line in log_lines(tmp_path)), 30)
    # the kernel's zero-window probes find the bound passed and drop the server's end: wait
    # for that itself (the probes back off: 2-8 s); reading first would open the window
    wait_for(lambda: not server_end_open(server.port, reader.getsockname()[1]), 60)
    reader.settimeout(10)
    received = 0
    try:
        while chunk := reader.recv(1 << 20):
            received += len(chunk)
    except ConnectionResetError:
        pass
    reader.close()
    whole = 2 * big.stat().st_size  # the note's text twice: text content and structured
    assert received < 0.9 * whole  # never all sent: the connection was dropped
    assert any("tools/call tool=kb_get status=reader-stalled" in x for x in log_lines(tmp_path))


def test_a_call_past_its_bound_is_answered_and_finishes_whole(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    """One worker, a bound of 1 s: the held call is answered TRANSIENT at the bound ("still
    running"), the call queued behind it "was not run", and once let go the held call
    completes on its thread; the next call is served normally."""
    gated = Gated(runtime, "kb_search")
    server, token = serve(gated, tmp_path, call_seconds=1.0, workers=1)
    stop_after.append(server)
    url = f"http://127.0.0.1:{server.port}/mcp"
    got: dict[str, Any] = {}

    def held() -> None:
        got["held"] = anyio.run(calls, url, token, [("kb_search", {"query": "watch"})])[0]

    first = threading.Thread(target=held)
    first.start()
    assert gated.entered.acquire(timeout=20)
    (queued,) = anyio.run(calls, url, token, [("kb_get", {"id": "person:andrei_clodius"})])
    first.join(30)
    assert got["held"]["error"]["type"] == "TRANSIENT"
    assert "still running and will finish" in got["held"]["message"]
    assert queued["error"]["type"] == "TRANSIENT" and "it was not run" in queued["message"]
    assert queued["error"]["retryable"] is True
    gated.gate.set()
    wait_for(lambda: "kb_search" in gated.finished)
    assert "kb_get" not in gated.finished  # withdrawn, never run
    (after,) = anyio.run(calls, url, token, [("kb_get", {"id": "person:andrei_clodius"})])
    assert after["ok"]


async def _two_sessions(url: str, token: str) -> tuple[bool, int]:
    headers = {"authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with (
            streamable_http_client(url, http_client=http) as (r1, w1),
            ClientSession(r1, w1) as one,
        ):
            await one.initialize()
            async with (
                streamable_http_client(url, http_client=http) as (r2, w2),
                ClientSession(r2, w2) as two,
            ):
                await two.initialize()
                listed = await two.list_tools()
                assert listed.tools
            # `two` ended (DELETE): `one` goes on
            answer = await one.call_tool("kb_search", {"query": "watch", "top_k": 2})
            assert answer.structured_content is not None
            ok = bool(answer.structured_content["ok"])
        forged = await http.post(
            url,
            json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
            headers={**ACCEPT, "mcp-session-id": "0" * 32, "mcp-protocol-version": "2025-06-18"},
        )
        return ok, forged.status_code


def test_sessions_are_kept_apart(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    server, token = serve(runtime, tmp_path)
    stop_after.append(server)
    ok, forged = anyio.run(_two_sessions, f"http://127.0.0.1:{server.port}/mcp", token)
    assert ok and forged == 404


RACER = """
import sys, time
from pathlib import Path
from kbtui.mcp.files import load_token
start = float(sys.argv[2])
while time.time() < start:
    pass
print(load_token(Path(sys.argv[1])))
"""


@pytest.mark.parametrize("state", ["missing", "empty"])
def test_servers_starting_together_end_with_one_token(tmp_path: Path, state: str) -> None:
    """Six processes at the same instant over a missing or empty token file, five times:
    every one reads the token that is in the file afterwards."""
    for round_no in range(5):
        index_dir = tmp_path / f"idx{round_no}"
        index_dir.mkdir()
        if state == "empty":
            token_path(index_dir).write_text("")
        start = time.time() + 1.5
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", RACER, str(index_dir), str(start)],
                cwd=REPO,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        tokens = {p.communicate(timeout=60)[0].strip() for p in procs}
        assert all(p.returncode == 0 for p in procs)
        assert tokens == {token_path(index_dir).read_text().strip()}
