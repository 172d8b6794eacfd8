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
# cap this small for good broke indexing (100k chunks: Out of Memory at 64 and 128 MB).
# Even so the pool kept CHECK_MEMORY's worth of the check's last pages (100k chunks: 28 MB
# resident for the life of the process, read by nothing after); the cap goes down for a
# moment first to what the pool holds besides table pages (EVICT_SLACK more), which makes
# DuckDB drop those pages. Not lower: data not yet in the file (a WAL replayed at open)
# would be written out to temporary files (a 1 MiB cap wrote all of a 100k-row WAL, 82 MB,
# where the check's cap writes what passes 32 MiB, as before).
MEMORY_BASE = 256 * 2**20
MEMORY_PER_CHUNK = 3 * 2**10  # the HNSW graph takes ~1.7 KB a vector (m=16)
CHECK_MEMORY = "32MiB"
EVICT_SLACK = 2**20


def memory_limit(chunks: int) -> str:
    """The buffer-pool cap for an index of `chunks` chunks, as DuckDB's setting reads it."""
    return f"{(MEMORY_BASE + MEMORY_PER_CHUNK * chunks) // 2**20}MiB"


def drop_table_pages(con: duckdb.DuckDBPyConnection) -> None:
    """Evict the table pages the pool holds (see EVICT_SLACK), nothing else. The caller
    sets the cap again after it."""
    held = dict(con.execute("SELECT tag, memory_usage_bytes FROM duckdb_memory()").fetchall())
    keep = sum(held.values()) - held.get("BASE_TABLE", 0) + EVICT_SLACK
    with suppress(duckdb.Error):  # it evicts what it can before it gives up
        con.execute(f"SET memory_limit = '{keep // 2**10}KiB'")
