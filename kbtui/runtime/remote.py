"""The client side of a shared vault: `RemoteVault` speaks to the owner over its socket.

It implements `VaultHandle` for one owner. When that owner goes away it raises `OwnerGone`,
saying whether the request can have run (`maybe_done`): `SharedVault` then takes over and
repeats what is safe to repeat.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbtui.config import Settings
from kbtui.models import IndexReport, Skipped
from kbtui.runtime.owner import (
    MAX_ANSWER,
    PROTOCOL,
    OwnerUnavailable,
    candidate_sockets,
    encode,
    peer_uid,
)
from kbtui.tools.write.origin import current

log = logging.getLogger("kbtui.remote")

CONNECT_TIMEOUT = 5.0


class OwnerGone(Exception):
    """The owner closed or died. `maybe_done`: the request reached it and may have run."""

    def __init__(self, message: str, maybe_done: bool) -> None:
        super().__init__(message)
        self.maybe_done = maybe_done


class RemoteError(Exception):
    """The owner answered with a protocol error (a bug on one side, not a tool failure)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class _Connection:
    """One socket to the owner, one request at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines = sock.makefile("rb")
        self.next_id = 0

    def exchange(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        try:
            self.sock.sendall(encode({"id": self.next_id, "method": method, "params": params}))
        except OSError as exc:  # the owner stopped reading: an incomplete line is never run
            raise OwnerGone(f"the owner is gone ({exc})", maybe_done=False) from None
        try:
            line = self.lines.readline(MAX_ANSWER + 1)
        except OSError as exc:
            raise OwnerGone(f"the owner is gone ({exc})", maybe_done=True) from None
        if not line.endswith(b"\n"):
            if len(line) > MAX_ANSWER:
                raise RemoteError("too_large", "the answer is over the limit")
            raise OwnerGone("the owner closed the connection", maybe_done=True)
        answer = json.loads(line)
        if answer.get("id") not in (self.next_id, None):
            raise RemoteError("protocol", f"answer {answer.get('id')} to request {self.next_id}")
        if "error" in answer:
            code, message = answer["error"].get("code", "?"), answer["error"].get("message", "")
            if code == "owner_closing":
                raise OwnerGone(message, maybe_done=False)
            raise RemoteError(code, message)
        return answer["result"]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.lines.close()
            self.sock.close()


def dial(path: Path, index_dir: Path) -> tuple[_Connection, dict[str, Any]] | None:
    """Connect and say hello; None when nobody (or a closing owner) answers at `path`."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(str(path))
        uid = peer_uid(sock)
        if uid is not None and uid != os.getuid():
            raise OwnerUnavailable(f"{path} belongs to another user (uid {uid}); not using it")
        conn = _Connection(sock)
        hello = conn.exchange("hello", {"pid": os.getpid()})
        sock.settimeout(None)
    except (OSError, OwnerGone, RemoteError, ValueError):
        sock.close()
        return None
    except BaseException:
        sock.close()
        raise
    if hello.get("protocol") != PROTOCOL:
        conn.close()
        raise OwnerUnavailable(
            f"the vault is open in a kbtui process (pid {hello.get('pid')}) of another "
            f"version (protocol {hello.get('protocol')}); close it or use the same version"
        )
    if Path(hello.get("index_dir", "")) != index_dir:
        conn.close()
        return None  # a stale socket path now used for another vault
    return conn, hello


class RemoteVault:
    """`VaultHandle` over the owner's socket; a small pool of connections so that calls from
    several threads (the MCP server's, the TUI's workers) do not queue behind each other."""

    def __init__(self, settings: Settings, path: Path, hello: dict[str, Any]) -> None:
        self.settings = settings
        self.path = path
        self.owner_pid = int(hello["pid"])
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        self._monitor: _Connection | None = None

    @classmethod
    def connect(cls, settings: Settings) -> RemoteVault | None:
        """The owner's handle if one answers at any place it may listen, else None."""
        for path in candidate_sockets(settings.index_dir):
            dialed = dial(path, settings.index_dir)
            if dialed is not None:
                remote = cls(settings, path, dialed[1])
                remote._idle.append(dialed[0])
                return remote
        return None

    # -- VaultHandle ---------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """The call run by the owner as this thread's origin (history names the writer, the
        owner enforces its scope)."""
        params = {"name": name, "args": args, "origin": current().as_dict()}
        result: dict[str, Any] = self.request("call", params)
        return result

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]:
        page = self.request("note_page", {"start": start, "size": size})
        return page["notes"], int(page["total"])

    def status(self) -> dict[str, Any]:
        result: dict[str, Any] = self.request("status", {})
        return result

    def reindex(self, embed: bool = True) -> IndexReport:
        data = self.request("reindex", {"embed": embed})
        return IndexReport(
            new=data["new"],
            changed=data["changed"],
            deleted=data["deleted"],
            renamed=[(a, b) for a, b in data["renamed"]],
            unchanged=data["unchanged"],
            skipped=[Skipped(**s) for s in data["skipped"]],
            warnings=[Skipped(**w) for w in data["warnings"]],
            chunks_embedded=data["chunks_embedded"],
            seconds=data["seconds"],
        )

    # -- plumbing ------------------------------------------------------------------------
    def request(self, method: str, params: dict[str, Any]) -> Any:
        conn = self._checkout()
        try:
            result = conn.exchange(method, params)
        except BaseException:
            conn.close()
            raise
        with self._lock:
            if self._closed:
                conn.close()
            else:
                self._idle.append(conn)
        return result

    def _checkout(self) -> _Connection:
        with self._lock:
            if self._closed:
                raise OwnerGone("this handle is closed", maybe_done=False)
            if self._idle:
                return self._idle.pop()
        dialed = dial(self.path, self.settings.index_dir)
        if dialed is None:
            raise OwnerGone(f"no owner answers at {self.path}", maybe_done=False)
        return dialed[0]

    def watch(self, on_gone: Callable[[], None]) -> bool:
        """Call `on_gone` (in a thread of its own) when the owner exits: a connection that
        never sends sees end-of-file when the owner closes it or its process dies. False
        when the owner is gone already."""
        dialed = dial(self.path, self.settings.index_dir)
        if dialed is None:
            return False
        self._monitor = dialed[0]

        def wait() -> None:
            with contextlib.suppress(OSError):
                while dialed[0].sock.recv(4096):
                    pass
            if not self._closed:
                on_gone()

        threading.Thread(target=wait, name="owner-watch", daemon=True).start()
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns, self._idle = self._idle, []
        if self._monitor is not None:
            with contextlib.suppress(OSError):
                self._monitor.sock.shutdown(socket.SHUT_RDWR)
            self._monitor.close()
        for conn in conns:
            conn.close()
