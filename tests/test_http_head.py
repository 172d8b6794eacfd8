"""The request head's deadline (kbtui.mcp.head), against a real server on 127.0.0.1: a client
that dribbles its headers a byte at a time, or connects and sends nothing, is closed once the
deadline passes, however often it sends, while other clients are served meanwhile."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

from kbtui.mcp.guard import Limits
from kbtui.mcp.http import MAX_BODY, HttpServer
from kbtui.runtime.runtime import VaultRuntime
from tests.test_http_limits import (
    log_lines,
    read_response,
    serve,
    stop_after,
    timed_search,
    wait_for,
)

__all__ = ["stop_after"]  # the fixture, used by name

HEAD = 4.0  # the deadline under test
BOUND = 60.0  # how long the test waits for a close before calling it a failure


class Dribbler:
    """A client sending a request head one byte every `pause` s, until the server closes the
    socket; what it read then and when (monotonic)."""

    def __init__(self, port: int, head: bytes, pause: float) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.head, self.pause = head, pause
        self.opened = time.monotonic()
        self.sent = 0
        self.reply = b""
        self.closed_at: float | None = None
        self.done = threading.Event()
        threading.Thread(target=self._send, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self) -> None:
        for byte in self.head:
            if self.done.wait(self.pause):
                return
            try:
                self.sock.sendall(bytes([byte]))
            except OSError:
                return
            self.sent += 1

    def _read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.reply += chunk
        except OSError:
            pass
        self.closed_at = time.monotonic()
        self.done.set()

    def close(self) -> None:
        self.done.set()
        self.sock.close()


def test_a_head_dribbled_byte_by_byte_is_cut_off_at_its_deadline(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    server, token = serve(runtime, tmp_path, limits=Limits(MAX_BODY, head_seconds=HEAD))
    stop_after.append(server)
    head = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\n" % server.port
    head += b"x-padding: " + b"a" * 400 + b"\r\n\r\n"  # > BOUND s at 0.2 s a byte
    dribbler = Dribbler(server.port, head, pause=0.2)
    silent = Dribbler(server.port, b"", pause=0.2)  # connects, never sends a byte
    try:
        # a normal client is served while both sockets are held
        _, answer = timed_search(f"http://127.0.0.1:{server.port}/mcp", token)
        assert answer["ok"]

        assert dribbler.done.wait(BOUND), "a dribbling client was never cut off"
        assert silent.done.wait(BOUND), "a silent client was never cut off"
    finally:
        dribbler.close()
        silent.close()
    assert dribbler.closed_at is not None and silent.closed_at is not None
    # it kept sending all along: the deadline counts from the connection, not the last byte
    assert 0 < dribbler.sent < len(head)
    assert dribbler.closed_at - dribbler.opened >= HEAD * 0.9
    reply = dribbler.reply.decode()
    assert reply.startswith("HTTP/1.1 408"), reply
    error = json.loads(reply.split("\r\n\r\n", 1)[1])
    assert f"head did not arrive within {HEAD:g} s" in error["error"]["message"]
    assert silent.reply == b""  # nothing sent, nothing answered: closed as an idle socket
    assert silent.closed_at - silent.opened >= HEAD * 0.9
    wait_for(lambda: any("head tool=- status=408" in line for line in log_lines(tmp_path)))


def test_a_kept_alive_connection_has_a_deadline_for_each_head(
    runtime: VaultRuntime, tmp_path: Path, stop_after: list[HttpServer]
) -> None:
    """After one answer on a connection, the next head must arrive whole in time too (the
    keep-alive timer stops at its first byte)."""
    server, _ = serve(runtime, tmp_path, limits=Limits(MAX_BODY, head_seconds=HEAD))
    stop_after.append(server)
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.settimeout(BOUND)
    try:
        # one whole request first (refused for its missing token: the head was whole)
        sock.sendall(b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\n\r\n" % server.port)
        assert read_response(sock).startswith(b"HTTP/1.1 401")
        opened = time.monotonic()
        sock.sendall(b"G")  # then the start of another, and nothing more
        rest = b""
        while chunk := sock.recv(65536):
            rest += chunk
        assert time.monotonic() - opened >= HEAD * 0.9
    finally:
        sock.close()
    assert rest.startswith(b"HTTP/1.1 408"), rest
