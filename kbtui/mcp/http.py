"""MCP over Streamable HTTP (the SDK's session manager), safe by default.

Several clients share one server without a hand-started daemon, through the same owner of
the vault as stdio. A local HTTP port is reachable by every web page the user opens, so
every request passes a guard before the SDK sees it:
- Host must name this server (a DNS-rebinding page sends its own host name) -> 421;
- Origin, when a browser sends one, must be this server -> 403;
- a bearer token, created on first use and stored 0600 in the index folder -> 401;
- the body may not pass MAX_BODY bytes -> 413 (the SDK enforces it again while reading).
A refused request reaches neither the SDK nor the vault. Binding anything but loopback needs
`allow_remote`.

The listening socket is bound before the server starts, so a client may connect at once
(the connection waits in the backlog) and no caller waits for "ready".
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from kbtui.mcp.server import build_server
from kbtui.runtime.runtime import VaultHandle

log = logging.getLogger("kbtui.mcp")
MCP_PATH = "/mcp"
TOKEN_FILE = "mcp-token"
MAX_BODY = 1024 * 1024  # the largest tool argument (100k characters of text) fits with room
DEFAULT_HOST = "127.0.0.1"


class HttpConfigError(ValueError):
    """A bind address or option that cannot be served; the message says why."""


def token_path(index_dir: Path) -> Path:
    return index_dir / TOKEN_FILE


def load_token(index_dir: Path) -> str:
    """The bearer token of this vault's HTTP server, created (0600) on first use. The file
    appears whole (written aside, then linked into place), so two servers starting at once
    end up with the same token."""
    path = token_path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    for _ in range(3):
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)  # someone loosened it: others must not read it
            token = path.read_text(encoding="ascii").strip()
            if token:
                return token
            path.unlink()  # an empty file (an older, interrupted write): make a new one
        except FileNotFoundError:
            pass
        fd, tmp = tempfile.mkstemp(prefix=".mcp-token-", dir=index_dir)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secrets.token_urlsafe(32) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):  # another process won: read theirs
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    raise HttpConfigError(f"cannot create the token file {path}")


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


class Guard:
    """Host, Origin, token and size checks in front of the SDK's app (see module doc)."""

    def __init__(self, app: ASGIApp, token: str, hosts: Sequence[str], max_body: int) -> None:
        self.app = app
        self.token = token.encode()
        self.hosts = {h.lower() for h in hosts}
        self.origins = {f"{scheme}://{h}" for h in self.hosts for scheme in ("http", "https")}
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, message, extra = refusal
            log.info("refused %s %s: %s", scope["method"], scope["path"], message)
            await _plain(send, status, message, extra)
            return
        await self.app(scope, receive, send)

    def _refusal(
        self, scope: Scope, headers: dict[str, bytes]
    ) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        host = headers.get("host", b"").decode("latin-1").lower()
        if host not in self.hosts:
            return 421, "unknown Host (this server answers to its own address only)", []
        origin = headers.get("origin")
        if origin is not None and origin.decode("latin-1").lower() not in self.origins:
            return 403, "cross-origin requests are refused", []
        given = headers.get("authorization", b"")
        scheme, _, value = given.partition(b" ")
        if scheme.lower() != b"bearer" or not hmac.compare_digest(value.strip(), self.token):
            why = "a bearer token is required (kbtui mcp --show-token)"
            return 401, why, [(b"www-authenticate", b'Bearer realm="kbtui"')]
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, f"request body over {self.max_body} bytes", []
        if scope["path"].rstrip("/") != MCP_PATH:
            return 404, f"the MCP endpoint is {MCP_PATH}", []
        return None


async def _plain(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]]) -> None:
    body = (text + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers + extra})
    await send({"type": "http.response.body", "body": body})


def build_app(handle: VaultHandle, token: str, hosts: Sequence[str]) -> ASGIApp:
    """The guarded ASGI app: every tool and resource of the stdio server, over HTTP."""
    origins = [f"{s}://{h}" for h in hosts for s in ("http", "https")]
    manager = StreamableHTTPSessionManager(
        build_server(handle),
        security_settings=TransportSecuritySettings(
            allowed_hosts=list(hosts), allowed_origins=origins
        ),
        max_request_body_size=MAX_BODY,
    )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(manager, receive, send)
        else:
            await manager.handle_request(scope, receive, send)

    return Guard(app, token, hosts, MAX_BODY)


async def _lifespan(manager: StreamableHTTPSessionManager, receive: Receive, send: Send) -> None:
    """Run the session manager for the server's lifetime (its task group owns the sessions)."""
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with manager.run():
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
    await send({"type": "lifespan.shutdown.complete"})


class HttpServer:
    """One uvicorn server on a socket bound at construction (port 0: a free one)."""

    def __init__(
        self,
        handle: VaultHandle,
        host: str,
        port: int,
        token: str,
        *,
        allow_remote: bool = False,
        extra_hosts: Sequence[str] = (),
    ) -> None:
        if not is_loopback(host) and not allow_remote:
            raise HttpConfigError(
                f"{host} is reachable from other machines; pass --allow-remote to serve it"
            )
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((host, port))
            self.socket.listen(128)
        except OSError as exc:
            self.socket.close()
            raise HttpConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        self.host, self.port = host, int(self.socket.getsockname()[1])
        self.hosts = allowed_hosts(host, self.port, extra_hosts)
        config = uvicorn.Config(
            build_app(handle, token, self.hosts),
            lifespan="on",
            log_level="warning",
            timeout_graceful_shutdown=3,
            access_log=False,
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = "localhost" if is_loopback(self.host) else self.host
        return f"http://{shown}:{self.port}{MCP_PATH}"

    def serve(self) -> None:
        """Serve on this thread until SIGINT/SIGTERM (uvicorn handles them on the main thread)."""
        with contextlib.closing(self.socket):
            self.server.run(sockets=[self.socket])

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
