"""A server process's CPU from /proc, for the load benches: in all, by thread, and a wait
until it is quiet (so that a figure holds only the calls measured)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def cpu_seconds(pid: int, task: int | None = None) -> float:
    """User + system CPU a process (or one of its threads) has used, in seconds."""
    where = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_by_thread(pid: int) -> dict[str, float]:
    """The server's CPU seconds so far: `all` (the process) and `loop` (its main thread, the
    event loop: HTTP, the SDK, JSON-RPC, the envelope's JSON). The rest is the tool calls'
    threads, DuckDB's, ONNX's, the indexer's and the watcher's: Python before 3.14 gives
    threads no OS names, so they are not told apart here (py-spy does)."""
    return {"all": cpu_seconds(pid), "loop": cpu_seconds(pid, pid)}


def wait_quiet(pid: int, limit: float = 120.0) -> None:
    """Until the server's indexer has caught up with earlier saves (under a tenth of a core
    over half a second), so a CPU figure holds only the calls measured."""
    deadline = time.monotonic() + limit
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - last < 0.05:
            return
        last = now
