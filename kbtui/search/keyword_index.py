"""BM25 over an in-memory copy of the postings table, kept in step with the store.

BM25 in SQL took ~35 ms per query at 100k chunks; the same sums over sorted numpy arrays take
~1-2 ms. The store stays the durable copy. Chunk ids only ever grow, so a sync reads the
postings of chunks newer than the last one seen (a small delta) and marks vanished chunks dead;
when the delta or the dead rows pass a quarter of the index, it is rebuilt from the store.

A build is written to a side file next to the index (kbtui/store/side/arrays.py) and the next
start maps it instead of reading and sorting every posting (100k chunks: 0.68 s and a 200 MB
peak): the arrays are the OS's page cache, and a query reads only its terms' postings (with
pread, so that they do not stay in RSS: see store/side/arrays.py). Chunk
ids are never reused, so a side file made earlier still describes every chunk it holds; the
chunks written since come in as the delta and the ones deleted since are masked, as in a
sync. Past STALE_FRACTION of either at start, the index is rebuilt and the file rewritten.

Each query is also scored per note, from the same postings: a note's term frequencies are
its chunks' summed (no second index). A note that uses the query's words across its
chunks is evidence a single chunk's BM25 misses; search.service mixes both into the ranking.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from kbtui.store import Store
from kbtui.store.side.arrays import Column, FileArray, load_arrays, mapped, write_arrays
from kbtui.store.side.state import STALE_FRACTION

BM25_K1 = 0.9
BM25_B = 0.4
REBUILD_FRACTION = 0.25
SIDE_FILE = "keywords.arrays"
READ = ("fingerprints", "rows", "tfs")  # read a term's run at once, not mapped (side/arrays.py)


@dataclass(frozen=True)
class KeywordScores:
    """One query's BM25: the top chunks and the score of every note (by note ordinal)."""

    top: np.ndarray  # rows (cid, raw BM25, BM25 / the best reachable), best first
    note_scores: np.ndarray  # raw note-level BM25 per note ordinal; empty if no term matched
    note_best: float  # the best note-level BM25 this query could reach
    note_of_cids: np.ndarray  # the sorted cids the index knows ...
    note_of_rows: np.ndarray  # ... and the note ordinal of each

    @property
    def hits(self) -> list[tuple[int, float, float]]:
        """`top` as tuples (search.candidates reads the array: 1,200 rows a search)."""
        return [(int(c), raw, norm) for c, raw, norm in self.top.tolist()]

    def notes(self, cids: list[int]) -> np.ndarray:
        """Note-level BM25 of each chunk's note (0 for a chunk the index does not know)."""
        if not len(self.note_scores) or not cids:
            return np.zeros(len(cids))
        wanted = np.asarray(cids, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.note_of_cids, wanted), len(self.note_of_cids) - 1)
        known = self.note_of_cids[pos] == wanted
        return np.where(known, self.note_scores[self.note_of_rows[pos]], 0.0)


class KeywordIndex:
    """Rows are chunks in ascending cid order; postings are (term -> rows, tf) runs."""

    def __init__(self, store: Store, side_files: bool = True) -> None:
        """`side_files=False`: build from the store, never read or write a side file."""
        self.store = store
        self._lock = threading.Lock()
        self._generation = -1
        stamp = store.side_stamp("keywords") if side_files else None
        self._side = (store.side_path(SIDE_FILE), stamp) if stamp is not None else None
        if not self._load_side():
            self._build()
            return
        self.sync()  # the chunks written and deleted since the file was made
        dead = len(self.alive) - int(self.alive.sum())
        if max(dead, self.delta_rows) > STALE_FRACTION * max(len(self.cids), 1000):
            self._build()

    def _build(self) -> None:
        cids, lengths, entities, indexes = self.store.chunk_lengths()
        terms, pcids, tfs = self.store.postings()
        names, codes = np.unique(np.asarray(entities, dtype=np.str_), return_inverse=True)
        fingerprints = self.store.fingerprints_of(cids)
        unique_terms, starts = np.unique(terms, return_index=True)
        self._set(
            {
                "cids": cids,
                "lengths": lengths,
                "chunk_index": indexes,
                "fingerprints": fingerprints,
                "entity_code": codes.astype(np.int32),
                **_pack(names.tolist()),
                "terms": unique_terms,
                "offsets": np.append(starts, len(terms)),
                "rows": np.searchsorted(cids, pcids).astype(np.int32),
                "tfs": tfs,
            }
        )
        self._generation = self.store.generation
        if self._side is not None:
            path, stamp = self._side
            write_arrays(path, self._arrays(), stamp)
            self._load_side()  # the mapped file, not the arrays just built, from now on

    @staticmethod
    def _arrays_names() -> tuple[str, ...]:
        rows = ("cids", "lengths", "chunk_index", "fingerprints", "entity_code")
        return (*rows, "names", "name_offsets", "terms", "offsets", "rows", "tfs")

    def _arrays(self) -> dict[str, np.ndarray]:
        return {n: getattr(self, n) for n in self._arrays_names()}

    def _set(self, arrays: dict[str, Column]) -> None:
        self.cids = np.asarray(arrays["cids"], dtype=np.int64)
        self.lengths = np.asarray(arrays["lengths"], dtype=np.float32)
        self.chunk_index = np.asarray(arrays["chunk_index"], dtype=np.int32)
        self.fingerprints = _column(arrays["fingerprints"], np.uint64)
        self.entity_code = np.asarray(arrays["entity_code"], dtype=np.int32)
        self.names, self.name_offsets = mapped(arrays, "names"), mapped(arrays, "name_offsets")
        self.base_rows = len(self.cids)  # rows past this one are the delta's: `extra_entities`
        self.extra_entities: list[str] = []
        self.alive = np.ones(len(self.cids), dtype=bool)
        self.last_cid = int(self.cids[-1]) if len(self.cids) else 0
        self.terms = np.asarray(arrays["terms"], dtype=np.int64)
        self.offsets = np.asarray(arrays["offsets"], dtype=np.int64)
        self.rows = _column(arrays["rows"], np.int32)
        self.tfs = _column(arrays["tfs"], np.float32)
        self.delta: dict[int, list[tuple[int, float]]] = {}
        self.delta_rows = 0
        # note ordinals: a base row's entity code; a delta row's note counts on from the names
        # (a note rewritten since the build has no live base rows: its chunks were replaced)
        self.note_of = self.entity_code
        self.extra_notes: dict[str, int] = {}
        self._note_cache: tuple[tuple[int, int], np.ndarray, int] | None = None

    def _load_side(self) -> bool:
        """Map the side file if it was made from this index; False when there is none."""
        if self._side is None:
            return False
        names = tuple(self._arrays_names())
        arrays = load_arrays(*self._side, names, read=READ, checks=self.store.side_checks)
        if arrays is None:
            return False
        if not self.store.same_chunks(mapped(arrays, "cids"), np.asarray(arrays["fingerprints"])):
            return False
        try:
            self._set(arrays)
        except ValueError:  # not as _build writes it: built again
            return False
        return True

    def entity(self, row: int) -> str:
        """The entity id of the chunk at `row`."""
        if row >= self.base_rows:
            return self.extra_entities[row - self.base_rows]
        code = int(self.entity_code[row])
        start, end = int(self.name_offsets[code]), int(self.name_offsets[code + 1])
        return bytes(self.names[start:end]).decode()

    def sync(self) -> None:
        """Catch up with writes made through the store since the last call (cheap if none)."""
        if self._generation == self.store.generation:
            return
        with self._lock:
            if self._generation == self.store.generation:
                return
            generation = self.store.generation
            self.alive &= row_mask(self.cids, self.store.live_cids())
            new, lengths, entities, indexes = self.store.chunk_lengths(after_cid=self.last_cid)
            if len(new):
                start = len(self.cids)
                self.cids = np.concatenate([self.cids, new])
                self.lengths = np.concatenate([self.lengths, lengths])
                self.extra_entities.extend(entities)
                self.note_of = np.concatenate([self.note_of, self._ordinals(entities)])
                self.chunk_index = np.concatenate([self.chunk_index, indexes])
                self.alive = np.concatenate([self.alive, np.ones(len(new), dtype=bool)])
                terms, pcids, tfs = self.store.postings(after_cid=self.last_cid)
                rows = np.searchsorted(self.cids, pcids, sorter=None)
                for t, r, f in zip(terms.tolist(), rows.tolist(), tfs.tolist(), strict=True):
                    self.delta.setdefault(t, []).append((r, f))
                self.delta_rows += len(self.cids) - start
                self.last_cid = int(self.cids[-1])
            dead = len(self.alive) - int(self.alive.sum())
            if max(dead, self.delta_rows) > REBUILD_FRACTION * max(len(self.cids), 1000):
                self._build()
            self._generation = generation

    def _ordinals(self, entities: list[str]) -> np.ndarray:
        ids, base = self.extra_notes, len(self.name_offsets) - 1
        return np.array([ids.setdefault(e, base + len(ids)) for e in entities], dtype=np.int32)

    @property
    def note_count(self) -> int:
        return len(self.name_offsets) - 1 + len(self.extra_notes)

    def search(
        self, term_ids: list[int], k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float, float]]:
        """Top-k chunks: (cid, raw BM25, BM25 / the best score this query could reach).

        `allowed` is a sorted array of permitted cids (a filter), or None for all.
        """
        return self.score(term_ids, k, allowed).hits

    def score(
        self,
        term_ids: list[int],
        k: int,
        allowed: np.ndarray | None = None,
        bigrams: frozenset[int] = frozenset(),
    ) -> KeywordScores:
        """`search`, plus every note's BM25 with its chunks' term counts summed.

        `bigrams`: the query's CJK bigrams (tokenize.bigram_terms). One that no chunk holds
        is most often two characters across a word boundary (怎么把, "how to": 么把), not a
        word the notes lack; it does not count in the best score the query could reach,
        which it would otherwise fill with the highest idf there is, sinking every hit of a
        long Chinese question under MIN_SCORE."""
        self.sync()
        terms = list(dict.fromkeys(term_ids))
        n_rows = len(self.cids)
        nothing = KeywordScores(np.zeros((0, 3)), np.zeros(0), 0.0, self.cids, self.note_of)
        if not terms or not n_rows:
            return nothing
        alive_n = max(int(self.alive.sum()), 1)
        avgdl = max(float(self.lengths[self.alive].mean()) if alive_n else 1.0, 1.0)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * self.lengths / avgdl)
        note_norm, notes_n = self._note_norm()
        note_scores = np.zeros(len(note_norm))
        all_rows, all_w = [], []
        best = note_best = 0.0
        for term in terms:
            rows, tfs = self._postings(term)
            live = self.alive[rows]
            rows, tfs = rows[live], tfs[live]
            df = len(rows)
            if not df and term in bigrams:
                continue
            idf = float(np.log(1 + (alive_n - df + 0.5) / (df + 0.5)))
            best += idf * (BM25_K1 + 1)
            # counted over every note ordinal: O(notes), where np.unique sorted the postings
            # (3 ms for a common word at 100k chunks)
            # (cut to the notes known when note_norm was taken: a sync on another thread may
            # have added some since)
            tf = np.bincount(self.note_of[rows], weights=tfs, minlength=len(note_norm))
            tf = tf[: len(note_norm)]
            notes = np.flatnonzero(tf)
            note_idf = float(np.log(1 + (notes_n - len(notes) + 0.5) / (len(notes) + 0.5)))
            note_best += note_idf * (BM25_K1 + 1)
            if df:
                all_rows.append(rows)
                all_w.append(idf * tfs * (BM25_K1 + 1) / (tfs + norm[rows]))
                tf = tf[notes]
                note_scores[notes] += note_idf * tf * (BM25_K1 + 1) / (tf + note_norm[notes])
        if not all_rows:
            return nothing
        scores = np.bincount(
            np.concatenate(all_rows), weights=np.concatenate(all_w), minlength=n_rows
        )
        if allowed is not None:
            scores = np.where(row_mask(self.cids, allowed), scores, 0.0)
        hit = np.flatnonzero(scores > 0)
        if len(hit) > k:
            hit = hit[np.argpartition(-scores[hit], k - 1)[:k]]
        order = hit[np.lexsort((self.cids[hit], -scores[hit]))]
        raw = scores[order]
        top = np.column_stack([self.cids[order], raw, raw / best if best else np.zeros(len(raw))])
        return KeywordScores(top, note_scores, note_best, self.cids, self.note_of)

    def _note_norm(self) -> tuple[np.ndarray, int]:
        """(BM25's length term per note ordinal, notes with a live chunk): a note's length
        is its live chunks' summed. Cached until the next sync changes the rows."""
        key = (self._generation, len(self.cids))
        if self._note_cache is None or self._note_cache[0] != key:
            self._note_cache = (key, *self._note_lengths())
        return self._note_cache[1], self._note_cache[2]

    def _note_lengths(self) -> tuple[np.ndarray, int]:
        live = self.note_of[self.alive]
        lengths = np.bincount(live, weights=self.lengths[self.alive], minlength=self.note_count)
        present = np.bincount(live, minlength=self.note_count) > 0
        notes_n = max(int(present.sum()), 1)
        avg = max(float(lengths[present].mean()) if present.any() else 1.0, 1.0)
        return BM25_K1 * (1 - BM25_B + BM25_B * lengths / avg), notes_n

    def note_cids(self, ordinal: int, limit: int = 64) -> np.ndarray:
        """The live chunk ids of the note with this ordinal (its first `limit`)."""
        n = min(len(self.note_of), len(self.alive))
        mask = (self.note_of[:n] == ordinal) & self.alive[:n]
        return np.asarray(self.cids[:n][mask][:limit], dtype=np.int64)

    def locate(self, cid: int) -> tuple[str, int] | None:
        """(entity id, chunk index) of a live chunk, from memory."""
        pos = int(np.searchsorted(self.cids, cid))
        if pos < len(self.cids) and self.cids[pos] == cid and self.alive[pos]:
            return self.entity(pos), int(self.chunk_index[pos])
        return None

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.searchsorted(self.terms, term))
        if i < len(self.terms) and self.terms[i] == term:
            lo, hi = self.offsets[i], self.offsets[i + 1]
            rows, tfs = self.rows[lo:hi], self.tfs[lo:hi]
        else:
            rows, tfs = np.zeros(0, np.int32), np.zeros(0, np.float32)
        extra = self.delta.get(term)
        if extra:
            rows = np.concatenate([rows, np.array([r for r, _ in extra], dtype=np.int32)])
            tfs = np.concatenate([tfs, np.array([f for _, f in extra], dtype=np.float32)])
        return rows, tfs


def _column(array: Column, dtype: type[np.generic]) -> Column:
    """`array` as `dtype`; a FileArray of another dtype (not written by _build) is refused."""
    if isinstance(array, FileArray):
        if array.dtype != dtype:
            raise ValueError(f"side file array of {array.dtype}, not {np.dtype(dtype)}")
        return array
    return np.asarray(array, dtype=dtype)


def _pack(values: list[str]) -> dict[str, np.ndarray]:
    """Strings as one UTF-8 buffer and their offsets."""
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return {"names": np.frombuffer(b"".join(encoded), dtype=np.uint8), "name_offsets": offsets}


def row_mask(cids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """A mask over `cids` (sorted ascending): True where the cid is also in `wanted`."""
    mask = np.zeros(len(cids), dtype=bool)
    if not len(cids) or not len(wanted):
        return mask
    pos = np.searchsorted(cids, wanted)
    inside = pos < len(cids)
    pos, values = pos[inside], wanted[inside]
    mask[pos[cids[pos] == values]] = True
    return mask
