"""Handing freed heap memory back to the OS after bulk loads: at open, an indexing pass.

Filling the in-RAM indexes reads every chunk's text and vector through short-lived Python
objects and DuckDB result buffers; glibc keeps the freed pages for reuse, so RSS stays near
the loading peak (100k chunks: 660 MB after the first answer, 576 MB after malloc_trim).
Loading the model is such a load too (its graph and tokenizer are read through buffers
freed once the session is made). Elsewhere (macOS, musl)
this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

BULK_ROWS = 10_000  # loads smaller than this leave too little to be worth a trim


@functools.cache
def _trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def give_back_freed_memory(rows: int = BULK_ROWS) -> None:
    """After a load of `rows` rows: return the heap's free pages to the OS (glibc)."""
    trim = _trim()
    if trim is not None and rows >= BULK_ROWS:
        trim(0)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No garbage-collector pass while a query builds tens of thousands of small acyclic rows:
    each pass scans everything the process holds (a warm 7.5k-task answer's p95 was 3x its p50)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
