"""How often the interpreter lock changes hands in a process that answers other processes.

The lock is handed to a waiting thread every switch interval (Python's default is 5 ms). A
thread that lets the lock go (a DuckDB query, a socket write: hundreds per kb_search) and
wants it back waits up to that long behind a thread running Python (a mention scan, a save's
parse, the indexer, the event loop's JSON), each time. At 16 clients' pace beside
back-to-back scans kb_search p50/p95 was 327/646 ms at 5 ms, 33/85 ms at 0.5 ms
(bench/load_http.py, issue 33); the cost (more hand-overs between threads that all run
Python) is measured in docs/performance.md ("The interpreter's switch interval").

Who sets it: both MCP servers (`share_interpreter`, for the process's life), every vault owner
while it serves its socket (the TUI, a CLI command, a server: `hold`/`release` in
kbtui/runtime/owner.py), so a call answered through the TUI gets what a call answered by
`kbtui mcp` gets; and a bulk embedding pool while open (kbtui/indexing/pool.py). Standard
library only: the MCP server calls this before anything heavy loads.
"""

from __future__ import annotations

import sys
import threading

SWITCH_INTERVAL = 0.0005

_lock = threading.Lock()
_holders = 0
_before = 0.0


def share_interpreter() -> None:
    """For the process's whole life: hand the lock over every SWITCH_INTERVAL."""
    global _before
    with _lock:
        _before = SWITCH_INTERVAL  # a holder's release keeps it
        sys.setswitchinterval(SWITCH_INTERVAL)


def hold() -> None:
    """While serving other processes: the short interval; `release` undoes it when the last
    holder in the process stops (tests and a TUI that closes one vault for another)."""
    global _holders, _before
    with _lock:
        if _holders == 0:
            _before = sys.getswitchinterval()
        _holders += 1
        sys.setswitchinterval(min(SWITCH_INTERVAL, _before))


def release() -> None:
    """One holder stops serving; the last one puts back the interval found by the first."""
    global _holders
    with _lock:
        if _holders == 0:
            return
        _holders -= 1
        if _holders == 0:
            sys.setswitchinterval(_before)
