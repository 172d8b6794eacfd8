"""A deadline for each request's head (request line and headers), which uvicorn lacks.

uvicorn's h11 protocol waits for a head for ever: a client that connects and sends nothing,
or sends its headers a byte at a time, holds a socket (and a place under the connection
limit) as long as it likes; its keep-alive timer stops at the first byte. Here each head
must arrive whole within `seconds` of the connection opening, or of the previous answer on
a kept-alive connection. The clock is not reset by each byte, so dribbling does not help.
A client that sent part of a head gets 408 (a JSON-RPC error, as the guard's refusals);
one that sent nothing is closed quietly, as an idle keep-alive connection is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from kbtui.mcp.guard import HEAD_SECONDS, error_body, requests_log

log = logging.getLogger("kbtui.mcp")


class HeadBound(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head (module doc)."""

    head_seconds = HEAD_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_from = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head arrived: the app has it
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request on this connection has its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_from = time.monotonic()
        self._head_timer = self.loop.call_later(self.head_seconds, self._late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        partial, _ = self.conn.trailing_data
        if partial:
            why = f"the request head did not arrive within {self.head_seconds:g} s"
            body = error_body(why)
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
            )
            ms = (time.monotonic() - self._head_from) * 1000
            requests_log.info("- head tool=- status=408 ms=%.1f", ms)
            log.info("dropped a client whose request head was not whole in %g s", self.head_seconds)
        self.transport.close()


def head_bound(seconds: float) -> type[HeadBound]:
    """The protocol class for uvicorn's `http` option, with this deadline."""
    return type("HeadBound", (HeadBound,), {"head_seconds": seconds})
