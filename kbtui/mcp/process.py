"""What an MCP server process sets up first, before the SDK is imported: stdout kept for the
protocol, logs on stderr. Light on purpose: the vault starts opening right after this."""

from __future__ import annotations

import logging
import os
import sys
import warnings
from typing import BinaryIO

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
    # watches are fine, the warning is noise when a write makes nested folders.
    warnings.filterwarnings("ignore", "Callback with id", RuntimeWarning, "watchdog")
    if level.lower() != "debug":  # the SDK logs every request at INFO
        for noisy in ("mcp", "httpx"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
