"""Calls in flight, so that long work gives way to them (issue 33).

Long work (a vault-wide unlinked-mentions scan, a cluster build, duplicate detection) runs
with the store lock let go, but the scan is Python work on the one interpreter lock: a search
beside it can wait up to the interpreter's switch interval (5 ms) at each point where it lets
the interpreter go (a DuckDB query, a side-file read; hundreds per search). So the scan works
in slices and, between two, waits while other calls are in flight (at most PAUSE_LIMIT, so
it still finishes under saturation: it then gets at least a quarter of its time).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

SLICE = 0.01  # s of long work between two pauses
PAUSE_LIMIT = 0.03  # s: the longest one pause waits for the calls in flight


class CallTraffic:
    """How many calls are in flight (waiting for the store or running), long work apart."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._calls = 0
        self._long = threading.local()  # this thread's call counts as long work
        self.paused = 0.0  # s long work spent waiting for calls, for benches and tests

    @contextmanager
    def call(self) -> Iterator[None]:
        with self._changed:
            self._calls += 1
        try:
            yield
        finally:
            with self._changed:
                self._calls -= 1
                self._changed.notify_all()

    @contextmanager
    def long_work(self) -> Iterator[None]:
        """This thread's call is long work from here: it no longer counts as a call in flight
        (its pauses would otherwise wait for itself)."""
        if getattr(self._long, "on", False):
            yield
            return
        with self._changed:
            self._calls -= 1
        self._long.on, self._long.since = True, time.perf_counter()
        try:
            yield
        finally:
            self._long.on = False
            with self._changed:
                self._calls += 1

    def in_flight(self) -> int:
        return self._calls

    def pause(self) -> None:
        """Between two slices of long work: after SLICE of work, wait while other calls are
        in flight (at most PAUSE_LIMIT). Cheap to call often; a no-op outside long work."""
        if not getattr(self._long, "on", False):
            return
        now = time.perf_counter()
        if now - self._long.since < SLICE:
            return
        with self._changed:
            self._changed.wait_for(lambda: self._calls <= 0, PAUSE_LIMIT)
        self._long.since = time.perf_counter()
        self.paused += self._long.since - now
