"""`kbtui mcp` as a process: a server driven by hand over raw JSON-RPC lines (stdout carries
the protocol only), shut down by stdin's end or SIGTERM, and an index that cannot open."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from mcp.types import LATEST_PROTOCOL_VERSION

from kbtui.store import Store
from tests.conftest import REPO
from tests.test_mcp import server_args


def small_vault(root: Path) -> Path:
    (root / "people").mkdir(parents=True)
    (root / "people" / "ada.md").write_text("# Ada\nAda Lovelace wrote the first program.\n")
    (root / "Home.md").write_text("# Home\nSee [[ada]].\n")
    return root


class Server:
    """A server process driven by hand over raw JSON-RPC lines; stderr goes to a file."""

    def __init__(self, vault: Path, *extra: str) -> None:
        self.log = vault.parent / "server.log"
        with open(self.log, "wb") as errlog:
            self.proc = subprocess.Popen(
                [sys.executable, *server_args(vault, *extra)],
                cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
            )  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.send(INITIALIZE)
        answer = self.receive(60)
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "kbtui"
        self.send({"method": "notifications/initialized"})

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 30) -> Any:
        line = self.lines.get(timeout=timeout)
        message = json.loads(line)  # every stdout line must be JSON-RPC
        assert message["jsonrpc"] == "2.0", line
        return message


INITIALIZE = {
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
               "clientInfo": {"name": "test", "version": "0"}},
}  # fmt: skip


def test_stdout_is_protocol_only_and_stdin_eof_shuts_down(tmp_path: Path) -> None:
    vault = small_vault(tmp_path / "vault")
    server = Server(vault, "--log-level", "debug")
    call = {"name": "kb_get", "arguments": {"id": "Bad Id"}}
    server.send({"id": 2, "method": "tools/call", "params": call})
    answer = server.receive()
    assert answer["id"] == 2 and answer["result"]["isError"] is True
    assert answer["result"]["structuredContent"]["error_type"] == "ValidationError"
    assert server.proc.stdin is not None
    server.proc.stdin.close()  # the client hangs up
    assert server.proc.wait(timeout=30) == 0
    assert server.lines.get(timeout=5) == b""  # nothing after the last answer
    log = server.log.read_text()
    assert "closed the index" in log and "Traceback" not in log
    Store(vault / ".kbtui" / "index.duckdb").close()  # released and readable


def test_sigterm_stops_the_indexer_and_closes_the_index(tmp_path: Path) -> None:
    vault = small_vault(tmp_path / "vault")
    server = Server(vault)
    os.kill(server.proc.pid, signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0
    log = server.log.read_text()
    assert "SIGTERM: shutting down" in log and "closed the index" in log, log
    Store(vault / ".kbtui" / "index.duckdb").close()


def test_an_index_that_cannot_open_is_each_calls_answer(tmp_path: Path) -> None:
    """The vault opens while `initialize` is answered; an index written by a newer kbtui
    is then the answer of every call (TRANSIENT, with the reason), not a dead server."""
    vault = small_vault(tmp_path / "vault")
    (vault / ".kbtui").mkdir()
    store = Store(vault / ".kbtui" / "index.duckdb")
    store.set_meta("schema_version", "999")
    store.close()
    server = Server(vault)  # initialize answered
    search = {"name": "kb_search", "arguments": {"query": "Ada Lovelace"}}
    server.send({"id": 2, "method": "tools/call", "params": search})
    answer = server.receive()["result"]["structuredContent"]
    assert answer["ok"] is False and answer["error"]["type"] == "TRANSIENT", answer
    assert "newer kbtui" in answer["message"], answer
    server.send({"id": 3, "method": "resources/read", "params": {"uri": "kbtui://status"}})
    status = json.loads(server.receive()["result"]["contents"][0]["text"])
    assert "newer kbtui" in status["index"]["state"]
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=30) == 0
    log = server.log.read_text()
    assert "cannot open the index" in log and "Traceback" not in log
