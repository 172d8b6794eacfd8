"""DuckDB's buffer pool: its cap, and dropping the table pages the damage check left."""

from __future__ import annotations

from contextlib import suppress

import duckdb

# The pool, capped once at connect and never changed (changing it after the
# HNSW side file is attached broke the attach). By default it may keep 80% of the machine's
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
# Even so the pool kept CHECK_MEMORY's worth of the check's last pages (100k chunks: 28 MB
# resident for the life of the process, read by nothing after); the cap goes down for a
# moment first to what the pool holds besides table pages (EVICT_SLACK more), which makes
# DuckDB drop those pages. Not lower: data not yet in the file (a WAL replayed at open)
# would be written out to temporary files (a 1 MiB cap wrote all of a 100k-row WAL, 82 MB,
# where the check's cap writes what passes 32 MiB, as before).
MEMORY_BASE = 256 * 2**20
# The projected HNSW graph's blocks take ~0.65 KB a vector (55k realistic: 35 MB). 3 KB, sized
# for the 384-dimension graph, let the HNSW build's read of every vector keep 1.8 GB of table
# pages in the pool at a million chunks (RSS 4.6 GB after the first answer).
MEMORY_PER_CHUNK = 1 * 2**10
GROWTH = 2
GROW_MIN = 20_000  # chunks: below this the cap of an empty index (256 MB) is plenty
CHECK_MEMORY = "32MiB"
EVICT_SLACK = 2**20


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


def drop_table_pages(con: duckdb.DuckDBPyConnection) -> None:
    """Evict the table pages the pool holds (see EVICT_SLACK), nothing else. The caller
    sets the cap again after it."""
    held = dict(con.execute("SELECT tag, memory_usage_bytes FROM duckdb_memory()").fetchall())
    keep = sum(held.values()) - held.get("BASE_TABLE", 0) + EVICT_SLACK
    with suppress(duckdb.Error):  # it evicts what it can before it gives up
        con.execute(f"SET memory_limit = '{keep // 2**10}KiB'")
