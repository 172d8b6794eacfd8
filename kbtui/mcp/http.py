"""MCP over Streamable HTTP (the SDK's session manager), safe by default and bounded.

Several clients share one server without a hand-started daemon, through the same owner of
the vault as stdio. A local HTTP port is reachable by every web page the user opens, so
every request passes `kbtui.mcp.guard.Guard` (Host, Origin, token, body size and time) before
the SDK sees it, and a refused request reaches neither the SDK nor the vault. Binding
anything but loopback needs `allow_remote`.

Bounds, so no client can hold the server: a request's head must arrive within 10 s and its
body within 10 s more (kbtui.mcp.head, kbtui.mcp.guard); tool calls run on a fixed pool of
threads and are answered within `call_seconds` (kbtui.mcp.bounded); at most MAX_SESSIONS
sessions (503 beyond, the SDK's answer) and MAX_CONNECTIONS connections (uvicorn's 503); an
idle session ends after SESSION_IDLE seconds. Each request is logged to a rotating file in the index
folder (mcp-http.log), never with its token.

The listening socket is bound before the server starts, so a client may connect at once
(the connection waits in the backlog) and no caller waits for "ready".
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import threading
from collections.abc import Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path

import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from kbtui.mcp.bounded import CALL_SECONDS, WORKERS, BoundedCalls
from kbtui.mcp.files import (
    LOG_FILE,
    READ_TOKEN_FILE,
    TOKEN_FILE,
    TokenError,
    drop_record,
    live_record,
    load_token,
    token_path,
    write_record,
)
from kbtui.mcp.guard import MCP_PATH, Guard, Limits, QuietStalls, requests_log
from kbtui.mcp.head import head_bound
from kbtui.mcp.scope import McpScope
from kbtui.mcp.server import build_server
from kbtui.runtime.runtime import VaultHandle

__all__ = ["MCP_PATH", "READ_TOKEN_FILE", "TOKEN_FILE", "TokenError", "load_token", "token_path"]

log = logging.getLogger("kbtui.mcp")
logging.getLogger("mcp.server.streamable_http").addFilter(QuietStalls())
MAX_BODY = 1024 * 1024  # the largest tool argument (100k characters of text) fits with room
DEFAULT_HOST = "127.0.0.1"
MAX_SESSIONS = 256  # assistants and people at once; each idle session costs ~20 KB
MAX_CONNECTIONS = 1024  # a session's open GET stream is one of them
SESSION_IDLE = 30 * 60.0  # seconds without a request before a session is forgotten
LOG_BYTES = 1_000_000  # the request log rotates past this, keeping LOG_KEEP old files
LOG_KEEP = 3


class HttpConfigError(ValueError):
    """A bind address or option that cannot be served; the message says why."""


def parse_bind(spec: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[V6]:PORT` -> (host, port); loopback when no host is given."""
    host, sep, port_text = spec.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, spec
    host = host.strip("[]") or DEFAULT_HOST
    try:
        port = int(port_text)
    except ValueError:
        raise HttpConfigError(f"{spec!r}: the port must be a number") from None
    if not 0 <= port <= 65535:
        raise HttpConfigError(f"{spec!r}: the port must be 0-65535")
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int, extra: Sequence[str] = ()) -> list[str]:
    """Host header values this server answers to."""
    names = {"localhost", "127.0.0.1", "[::1]"} if is_loopback(host) else set()
    if not is_loopback(host):
        if host not in ("0.0.0.0", "::"):
            names.add(f"[{host}]" if ":" in host else host)
        names.update({socket.gethostname(), socket.getfqdn()})
    names.update(extra)
    return sorted(f"{n}:{port}" for n in names)


def build_app(
    handle: VaultHandle,
    token: str,
    hosts: Sequence[str],
    calls: BoundedCalls,
    limits: Limits,
    read_token: str | None = None,
    scope: McpScope | None = None,
) -> ASGIApp:
    """The guarded ASGI app: every tool and resource of the stdio server, over HTTP;
    requests with `read_token` only read."""
    origins = [f"{s}://{h}" for h in hosts for s in ("http", "https")]
    manager = StreamableHTTPSessionManager(
        build_server(handle, calls.run, scope),
        security_settings=TransportSecuritySettings(
            allowed_hosts=list(hosts), allowed_origins=origins
        ),
        max_request_body_size=limits.max_body,
        session_idle_timeout=SESSION_IDLE,
        max_sessions=MAX_SESSIONS,
        # each answer as one JSON body rather than an SSE stream of one event: half the
        # event loop's CPU a call (load_http.py --cpu). A tool here sends nothing before its
        # answer (no progress, no request to the client), so nothing is lost; the session's
        # own GET stream is still SSE.
        json_response=True,
    )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(manager, receive, send)
        else:
            await manager.handle_request(scope, receive, send)

    return Guard(app, token, hosts, limits, read_token)


async def _lifespan(manager: StreamableHTTPSessionManager, receive: Receive, send: Send) -> None:
    """Run the session manager for the server's lifetime (its task group owns the sessions)."""
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with manager.run():
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
    await send({"type": "lifespan.shutdown.complete"})


def _abort_unread(sock: socket.socket, seconds: float) -> None:
    """Connections accepted on `sock` are dropped by the kernel when what was sent stays
    unread (or unacknowledged) for `seconds`: an answer handed to the socket has left the
    SDK, and a client that never reads would otherwise keep it buffered here for ever."""
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if option is not None:  # Linux; elsewhere the send bound in the guard still applies
        sock.setsockopt(socket.IPPROTO_TCP, option, int(seconds * 1000))


def request_log(index_dir: Path) -> logging.Handler:
    """The rotating request log in the index folder (one line a request; see guard)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(
        index_dir / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_KEEP, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    return handler


class HttpServer:
    """One uvicorn server on a socket bound at construction (port 0: a free one). With
    `index_dir` it logs each request there and records itself for a second server."""

    def __init__(
        self,
        handle: VaultHandle,
        host: str,
        port: int,
        token: str,
        *,
        allow_remote: bool = False,
        extra_hosts: Sequence[str] = (),
        index_dir: Path | None = None,
        limits: Limits | None = None,
        call_seconds: float = CALL_SECONDS,
        workers: int = WORKERS,
        read_token: str | None = None,
        scope: McpScope | None = None,
    ) -> None:
        if not is_loopback(host) and not allow_remote:
            raise HttpConfigError(
                f"{host} is reachable from other machines; pass --allow-remote to serve it"
            )
        self.index_dir = index_dir
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            _abort_unread(self.socket, (limits or Limits(MAX_BODY)).send_seconds)
            self.socket.bind((host, port))
            self.socket.listen(128)
        except OSError as exc:
            self.socket.close()
            raise HttpConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror}{self._holder()}"
            ) from exc
        self.host, self.port = host, int(self.socket.getsockname()[1])
        self.hosts = allowed_hosts(host, self.port, extra_hosts)
        self.calls = BoundedCalls(workers, call_seconds)
        limits = limits or Limits(MAX_BODY)
        config = uvicorn.Config(
            build_app(handle, token, self.hosts, self.calls, limits, read_token, scope),
            http=head_bound(limits.head_seconds),  # h11, with a deadline for each head
            lifespan="on",
            log_level="warning",
            timeout_graceful_shutdown=3,
            access_log=False,
            limit_concurrency=MAX_CONNECTIONS,
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._log: logging.Handler | None = None

    def _holder(self) -> str:
        """Who serves this vault over HTTP already, if anyone (for an error message)."""
        if self.index_dir is None:
            return ""
        record = live_record(self.index_dir)
        if not record:
            return ""
        return f" (kbtui process {record.get('pid')} serves this vault at {record.get('url')})"

    @property
    def url(self) -> str:
        shown = "localhost" if is_loopback(self.host) else self.host
        return f"http://{shown}:{self.port}{MCP_PATH}"

    def other_server(self) -> str | None:
        """Where another live kbtui process serves this vault over HTTP, if one does."""
        record = live_record(self.index_dir) if self.index_dir is not None else {}
        return f"{record.get('url')} (kbtui process {record.get('pid')})" if record else None

    def serve(self) -> None:
        """Serve on this thread until SIGINT/SIGTERM (uvicorn handles them on the main thread)."""
        self._open_log()
        try:
            with contextlib.closing(self.socket):
                self.server.run(sockets=[self.socket])
        finally:
            self.calls.close()
            self._close_log()

    def _open_log(self) -> None:
        if self.index_dir is None:
            return
        self._log = request_log(self.index_dir)
        requests_log.addHandler(self._log)
        requests_log.setLevel(logging.INFO)
        requests_log.propagate = False  # one line a request: the file, not stderr
        if self.other_server() is None:
            write_record(self.index_dir, self.url)

    def _close_log(self) -> None:
        if self.index_dir is not None:
            drop_record(self.index_dir)
        if self._log is not None:
            requests_log.removeHandler(self._log)
            self._log.close()
            self._log = None

    def start(self) -> None:
        """Serve from a background thread (tests, embedding); `stop` ends it."""
        self._thread = threading.Thread(target=self.serve, name="mcp-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the server to finish (open streams are closed) and wait for its thread."""
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None
