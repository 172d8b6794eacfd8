"""Tool calls of the HTTP server on a fixed pool of threads, each answered within a time bound.

A call that waits for a free thread longer than the bound is withdrawn and never runs (it is
answered TRANSIENT: retry). A call already running when the bound passes cannot be stopped
halfway (a thread cannot be killed, and a write stopped between its steps would be half
done): it finishes on its thread and the client is told so at once. The same holds when a
client disconnects mid-call: a queued call is withdrawn, a running one completes whole.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import anyio

log = logging.getLogger("kbtui.mcp")
T = TypeVar("T")

WORKERS = 16  # threads for tool calls; the store serialises most work behind its lock
CALL_SECONDS = 120.0  # the longest a client waits for one answer


class CallTimeout(Exception):
    """The bound passed. `started`: the call was running (it completes in the background)."""

    def __init__(self, seconds: float, started: bool) -> None:
        self.seconds, self.started = seconds, started
        where = "it is still running and will finish" if started else "it was not run"
        super().__init__(f"no answer within {seconds:g} s ({where})")


class BoundedCalls:
    """Runs blocking work off the event loop, bounded in threads and in time."""

    def __init__(self, workers: int = WORKERS, seconds: float = CALL_SECONDS) -> None:
        self.seconds = seconds
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mcp-call")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the pool; raises CallTimeout past the bound. Cancelled (the client
        went away): a call still queued is withdrawn, a running one is left to finish."""
        future: Future[T] = self._pool.submit(fn, *args)
        try:
            with anyio.fail_after(self.seconds):
                return await asyncio.wrap_future(future)
        except TimeoutError:
            future.cancel()
            raise CallTimeout(self.seconds, started=not future.cancelled()) from None
        finally:
            future.cancel()  # cancelled before it started: it never runs

    def close(self) -> None:
        """Withdraw queued calls; running ones finish (the vault closes after them)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
