"""The owner's side of sharing a vault: where its socket lives, the wire format, the server.

DuckDB lets one process open the index file at a time. That process (the owner) serves its
`VaultHandle` on a Unix domain socket; every other kbtui process on the vault sends its
requests there, so one process writes the vault and the index. The DuckDB lock is the only
arbiter of who owns: whoever holds it may replace a stale socket, and nobody else binds.

Wire: one JSON object per line each way. Request `{"id", "method", "params"}`; answer
`{"id", "result"}` or `{"id", "error": {"code", "message"}}`. Methods: hello, call (`name`,
`args`, and the caller's `origin`: who it is and its scope, kbtui.tools.write.origin),
note_page, status, reindex. A request line is bounded; a malformed one gets an error answer
and the connection stays usable (an over-long one closes it), never the owner.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import selectors
import socket
import stat
import struct
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kbtui import interpreter
from kbtui.config import Settings
from kbtui.runtime.runtime import VaultClosed, VaultRuntime
from kbtui.store import StoreError
from kbtui.tools.write.origin import Origin, acting_as

log = logging.getLogger("kbtui.owner")

PROTOCOL = 1
SOCKET_NAME = "owner.sock"
RECORD_NAME = "owner.json"
MAX_SUN_PATH = 100  # bytes; sun_path holds 108 on Linux, 104 on macOS, with its NUL
MAX_REQUEST = 64 * 2**20  # a 10 MB note to import, JSON-escaped, fits with room
MAX_ANSWER = 512 * 2**20
MAX_PAGE = 10_000
CLOSE_GRACE = 2.0  # seconds for answers being computed when the owner closes


class OwnerUnavailable(StoreError):
    """The index is held by a process that does not answer (or cannot be reached safely)."""


# -- where the socket is -------------------------------------------------------------------
def preferred_socket(index_dir: Path) -> Path | None:
    """`<index dir>/owner.sock`, unless that path is too long for a Unix socket."""
    path = index_dir / SOCKET_NAME
    return path if len(os.fsencode(path)) <= MAX_SUN_PATH else None


def fallback_socket(index_dir: Path) -> Path:
    """A short path in a private per-user folder, keyed by a hash of the index folder."""
    key = hashlib.sha256(os.fsencode(index_dir.resolve())).hexdigest()[:20]
    return private_dir() / f"kbtui-{key}.sock"


def private_dir() -> Path:
    """$XDG_RUNTIME_DIR/kbtui, else <tmp>/kbtui-<uid>: a folder only this user may enter."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir() and len(os.fsencode(runtime)) <= 50:
        folder = Path(runtime) / "kbtui"
    else:
        folder = Path(tempfile.gettempdir()) / f"kbtui-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    st = folder.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise OwnerUnavailable(f"{folder} is not a folder of this user; refusing to use it")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def record_path(index_dir: Path) -> Path:
    return index_dir / RECORD_NAME


def read_record(index_dir: Path) -> dict[str, Any]:
    """What the owner wrote about itself (pid, socket); {} when there is none or it is bad."""
    return read_json_object(record_path(index_dir))


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object another process wrote; {} when missing, half-written or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def candidate_sockets(index_dir: Path) -> list[Path]:
    """Where an owner may listen: what its record says first, then the computed places."""
    found: list[Path] = []
    recorded = read_record(index_dir).get("socket")
    for path in (recorded and Path(recorded), preferred_socket(index_dir)):
        if path and path not in found:
            found.append(path)
    with contextlib.suppress(OSError, OwnerUnavailable):
        fallback = fallback_socket(index_dir)
        if fallback not in found:
            found.append(fallback)
    return found


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (Linux); None where the OS does not say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return int(struct.unpack("3i", raw)[1])


# -- wire ------------------------------------------------------------------------------------
def encode(message: dict[str, Any]) -> bytes:
    """One line of ASCII JSON: no raw newline can occur inside, odd strings survive."""
    return json.dumps(message, default=str, separators=(",", ":")).encode("ascii") + b"\n"


def error(request_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": code, "message": message}}


class BadRequest(ValueError):
    """A request that breaks the wire contract; answered, never raised further."""


# -- the server ------------------------------------------------------------------------------
class OwnerServer:
    """Serves a `VaultRuntime` on the vault's socket, one thread per connection.

    Closing is in two steps around closing the runtime (see `SharedVault.close`):
    `stop_accepting` (no new connections, new requests answered `owner_closing`: not run,
    retry at the next owner), then `close` once the index is released (answers being computed
    are sent first, then every connection is closed, which is how clients learn to take over).
    """

    def __init__(self, runtime: VaultRuntime) -> None:
        self.runtime = runtime
        self.settings: Settings = runtime.settings
        self.path: Path | None = None
        self._listener: socket.socket | None = None
        self._inode: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._cond = threading.Condition()
        self._closing = False
        self._inflight = 0
        self._conns: dict[socket.socket, int | None] = {}
        self._threads: list[threading.Thread] = []
        self._held = False

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> Path:
        """Bind (the preferred path, else the fallback), listen, record where; the caller
        must hold the index's DuckDB lock, which makes any socket already there stale."""
        problems: list[str] = []
        for path in self._places():
            try:
                self._listener = self._bind(path)
            except OSError as exc:  # e.g. a file system without sockets: try the next place
                problems.append(f"{path}: {exc}")
                continue
            self.path = path
            break
        if self._listener is None or self.path is None:
            raise OwnerUnavailable("cannot serve the vault on a socket: " + "; ".join(problems))
        self._write_record()
        # Registered here, not on the thread: a caller that stops at once would otherwise
        # close the listener before the thread registers it (a closed socket has fd -1).
        sel = selectors.DefaultSelector()
        sel.register(self._listener, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        thread = threading.Thread(
            target=self._accept_loop, args=(sel,), name="owner-accept", daemon=True
        )
        thread.start()
        self._threads.append(thread)
        # Other processes' calls run here beside this one's indexer, scans and event loop.
        interpreter.hold()
        self._held = True
        log.info("serving %s to other kbtui processes on %s", self.settings.vault, self.path)
        return self.path

    def _places(self) -> Iterator[Path]:
        preferred = preferred_socket(self.settings.index_dir)
        if preferred is not None:
            yield preferred
        yield fallback_socket(self.settings.index_dir)

    def _bind(self, path: Path) -> socket.socket:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # stale: its owner released the DuckDB lock we now hold
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            os.chmod(path, 0o600)  # before listen(): nobody can connect in between
            sock.listen(32)
        except OSError:
            sock.close()
            raise
        self._inode = path.stat().st_ino
        return sock

    def _write_record(self) -> None:
        record = record_path(self.settings.index_dir)
        tmp = record.with_name(f".{RECORD_NAME}.{os.getpid()}.tmp")
        data = {"pid": os.getpid(), "socket": str(self.path), "protocol": PROTOCOL}
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, record)

    @property
    def clients(self) -> list[int]:
        """Process ids of the other kbtui processes connected now."""
        with self._cond:
            return sorted({pid for pid in self._conns.values() if pid is not None})

    def stop_accepting(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._closing = True
        os.write(self._wake_w, b"x")
        if self._listener is not None:
            self._listener.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                if self.path.stat().st_ino == self._inode:
                    self.path.unlink()
        if read_record(self.settings.index_dir).get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                record_path(self.settings.index_dir).unlink()

    def close(self) -> None:
        """Let answers being computed go out, then close every connection."""
        self.stop_accepting()
        with self._cond:
            self._cond.wait_for(lambda: self._inflight == 0, CLOSE_GRACE)
            conns, threads = list(self._conns), list(self._threads)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + CLOSE_GRACE
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._held:
            self._held = False
            interpreter.release()

    # -- connections ---------------------------------------------------------------------
    def _accept_loop(self, sel: selectors.BaseSelector) -> None:
        assert self._listener is not None
        with sel:
            while not self._closing:
                for key, _ in sel.select():
                    if key.fileobj == self._wake_r or self._closing:
                        return
                    try:
                        conn, _ = self._listener.accept()
                    except OSError:
                        continue
                    self._admit(conn)

    def _admit(self, conn: socket.socket) -> None:
        uid = peer_uid(conn)
        if uid is not None and uid != os.getuid():
            log.warning("refused a connection from uid %s", uid)
            conn.close()
            return
        with self._cond:
            if self._closing:
                conn.close()
                return
            self._conns[conn] = None
            self._threads = [t for t in self._threads if t.is_alive()]
            thread = threading.Thread(
                target=self._serve, args=(conn,), name="owner-client", daemon=True
            )
            self._threads.append(thread)
        thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn, conn.makefile("rb") as lines:
                while True:
                    line = lines.readline(MAX_REQUEST + 1)
                    if len(line) > MAX_REQUEST:
                        conn.sendall(encode(error(None, "too_large", "request over the limit")))
                        return  # the rest of that line cannot be told from the next request
                    if not line.endswith(b"\n"):
                        return  # hung up, perhaps mid-request: a partial line is never run
                    conn.sendall(encode(self._answer(conn, line)))
        except OSError:
            pass  # the client went away
        finally:
            with self._cond:
                self._conns.pop(conn, None)

    def _answer(self, conn: socket.socket, line: bytes) -> dict[str, Any]:
        request_id: Any = None
        with self._cond:
            if self._closing:
                return error(None, "owner_closing", "the owner is closing; nothing was run")
            self._inflight += 1
        try:
            request = _parse(line)
            request_id = request.get("id")
            params = request.get("params")
            params = {} if params is None else params
            if not isinstance(params, dict):
                raise BadRequest("params must be an object")
            if request.get("method") == "hello":
                with self._cond:
                    self._conns[conn] = _int(params.get("pid"))
            return {"id": request_id, "result": self._dispatch(request.get("method"), params)}
        except BadRequest as exc:
            return error(request_id, "bad_request", str(exc))
        except VaultClosed:
            return error(request_id, "owner_closing", "the owner is closing; nothing was run")
        except Exception as exc:
            if self._closing:  # the index closed under a pass: it runs again at the next owner
                return error(request_id, "owner_closing", "the owner closed during the request")
            log.exception("owner request failed")
            return error(request_id, "internal", f"{type(exc).__name__}: {exc}")
        finally:
            with self._cond:
                self._inflight -= 1
                self._cond.notify_all()

    def _dispatch(self, method: Any, params: dict[str, Any]) -> Any:
        runtime = self.runtime
        if method == "hello":
            return {
                "protocol": PROTOCOL,
                "pid": os.getpid(),
                "vault": str(self.settings.vault),
                "index_dir": str(self.settings.index_dir),
            }
        if method == "call":
            name, args = params.get("name"), params.get("args")
            if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
                raise BadRequest("call takes a tool name and an args object")
            # who asks, with its scope; a request without one (optional in this protocol)
            # runs as the default origin, as a call made here would
            origin = Origin.from_dict(params.get("origin"))
            runtime.wait_until_read(name)  # before the lock: the first pass needs it
            with runtime.open_lock(name), acting_as(origin):  # closed: VaultClosed
                return runtime.call(name, args)
        if method == "note_page":
            start, size = _int(params.get("start")), _int(params.get("size"))
            if start is None or size is None or start < 0 or not 0 <= size <= MAX_PAGE:
                raise BadRequest(f"note_page takes start >= 0 and size 0..{MAX_PAGE}")
            notes, total = runtime.note_page(start, size)
            return {"notes": notes, "total": total}
        if method == "status":
            return {**runtime.status(), "clients": self.clients}
        if method == "reindex":
            embed = params.get("embed", True)
            if not isinstance(embed, bool):
                raise BadRequest("reindex takes embed: true or false")
            return asdict(runtime.reindex(embed=embed))
        raise BadRequest(f"unknown method {method!r}")


def _parse(line: bytes) -> dict[str, Any]:
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"not JSON: {exc}") from None
    if not isinstance(request, dict):
        raise BadRequest("a request is a JSON object")
    return request


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
