"""What every HTTP request passes before the SDK sees it, and the request log.

Refused before anything runs (a JSON-RPC error body, `id` null, with the HTTP status):
- Host must name this server (a DNS-rebinding page sends its own host name) -> 421;
- Origin, when a browser sends one, must be this server -> 403;
- a bearer token -> 401; the read-only one (when the server has it) marks the request, so
  its calls run read-only (kbtui.mcp.scope);
- the body may not pass `max_body` bytes (declared or sent) -> 413;
- the body must arrive whole within `body_seconds` -> 408: a client that never finishes its
  body holds no worker and no session, only its socket until then (the head before it has
  `head_seconds`, kept by the HTTP protocol: kbtui.mcp.head).
The body is read here (bounded) and handed on, so the log can name the JSON-RPC method and
tool. Every send of the answer must be taken by the client within `send_seconds`: a reader
that never reads is cut off, and with it everything its answer held.

One line per request goes to the request log: HTTP method, JSON-RPC method, tool, status,
milliseconds. Never a header (the token), never arguments.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kbtui.mcp.scope import READ_ONLY_KEY

log = logging.getLogger("kbtui.mcp")
requests_log = logging.getLogger("kbtui.mcp.requests")

MCP_PATH = "/mcp"
HEAD_SECONDS = 10.0
BODY_SECONDS = 10.0
SEND_SECONDS = 30.0
SEND_CHUNK = 64 * 1024  # an answer is sent in parts of this size, each within send_seconds
INVALID_REQUEST = -32600


@dataclass
class Limits:
    max_body: int
    body_seconds: float = BODY_SECONDS
    send_seconds: float = SEND_SECONDS
    head_seconds: float = HEAD_SECONDS  # request line and headers (kbtui.mcp.head)


class _BodyTooLarge(Exception):
    pass


class _ClientGone(Exception):
    pass


class _StalledReader(Exception):
    pass


@dataclass
class _Entry:
    """What the log says about one request."""

    method: str
    rpc: str = "-"
    tool: str = "-"
    status: int | str = "-"


class Guard:
    """Host, Origin, token, size and time checks in front of the SDK's app (module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        hosts: Sequence[str],
        limits: Limits,
        read_token: str | None = None,
    ) -> None:
        self.app = app
        self.token = token.encode()
        self.read_token = read_token.encode() if read_token else None  # read-only scope
        self.hosts = {h.lower() for h in hosts}
        self.origins = {f"{scheme}://{h}" for h in self.hosts for scheme in ("http", "https")}
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        entry = _Entry(scope["method"])
        try:
            await self._serve(scope, receive, send, entry)
        finally:
            ms = (time.monotonic() - started) * 1000
            requests_log.info(
                "%s %s tool=%s status=%s ms=%.1f", entry.method, entry.rpc, entry.tool,
                entry.status, ms,
            )  # fmt: skip

    async def _serve(self, scope: Scope, receive: Receive, send: Send, entry: _Entry) -> None:
        headers = {k.decode("latin-1").lower(): v for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, message, extra = refusal
            entry.status = status
            log.info("refused %s %s: %s", scope["method"], scope["path"], message)
            await _error(send, status, message, extra)
            return
        if scope["method"] == "POST":
            try:
                with anyio.fail_after(self.limits.body_seconds):
                    body = await _read_body(receive, self.limits.max_body)
            except TimeoutError:
                entry.status = 408
                why = f"the request body did not arrive within {self.limits.body_seconds:g} s"
                await _error(send, 408, why, [(b"connection", b"close")])
                return
            except _BodyTooLarge:
                entry.status = 413
                await _error(send, 413, f"request body over {self.limits.max_body} bytes", [])
                return
            except _ClientGone:
                entry.status = "gone"
                return
            entry.rpc, entry.tool = _describe(body)
            receive = _replay(body, receive)
        await self._pass_on(scope, receive, send, entry)

    async def _pass_on(self, scope: Scope, receive: Receive, send: Send, entry: _Entry) -> None:
        seconds = self.limits.send_seconds
        stalled = False

        async def bounded_send(message: Message) -> None:
            nonlocal stalled
            if stalled:  # e.g. the SDK answering its own failed send with an error: no more
                raise _StalledReader
            if message["type"] == "http.response.start":
                entry.status = message["status"]
            body = message.get("body", b"")
            if message["type"] == "http.response.body" and len(body) > SEND_CHUNK:
                # uvicorn waits for a slow reader only before a send, never after: a whole
                # answer in one send would sit in memory unbounded by `seconds`
                more = message.get("more_body", False)
                for at in range(0, len(body), SEND_CHUNK):
                    last = at + SEND_CHUNK >= len(body)
                    part = body[at : at + SEND_CHUNK]
                    await bounded_send({**message, "body": part, "more_body": more or not last})
                return
            try:
                with anyio.fail_after(seconds):
                    await send(message)
            except TimeoutError:
                stalled = True
                entry.status = "reader-stalled"  # caught below, wherever the SDK lets it go
                log.info("dropped a client that read nothing for %g s", seconds)
                raise _StalledReader from None

        try:
            await self.app(scope, receive, bounded_send)
        except Exception as exc:
            if not _stalled(exc):
                raise

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
        value = value.strip()
        full = scheme.lower() == b"bearer" and hmac.compare_digest(value, self.token)
        read = self.read_token is not None and hmac.compare_digest(value, self.read_token)
        if scheme.lower() != b"bearer" or not (full or read):
            why = "a bearer token is required (kbtui mcp --show-token)"
            return 401, why, [(b"www-authenticate", b'Bearer realm="kbtui"')]
        scope[READ_ONLY_KEY] = not full  # the read-only token: every call reads only
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limits.max_body):
            return 413, f"request body over {self.limits.max_body} bytes", []
        if scope["path"].rstrip("/") != MCP_PATH:
            return 404, f"the MCP endpoint is {MCP_PATH}", []
        return None


class QuietStalls(logging.Filter):
    """Drops the SDK's traceback for a stream cut off here (the request log has the line), and
    shortens the one for a message handed to a session that ended meanwhile (a client's DELETE
    racing its own `notifications/initialized`: the client already has its 202; a 1 h soak met
    it once) to one line: neither is a fault of the server's."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True
        if isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError):
            record.msg, record.args = (
                "%s: the session ended while its message arrived",
                (record.getMessage(),),
            )
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            return True
        return not _stalled(exc)


def _stalled(exc: BaseException) -> bool:
    """True when `exc` is (or a group holds only) the stalled-reader signal."""
    if isinstance(exc, _StalledReader):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_stalled(e) for e in exc.exceptions)
    return False


async def _read_body(receive: Receive, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body read here once, then the client's own (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _describe(body: bytes) -> tuple[str, str]:
    """The JSON-RPC method and tool name of a request body, for the log ("-" when none)."""
    try:
        message: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return "unreadable", "-"
    if isinstance(message, list):
        return f"batch[{len(message)}]", "-"
    if not isinstance(message, dict):
        return "unreadable", "-"
    method = message.get("method")
    params = message.get("params")
    tool = params.get("name") if isinstance(params, dict) and method == "tools/call" else None
    name = method if isinstance(method, str) else ("response" if "id" in message else "-")
    return _short(name), _short(tool) if isinstance(tool, str) else "-"


def _short(text: str) -> str:
    """A name fit for one log line: printable, no spaces, at most 64 characters."""
    return "".join(c if c.isprintable() and not c.isspace() else "?" for c in text[:64]) or "-"


async def _error(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]]) -> None:
    """A JSON-RPC error (no request id) as the SDK answers its own refusals."""
    body = error_body(message)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers + extra})
    await send({"type": "http.response.body", "body": body})


def error_body(message: str) -> bytes:
    """The body of a refusal: a JSON-RPC error with no request id."""
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
    return json.dumps(error).encode()
