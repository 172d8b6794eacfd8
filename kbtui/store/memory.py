"""DuckDB's buffer-pool cap, and handing freed heap memory back to the OS after bulk loads.

Filling the in-RAM indexes reads every chunk's text and vector through short-lived Python
objects and DuckDB result buffers; glibc keeps the freed pages for reuse, so RSS stays near
the loading peak (100k chunks: 660 MB after the first answer, 576 MB after malloc_trim).
Elsewhere (macOS, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable

import duckdb

BULK_ROWS = 10_000  # loads smaller than this leave too little to be worth a trim
GROWTH = 2
GROW_MIN = 20_000  # chunks: below this the cap of an empty index (256 MB) is plenty

# DuckDB's buffer pool, capped at connect and never changed while an HNSW side file is
# attached (changing it then broke the attach). By default it may keep 80% of the machine's
# RAM of table pages it has read: at 300k chunks ~1.5 GB after the in-RAM indexes are filled,
# all of it already copied into them. The cap must still hold the HNSW graph, which vss keeps
# in buffer-managed memory (20k vectors: 34 MB; a 16 MB cap fails its queries with "Out of
# Memory"), so it grows with the chunks the index holds at open, and leaves room for growth.
# The damage check at open (check_tables) reads every table once: with the cap above, the
# pool kept all those pages (100k chunks: 112 MB), a second copy of what the side files and
# the chunk cache hold. It runs under CHECK_MEMORY instead, so it keeps no more than that;
# the cap is set again after it, before anything (an HNSW attach) could mind a change. A
# cap this small for good broke indexing (100k chunks: Out of Memory at 64 and 128 MB), and so
# did the cap of an empty index for a first pass over a big vault (Out of Memory in a relink
# 150k notes into a 180k-note, million-chunk vault at 256 MB): the cap follows the index as
# it grows past GROWTH times the chunks it was set for (follow_growth).
MEMORY_BASE = 256 * 2**20
# The projected HNSW graph's blocks take ~0.65 KB a vector (55k realistic: 35 MB). 3 KB, sized
# for the 384-dimension graph, let the HNSW build's read of every vector keep 1.8 GB of table
# pages in the pool at a million chunks (RSS 4.6 GB after the first answer).
MEMORY_PER_CHUNK = 1 * 2**10
CHECK_MEMORY = "32MiB"


def memory_limit(chunks: int) -> str:
    """The buffer-pool cap for an index of `chunks` chunks, as DuckDB's setting reads it."""
    return f"{(MEMORY_BASE + MEMORY_PER_CHUNK * chunks) // 2**20}MiB"


def follow_growth(con: duckdb.DuckDBPyConnection, sized_for: int, chunks: int) -> int:
    """Raise the cap for an index of `chunks` chunks once it holds over GROWTH times those it
    was set for, unless an HNSW side file is attached. Returns the chunks it is set for."""
    if chunks <= max(GROWTH * sized_for, GROW_MIN):
        return sized_for
    row = con.execute(
        "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'kbtui_hnsw%'"
    ).fetchone()
    if row and row[0]:
        return sized_for
    con.execute(f"SET memory_limit = '{memory_limit(chunks)}'")
    return chunks


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


def give_back_freed_memory(rows: int) -> None:
    """After a load of `rows` rows: return the heap's free pages to the OS (glibc)."""
    trim = _trim()
    if trim is not None and rows >= BULK_ROWS:
        trim(0)
