"""A big synthetic index with realistic vectors, fast: for benches at a million chunks.

    python bench/bulk_index.py --chunks 1000000 --work /tmp/kbtui-bench/million

Indexing a synthetic vault the usual way (hash embedder, 200 notes per transaction) took 39 min
at 300k chunks: every write scans tables that grow with the index, and every vector batch is an
UPDATE through `array_agg`. Here the vault is written by bench/synth_vault.py and read by
kbtui's own indexer (so notes, chunks, postings, links and the graph are exactly the rows a
normal pass writes: tests/test_indexer.py checks the rows do not depend on the batch size),
with no embedder and `write_batch` notes per transaction; then every chunk that would get a
vector gets a realistic one (bench/realistic_vectors.py) in bulk, one UPDATE per batch from
384 registered float32 columns, and the index records the real model as the vectors' maker.
The side files (vectors, keywords, chunk texts, HNSW) are left to kbtui's first open: time
that separately ("first start after the build").

The vault and its index are kept under --work as bulk_<notes>/ and reused while
bulk_<notes>.done exists (delete it, or the folder, to build again).
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np
from bench_common import CHUNKS_PER_NOTE, WORK, cpu_times, machine_note
from realistic_vectors import abstract_vectors, mix_batches
from synth_vault import make_vault

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.models import EMBED_DIM
from kbtui.store import Store

WRITE_BATCH = 5_000  # notes per transaction (~27k chunks)
VECTOR_BATCH = 50_000
BUILD_MEMORY = "4GB"


def write_vectors(store: Store, base: np.ndarray) -> int:
    """Give every chunk that waits for a vector a realistic one; returns how many."""
    con = store.con
    cids = con.execute(
        "SELECT cid FROM chunks WHERE not_embedded IS NULL ORDER BY cid"
    ).fetchnumpy()["cid"]
    cids = np.asarray(cids, dtype=np.int64)
    columns = ", ".join(f"c{j}" for j in range(EMBED_DIM))
    start = 0
    for vectors in mix_batches(base, len(cids), VECTOR_BATCH):
        batch = cids[start : start + len(vectors)]
        start += len(vectors)
        by_column = np.ascontiguousarray(vectors.T)  # one float32 column per dimension
        frame = {"cid": batch, **{f"c{j}": by_column[j] for j in range(EMBED_DIM)}}
        con.register("_bulk_vectors", frame)
        try:
            con.execute(f"""UPDATE chunks SET embedding = v.e FROM (
                    SELECT cid, array_value({columns})::FLOAT[{EMBED_DIM}] AS e
                    FROM _bulk_vectors) AS v
                WHERE chunks.cid = v.cid""")
        finally:
            con.unregister("_bulk_vectors")
    store.set_meta("embed_model", FastEmbedder().model_id)
    con.execute("CHECKPOINT")
    return len(cids)


def bulk_index(work: Path, chunks: int, write_batch: int = WRITE_BATCH) -> Settings:
    """The index of a ~`chunks`-chunk synthetic vault with realistic vectors (built once)."""
    notes = int(chunks / CHUNKS_PER_NOTE)
    vault = work / f"bulk_{notes}"
    done = work / f"bulk_{notes}.done"
    settings = Settings.for_vault(vault)
    if done.exists() and settings.db_path.exists():
        return settings
    free = shutil.disk_usage(work).free / 2**30
    print(f"building {vault} ({free:.0f} GB free on {work})")
    written = work / f"bulk_{notes}.vault"  # the notes are all written (~3 min at 1M)
    if not written.exists() and vault.exists():
        shutil.rmtree(vault)
    shutil.rmtree(settings.index_dir, ignore_errors=True)
    base = abstract_vectors(work, FastEmbedder())
    before = cpu_times()
    started = time.perf_counter()
    if not written.exists():
        make_vault(vault, notes, 0)
        written.write_text(f"{notes}\n")
    wrote = time.perf_counter()
    print(f"  wrote {notes} notes in {wrote - started:.0f} s")
    store = Store(settings.db_path)
    # The store caps DuckDB's buffer pool by the chunks it held at open (none: 256 MB), so a
    # first pass over a million chunks ran out of memory in a relink 85% of the way
    # (relationships joined against every link); this bench is not the app under test.
    store.con.execute(f"SET memory_limit = '{BUILD_MEMORY}'")

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "write" and (done // write_batch) % 4 == 0:
            print(f"  {done}/{total} notes written after {time.perf_counter() - wrote:.0f} s")

    indexer = Indexer(settings, store, None, progress, write_batch=write_batch)
    report = indexer.run(embed=False)
    read = time.perf_counter()
    stats = store.stats()
    print(
        f"  indexed them without vectors in {read - wrote:.0f} s: {stats['chunks']} chunks, "
        f"{stats['postings']} postings, {len(report.skipped)} skipped"
    )
    count = write_vectors(store, base)
    store.close()
    finished = time.perf_counter()
    print(f"  wrote {count} realistic vectors in {finished - read:.0f} s")
    size = settings.db_path.stat().st_size / 2**30
    print(f"  built in {finished - started:.0f} s ({size:.2f} GB index; {machine_note(before)})")
    done.write_text(f"{count}\n")
    return settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--write-batch", type=int, default=WRITE_BATCH)
    parser.add_argument("--work", type=Path, default=WORK / "million")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(bulk_index(args.work, args.chunks, args.write_batch).db_path)


if __name__ == "__main__":
    main()
