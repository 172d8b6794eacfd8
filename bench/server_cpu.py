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
    """The server's CPU seconds so far: `loop` (the event loop: HTTP, the SDK, JSON-RPC, the
    envelope's JSON), `calls` (the tool-call threads and the search's second thread) and
    `all` (the process, whose other threads are the indexer, the watcher, ONNX, DuckDB)."""
    out = {"loop": 0.0, "calls": 0.0, "all": cpu_seconds(pid)}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            seconds = cpu_seconds(pid, int(task.name))
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that just ended
        if int(task.name) == pid:
            out["loop"] += seconds
        elif name.startswith(("mcp-call", "kbtui-bm25")):
            out["calls"] += seconds
    return out


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
