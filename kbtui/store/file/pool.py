"""DuckDB's buffer pool: its cap, and dropping the table pages the damage check left."""

from __future__ import annotations

from contextlib import suppress

import duckdb

# The pool, capped at connect. By default it may keep 80% of the machine's
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
# What "changing the cap broke the HNSW attach" was (DuckDB 1.5.5 + vss, measured): vss
# reads the side file's graph into the pool at the first query after the ATTACH and copies
# it into its own memory; those blocks (tag ART_INDEX, 1M chunks: 631 MB) stay pinned while
# the file is attached: no cap evicts them. When the cap cannot hold them, that first query
# fails with "Out of Memory" and leaves a lock of the table's index list taken: every later
# query on the file hangs, whatever the cap is set to afterwards. Raising or lowering the
# cap once the graph is in, above what is pinned, is harmless. So an attach first makes
# room for the file's graph (hold_graph), and follow_growth raises the cap while a side
# file is attached too (a rebuild then attaches a larger graph).
MEMORY_BASE = 256 * 2**20
# The projected HNSW graph's blocks take ~0.65 KB a vector (55k realistic: 35 MB). 3 KB, sized
# for the 384-dimension graph, let the HNSW build's read of every vector keep 1.8 GB of table
# pages in the pool at a million chunks (RSS 4.6 GB after the first answer).
MEMORY_PER_CHUNK = 1 * 2**10
GROWTH = 2
GROW_MIN = 20_000  # chunks: below this the cap of an empty index (256 MB) is plenty
CHECK_MEMORY = "32MiB"
EVICT_SLACK = 2**20
GRAPH_SLACK = 64 * 2**20


def memory_limit(chunks: int) -> str:
    """The buffer-pool cap for an index of `chunks` chunks, as DuckDB's setting reads it."""
    return f"{(MEMORY_BASE + MEMORY_PER_CHUNK * chunks) // 2**20}MiB"


def follow_growth(con: duckdb.DuckDBPyConnection, sized_for: int, chunks: int) -> int:
    """Raise the cap for an index of `chunks` chunks once it holds over GROWTH times those it
    was set for. Returns the chunks it is set for."""
    if chunks <= max(GROWTH * sized_for, GROW_MIN):
        return sized_for
    raise_limit(con, (MEMORY_BASE + MEMORY_PER_CHUNK * chunks) >> 20 << 20)  # memory_limit's
    return chunks


def hold_graph(con: duckdb.DuckDBPyConnection, graph_bytes: int) -> None:
    """Before the first query of an attached HNSW side file: raise the cap, if need be, so
    that it holds what the pool holds now, the file's graph (`graph_bytes`) and GRAPH_SLACK
    for the table pages that query reads."""
    used = con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()
    raise_limit(con, (int(used[0]) if used and used[0] else 0) + graph_bytes + GRAPH_SLACK)


def raise_limit(con: duckdb.DuckDBPyConnection, wanted: int) -> None:
    """Set the cap to `wanted` bytes if it is lower (DuckDB reads it back rounded to a tenth
    of its unit: a cap within that of `wanted` stays)."""
    row = con.execute("SELECT current_setting('memory_limit')").fetchone()
    number, _, unit = str(row[0] if row else "0 bytes").partition(" ")
    scale = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}.get(unit, 1)
    if wanted > (float(number) + 0.05) * scale:
        con.execute(f"SET memory_limit = '{wanted // 2**10}KiB'")


def drop_table_pages(con: duckdb.DuckDBPyConnection) -> None:
    """Evict the table pages the pool holds (see EVICT_SLACK), nothing else. The caller
    sets the cap again after it."""
    held = dict(con.execute("SELECT tag, memory_usage_bytes FROM duckdb_memory()").fetchall())
    keep = sum(held.values()) - held.get("BASE_TABLE", 0) + EVICT_SLACK
    with suppress(duckdb.Error):  # it evicts what it can before it gives up
        con.execute(f"SET memory_limit = '{keep // 2**10}KiB'")


def estimated_chunks(con: duckdb.DuckDBPyConnection) -> int:
    """Rows of the chunks table from the catalog (no scan); 0 for a new file."""
    row = con.execute(
        "SELECT estimated_size FROM duckdb_tables() WHERE table_name = 'chunks'"
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0
