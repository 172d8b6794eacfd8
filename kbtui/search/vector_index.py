"""Vector search: an exact float16 matrix in RAM, plus an HNSW index for large vaults.

The matrix holds float16 (768 bytes a chunk: 77 MB at 100k chunks, half of float32), scored
by simsimd's SIMD dot-product kernels, which read half the bytes numpy's float32 product
reads and so run faster than it (100k chunks: ~10 ms against ~38 ms, under load). Rounding
costs ~5e-4 of cosine, far under the gaps that order a top 10: recall@10 against float32
exact is measured by bench/kb_latency.py and held by tests/test_search_real.py.

Exact top-k is one mat-vec product and is the reference for recall; it serves narrowly filtered
queries, whose allowed rows it scores directly, so a filter never shrinks the result below top_k.
On vaults past `hnsw_min` chunks an approximate index (vss HNSW in a disposable side file, see
kbtui/store/vectors/hnsw.py) answers instead, once it is built and in step with the store: every
unfiltered query, and a broad filter's when enough of its nearest pass.

The matrix is written to a side file next to the index (kbtui/store/side/arrays.py) and the next
start maps it rather than reading every vector from DuckDB (100k chunks: 0.9 s): its pages are the
OS's page cache, not a copy in this process. Chunk ids are never reused, so a file made earlier
holds the right vector for every chunk it has that still has one; the first sync masks the rest and
reads the vectors added since, and past STALE_FRACTION of either the file is written again. A write
that replaces stored vectors (another model) changes the stamp the file is checked against, so it
is rebuilt.

Rows added since (a save's chunks, appended: chunk ids only grow) go to a small second
matrix, `extra`, scored after the mapped one, `base`: appending to the mapped matrix copied
all of it into the heap, so the first save after a start (or a start after any save) raised
RSS by the matrix's size (100k chunks: +75 MB for a one-note edit).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import simsimd

from kbtui.memory import give_back_freed_memory
from kbtui.models import EMBED_DIM
from kbtui.search.keyword_index import REBUILD_FRACTION, row_mask
from kbtui.store import Store
from kbtui.store.side.arrays import FileRows, load_arrays, mapped, release, write_arrays
from kbtui.store.side.state import STALE_FRACTION
from kbtui.store.vectors.hnsw_build import member

log = logging.getLogger("kbtui.vectors")

VECTOR_DTYPE = np.float16
LOAD_BATCH = 16_384  # vectors converted per store read: the float32 copy stays small
FEW = 1_024  # up to this many new vectors are read by id, not by cid range
# A filter that lets at least ANN_FILTER_SHARE of the chunks through is served by the HNSW
# index, over-fetched, in a vault of FILTERED_ANN_MIN chunks or more: exact search over a
# filter scores every vector, a cost that grows with the vault, and the index's does not
# (kb_search with a filter letting 18% through, realistic vectors: 1M chunks exact p50
# 115-122 / p95 137-152 ms, from the index 42 / 72 ms, recall@10 0.983 against float32
# exact; 300k exact p50 26-33 ms, from the index, before n was capped, 40-60 ms). A
# narrower filter gathers its rows.
ANN_FILTER_SHARE = 0.1
FILTERED_ANN_MIN = 500_000
FILTERED_N = 800  # neighbours asked of the index for a filter (ef grows with it)
FILTERED_KEEP = 50  # fewer of them passing the filter: exact search instead
SIDE_FILE = "vectors.f16.arrays"
READ = ("fingerprints",)  # checked once at start: read, not mapped (store/side/arrays.py)
GATHER_READ = 4_096  # up to this many rows of the mapped matrix are read, not mapped


def dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """float32 dot product of each float16 row of `matrix` with `query`."""
    if not len(matrix):
        return np.zeros(0, dtype=np.float32)
    q = np.ascontiguousarray(query, dtype=VECTOR_DTYPE).reshape(1, -1)
    rows = np.ascontiguousarray(matrix, dtype=VECTOR_DTYPE)
    return np.asarray(simsimd.cdist(q, rows, metric="dot"), dtype=np.float32).reshape(-1)


class AnnIndex(Protocol):
    """An approximate nearest-neighbour index kept in step with the store's vectors."""

    # exact cosines of a query with chunks (NaN: no vector), for candidates found in a
    # projection: the vector index sets it to score them with its matrix
    rescore: Callable[[np.ndarray, np.ndarray], np.ndarray] | None

    @property
    def ready(self) -> bool: ...

    def sync(self, embedded: np.ndarray | None = None) -> tuple[int, int]: ...

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]: ...

    def close(self) -> None: ...


class VectorIndex:
    def __init__(
        self,
        store: Store,
        ann: AnnIndex | None = None,
        ann_min: int = 150_000,
        side_files: bool = True,
        filtered_ann_min: int = FILTERED_ANN_MIN,
    ):
        """`side_files=False`: load from the store, never read or write a side file."""
        self.store = store
        self.ann = ann
        self.ann_min = ann_min
        self.filtered_ann_min = filtered_ann_min
        self._lock = threading.Lock()
        self._generation = -1
        self._log_at: tuple[int, int] | None = None  # (epoch, length) of the store's vector log
        self.cids = np.zeros(0, dtype=np.int64)  # every row's chunk id, ascending
        self.base = np.zeros((0, EMBED_DIM), dtype=VECTOR_DTYPE)  # the first rows (mapped)
        self.extra = np.zeros((0, EMBED_DIM), dtype=VECTOR_DTYPE)  # the rows appended since
        self.alive = np.zeros(0, dtype=bool)
        self._base_rows: FileRows | None = None  # `base`'s rows read from its side file
        self._touched = False  # `base`'s mapped pages read in full since the last release
        self._scored: tuple[Any, int, np.ndarray] = (None, -1, np.zeros(0))  # scores()' last
        if ann is not None:
            ann.rescore = self.rescore
        stamp = store.side_stamp("vectors") if side_files else None
        side = store.side_path(SIDE_FILE) if stamp is not None else None
        loaded = side is not None and stamp is not None and self._load_side(side, stamp)
        changed = self._sync()
        stale = not loaded or changed > STALE_FRACTION * max(len(self.cids), 1000)
        if side is not None and stamp is not None and len(self.cids) and stale:
            self._write_side(side, stamp)

    def _load_side(self, path: Path, stamp: dict[str, Any]) -> bool:
        rows: dict[str, FileRows] = {}
        names = ("cids", "matrix", "fingerprints")
        arrays = load_arrays(path, stamp, names, READ, rows, self.store.side_checks)
        if arrays is None:
            return False
        cids, matrix = mapped(arrays, "cids"), mapped(arrays, "matrix")
        if not self.store.same_chunks(cids, np.asarray(arrays["fingerprints"])):
            return False
        if matrix.dtype != VECTOR_DTYPE or matrix.shape != (len(cids), EMBED_DIM):
            return False
        self._set_rows(cids, matrix, rows.get("matrix"))
        return True

    def _set_rows(self, cids: np.ndarray, matrix: np.ndarray, rows: FileRows | None = None) -> None:
        self.cids, self.base, self._base_rows, self._touched = cids, matrix, rows, True
        self.extra = np.zeros((0, EMBED_DIM), dtype=VECTOR_DTYPE)
        self.alive = np.ones(len(cids), dtype=bool)

    @property
    def matrix(self) -> np.ndarray:
        """Every row, as one array: the mapped one itself until rows are appended, then a
        copy of both (for the rare readers of everything; searches use take() and scores())."""
        return np.concatenate([self.base, self.extra]) if len(self.extra) else self.base

    def take(self, rows: np.ndarray) -> np.ndarray:
        """These rows (positions, as in `cids`), copied out of `base` and `extra`."""
        self._touched |= len(rows) > GATHER_READ
        return _take(self.base, self.extra, rows, self._base_rows)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """The query's dot product with every row, kept for `similarities` of this query."""
        self._touched = True
        found = np.concatenate([dot(self.base, query), dot(self.extra, query)])
        return self._keep(query, found)

    def _keep(self, query: np.ndarray, sims: np.ndarray, rows: Any = slice(None)) -> np.ndarray:
        """`sims` of `rows` kept (the rest NaN) for `similarities` of the same query."""
        self._scored = (query, self._generation, np.full(len(self.cids), np.nan, np.float32))
        self._scored[2][rows] = sims
        return sims

    def _write_side(self, path: Path, stamp: dict[str, Any]) -> None:
        """Write the live rows and map them in place of the arrays in RAM."""
        with self._lock:
            keep = self.alive
            cids, matrix = (
                (self.cids, self.matrix)
                if keep.all()
                else (self.cids[keep], self.take(np.flatnonzero(keep)))
            )
            arrays: dict[str, np.ndarray] = {
                "cids": cids,
                "matrix": matrix,
                "fingerprints": self.store.fingerprints_of(cids),
            }
            write_arrays(path, arrays, stamp)
            del arrays
            del cids, matrix
            if not self._load_side(path, stamp):
                log.warning("the vectors' side file %s could not be read back", path)

    @property
    def size(self) -> int:
        return int(self.alive.sum())

    def sync(self) -> None:
        """Load vectors embedded since the last call and drop the ones that went away."""
        self._sync()

    def _sync(self) -> int:
        """sync(); returns how many rows were added or dropped."""
        if self._generation == self.store.generation:
            return 0
        with self._lock:
            generation = self.store.generation
            before = self.size
            added = self._changes()
            changed = before - self.size + len(added)
            if len(added) and (not len(self.cids) or added[0] > self.cids[-1]):
                # new chunks (a save): appended, the rows of the old ones stay until compacted
                new_cids, new_vecs = self._load(added)
                self.cids = np.concatenate([self.cids, new_cids])
                self.extra = np.concatenate([self.extra, new_vecs])
                self.alive = np.concatenate([self.alive, np.ones(len(new_cids), dtype=bool)])
            elif len(added):  # older chunks given a vector (indexing): one sorted matrix
                new_cids, new_vecs = self._load(added)
                keep = np.flatnonzero(self.alive)
                cids = np.concatenate([self.cids[keep], new_cids])
                matrix = np.concatenate([self.take(keep), new_vecs])
                order = np.argsort(cids, kind="stable")
                self._set_rows(cids[order], np.ascontiguousarray(matrix[order]))
            if len(self.alive) - self.size > REBUILD_FRACTION * max(len(self.alive), 1000):
                keep = np.flatnonzero(self.alive)
                self._set_rows(self.cids[keep], self.take(keep))
            if self.ann is not None and self.ann.ready:  # the embedded ids, known here: the
                self.ann.sync(self.cids[self.alive])  # store's query reads every vector
            self._generation = generation
        return changed

    def _changes(self) -> np.ndarray:
        """Marks the rows whose chunks went away dead and returns the sorted cids given a
        vector since the last sync. From the store's log of vectors written when it covers
        the time since (a save reads its own chunks' vectors and the chunk ids, not the
        vector column), else from every embedded chunk."""
        store = self.store
        if self._log_at is not None and self._log_at[0] == store.vector_epoch:
            logged = np.unique(np.frombuffer(store.vector_log[self._log_at[1] :], dtype=np.int64))
            live = store.live_cids()
            self.alive &= row_mask(self.cids, live)
            logged = logged[row_mask(logged, live)]
        else:
            logged = store.embedded_cids()
            self.alive &= row_mask(self.cids, logged)
        self._log_at = (store.vector_epoch, len(store.vector_log))
        known = self.cids[self.alive]
        return np.asarray(logged[~row_mask(logged, known)], dtype=np.int64)

    def _load(self, cids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """These (sorted) cids' vectors as float16, read a cid range at a time: no float32
        copy of them all, and a range scan where an id list would need a join. A few cids
        (a saved note) may lie far apart: an id list reads just them."""
        if len(cids) <= FEW:
            found, vecs = self.store.load_vectors(cids)
            return found, vecs.astype(VECTOR_DTYPE)
        parts = []
        for i in range(0, len(cids), LOAD_BATCH):
            batch = cids[i : i + LOAD_BATCH]
            found, vecs = self.store.load_vector_range(int(batch[0]), int(batch[-1]), VECTOR_DTYPE)
            keep = row_mask(found, batch)  # the range may hold vectors not asked for
            parts.append((found[keep], vecs[keep]))
        if not parts:
            return cids[:0], np.zeros((0, EMBED_DIM), dtype=VECTOR_DTYPE)
        loaded = np.concatenate([c for c, _ in parts]), np.concatenate([v for _, v in parts])
        del parts
        give_back_freed_memory(len(cids))
        return loaded

    def use_ann(self) -> bool:
        return self.ann is not None and self.ann.ready and self.size >= self.ann_min

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Top-k (cid, cosine), best first; `allowed` is a sorted cid array or None."""
        self.sync()
        if not self.size or k <= 0:
            return []
        if allowed is None and self.use_ann():
            assert self.ann is not None
            self.release_mapped()
            cids, sims = self.ann.search(query, k)
            return list(zip(cids.tolist(), sims.tolist(), strict=True))
        if allowed is not None and self.use_ann() and self.size >= self.filtered_ann_min:
            found_ann = self._ann_filtered(query, k, allowed)
            if found_ann is not None:
                return found_ann
        found = self.exact_search(query, k, allowed)
        self.release_mapped()
        return found

    def release_mapped(self) -> None:
        """In a vault with an approximate index: drop from this process the mapped matrix's
        pages an exact scan read. It reads them all (1M chunks: 742 MB of RSS for the day
        after the first answer, scored exact while the graph attached), and the HNSW
        candidates' rescoring reads its rows from the file (GATHER_READ), not through the
        mapping. They stay in the OS's page cache: the next exact scan maps them again at
        no measurable cost (1M: the drop 2 ms, a scan after it 61-87 ms, as before it)."""
        if self._touched and self.ann is not None:
            self._touched = False
            release(self.base)

    def _ann_filtered(
        self, query: np.ndarray, k: int, allowed: np.ndarray
    ) -> list[tuple[int, float]] | None:
        """A broad filter's nearest: those of the HNSW index's n nearest that pass it (n: k
        over the share allowed, twice over, at most FILTERED_N), best first, up to k; None
        (exact search serves) for a narrow filter or when fewer than FILTERED_KEEP pass.
        Every allowed chunk outside the n scores below all of them, so what is kept is the
        filter's top, as exact as the index's n nearest. kb_search asks for a pool of 200:
        the last of those may be cut (n 800 at 1M chunks: ~144 kept of 18%), chunks that
        only keyword search finds are scored exactly, as without a filter."""
        assert self.ann is not None
        share = len(allowed) / self.size
        if share < ANN_FILTER_SHARE:
            return None
        cids, sims = self.ann.search(query, min(int(2 * k / min(share, 1.0)) + 16, FILTERED_N))
        keep = member(cids, allowed)
        if int(keep.sum()) < min(k, FILTERED_KEEP):
            return None
        return list(zip(cids[keep][:k].tolist(), sims[keep][:k].tolist(), strict=True))

    def exact_search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """The reference: every allowed vector scored."""
        self.sync()
        if not self.size or k <= 0:
            return []
        if allowed is None and len(self.alive) == self.size:  # the common case: no copies
            rows = None
            sims = self.scores(query)
        else:
            mask = self.alive if allowed is None else self.alive & row_mask(self.cids, allowed)
            rows = np.flatnonzero(mask)
            if not len(rows):
                return []
            if len(rows) * 10 < len(mask):  # a narrow filter: score only the allowed rows
                sims = self._keep(query, dot(self.take(rows), query), rows)
            else:  # gathering over a tenth of the rows costs more than scoring them all
                # (300k chunks, 20% allowed: 52 ms gathered, 27 ms scored in full)
                sims = self.scores(query)[rows]
        top = np.argpartition(-sims, k - 1)[:k] if len(sims) > k else np.arange(len(sims))
        picked = top if rows is None else rows[top]
        order = np.lexsort((self.cids[picked], -sims[top]))
        return list(zip(self.cids[picked[order]].tolist(), sims[top[order]].tolist(), strict=True))

    def rescore(self, query: np.ndarray, cids: np.ndarray) -> np.ndarray:
        """Cosines of the query with these chunks, in their order (NaN: no vector here)."""
        view = (self.base, self.extra, self.cids, self.alive, self._base_rows)  # no copy of all
        base, extra, known, alive, rows = view
        pos = np.minimum(np.searchsorted(known, cids), max(len(known) - 1, 0))
        found = (pos < len(known)) & (known[pos] == cids) & alive[pos] if len(known) else None
        sims = np.full(len(cids), np.nan, dtype=np.float32)
        if found is not None and found.any():
            sims[found] = dot(_take(base, extra, pos[found], rows), query)
        return sims

    def similarities(self, query: np.ndarray, cids: list[int]) -> dict[int, float]:
        """Cosine of the query with these chunks (those that have a vector)."""
        if not cids or not self.size:
            return {}
        rows = np.flatnonzero(row_mask(self.cids, np.unique(np.array(cids, np.int64))) & self.alive)
        kept, generation, every = self._scored  # the rows this query's exact search scored
        same = kept is query and generation == self._generation and len(every) == len(self.cids)
        sims = every[rows] if same else np.zeros(0)
        sims = sims if same and not np.isnan(sims).any() else dot(self.take(rows), query)
        return dict(zip(self.cids[rows].tolist(), sims.tolist(), strict=True))

    def vector(self, cid: int) -> np.ndarray | None:
        self.sync()
        pos = int(np.searchsorted(self.cids, cid))
        if pos < len(self.cids) and self.cids[pos] == cid and self.alive[pos]:
            return np.asarray(self.take(np.array([pos]))[0], dtype=np.float32)
        return None

    def close(self) -> None:
        if self.ann is not None:
            self.ann.close()


def _take(
    base: np.ndarray, extra: np.ndarray, rows: np.ndarray, base_rows: FileRows | None = None
) -> np.ndarray:
    """Rows (positions over `base` then `extra`) copied out, never the whole of both; a few
    of `base`'s read from its side file (`base_rows`) rather than through the mapping."""
    rows = np.asarray(rows, dtype=np.int64)
    n = len(base)

    def from_base(picked: np.ndarray) -> np.ndarray:
        if base_rows is not None and len(picked) <= GATHER_READ:
            return base_rows.take(picked)
        out: np.ndarray = base[picked]
        return out

    if not len(extra) or not len(rows) or int(rows.max()) < n:
        return from_base(rows)
    out = np.empty((len(rows), EMBED_DIM), dtype=VECTOR_DTYPE)
    low = rows < n
    out[low] = from_base(rows[low])
    out[~low] = extra[rows[~low] - n]
    return out
