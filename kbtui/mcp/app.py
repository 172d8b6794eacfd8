"""Running the MCP server over stdio on a `SharedVault`: as the vault's owner it keeps the index
current in the background (a full incremental pass at start, then the watcher's batches) and
answers tool calls meanwhile; as a client it sends them to the owner (the TUI, another server)
and takes over when that one exits.

stdout carries the protocol and nothing else: fd 1 is pointed at stderr for the whole process
and the protocol is written to a private duplicate of it, so no stray print (ours, a
library's, a C extension's) can corrupt the stream.
"""

from __future__ import annotations

import io
import logging
import os
import signal
from types import FrameType
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server

from kbtui.interpreter import share_interpreter
from kbtui.mcp.scope import McpScope
from kbtui.mcp.server import build_server
from kbtui.runtime.shared import SharedVault

if TYPE_CHECKING:  # stdio never loads the HTTP stack
    from kbtui.mcp.http import HttpServer

log = logging.getLogger("kbtui.mcp")


async def serve(handle: SharedVault, protocol_out: BinaryIO, scope: McpScope | None = None) -> None:
    """Serve MCP on stdin / `protocol_out` until the client closes stdin."""
    server = build_server(handle, scope=scope)
    text_out = io.TextIOWrapper(protocol_out, encoding="utf-8", newline="\n")
    async with stdio_server(stdout=anyio.wrap_file(text_out)) as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run_stdio(handle: SharedVault, protocol_out: BinaryIO, scope: McpScope | None = None) -> None:
    """Serve until stdin ends or SIGTERM/SIGINT, then shut down cleanly. The vault may still
    be opening (`open_vault(background=True)`): `initialize` is answered meanwhile and the
    first tool call waits for it."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # The stdin reader blocks in a thread that cannot be cancelled, so a signal closes
        # everything here and exits without waiting for the client to hang up.
        if handle.closing:
            return  # the main path is already shutting down; let it finish
        log.info("%s: shutting down", signal.Signals(signum).name)
        handle.close()
        logging.shutdown()
        os._exit(0)

    share_interpreter()  # the owner's tool calls run beside its indexing and long work
    previous: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, on_signal)
    log.info("serving %s over MCP (stdio)", handle.settings.vault)
    try:
        anyio.run(serve, handle, protocol_out, scope)
    finally:
        handle.close()
        for signum, h in previous.items():
            signal.signal(signum, h)
    _exit_if_busy(handle)


def run_http(handle: SharedVault, server: HttpServer) -> None:
    """Serve Streamable HTTP until SIGINT/SIGTERM, then close the vault. uvicorn stops on
    either signal and raises it again once stopped: the handlers here take that second one
    so the vault is still closed cleanly."""
    share_interpreter()  # many clients' calls beside scans and saves
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    where = "" if handle.role == "owner" else f" through kbtui process {handle.owner_pid}"
    log.info("serving %s over MCP at %s%s", handle.settings.vault, server.url, where)
    try:
        server.serve()
    finally:
        handle.close()
        for signum, h in previous.items():
            signal.signal(signum, h)
    _exit_if_busy(handle)


def _exit_if_busy(handle: SharedVault) -> None:
    runtime = handle.runtime
    if runtime is not None and runtime.worker.alive:  # still inside the model: do not let
        logging.shutdown()  # interpreter teardown race it
        os._exit(0)
