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
import sys
import warnings
from types import FrameType
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server

from kbtui.mcp.server import build_server
from kbtui.runtime.shared import SharedVault

log = logging.getLogger("kbtui.mcp")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"


def claim_stdout() -> BinaryIO:
    """Take fd 1 for the protocol: returns a private duplicate and sends fd 1 to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol_fd, "wb")


def setup_logging(level: str = "info", log_file: str | None = None) -> None:
    """Logs go to stderr (and a file if asked), never to stdout."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=level.upper(), format=LOG_FORMAT, handlers=handlers, force=True)
    # watchdog warns when `mkdir -p` creates nested folders faster than it adds watches; the
    # watches are fine, the warning is noise on every merge (.archive/merged/<folder>).
    warnings.filterwarnings("ignore", "Callback with id", RuntimeWarning, "watchdog")
    if level.lower() != "debug":  # the SDK logs every request at INFO
        for noisy in ("mcp", "httpx"):
            logging.getLogger(noisy).setLevel(logging.WARNING)


async def serve(handle: SharedVault, protocol_out: BinaryIO) -> None:
    """Serve MCP on stdin / `protocol_out` until the client closes stdin."""
    server = build_server(handle)
    text_out = io.TextIOWrapper(protocol_out, encoding="utf-8", newline="\n")
    async with stdio_server(stdout=anyio.wrap_file(text_out)) as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run_stdio(handle: SharedVault, protocol_out: BinaryIO) -> None:
    """Serve until stdin ends or SIGTERM/SIGINT, then shut down cleanly (the vault is already
    open: `open_vault` started its runtime, or connected to its owner)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # The stdin reader blocks in a thread that cannot be cancelled, so a signal closes
        # everything here and exits without waiting for the client to hang up.
        if handle.closing:
            return  # the main path is already shutting down; let it finish
        log.info("%s: shutting down", signal.Signals(signum).name)
        handle.close()
        logging.shutdown()
        os._exit(0)

    previous: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, on_signal)
    where = "" if handle.role == "owner" else f" through kbtui process {handle.owner_pid}"
    log.info("serving %s over MCP (stdio)%s", handle.settings.vault, where)
    try:
        anyio.run(serve, handle, protocol_out)
    finally:
        handle.close()
        for signum, h in previous.items():
            signal.signal(signum, h)
    runtime = handle.runtime
    if runtime is not None and runtime.worker.alive:  # still inside the model: do not let
        logging.shutdown()  # interpreter teardown race it
        os._exit(0)
