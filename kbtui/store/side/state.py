"""What the side files next to the index are checked against (kbtui/store/side/arrays.py).

Three keys in the meta table, bookkeeping like row ids (left out of verify's comparison):
- `index_id`: random, made when the file is made; a file deleted, rebuilt or set aside after
  damage gets a new one, so no side file of the old one is ever taken for it;
- `next_cid`: the highest chunk id ever handed out, plus one. Chunk ids are never reused, so
  a chunk id names one chunk text (and its postings) for the life of the index: a side file
  made earlier is a valid picture of every chunk it holds that still exists, and the
  chunks written since are the ones with larger ids (or, for vectors, the ones it lacks);
- `vectors_epoch`: counts writes that replace vectors already stored (another model, a
  vector written again); side files of vectors made before such a write are not reused.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

SIDE_KEYS = ("index_id", "next_cid", "vectors_epoch")  # bookkeeping, not content
STALE_FRACTION = 0.05  # a side file this far behind the index is written again at start


class SideState:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection
    path: Path
    read_only: bool
    generation: int
    _next_cid: int
    _embedded_at_open: np.ndarray | None

    @property
    def next_cid(self) -> int:
        """The id the next chunk written will get; every id below it was handed out once."""
        return self._next_cid

    def meta(self, key: str) -> str | None: ...

    def embedded_at_open(self) -> np.ndarray | None:
        """The embedded chunk ids read at open (ReadQueries), while nothing was written since;
        no SQL, so any thread may ask. Else None."""
        return self._embedded_at_open if self.generation == 0 else None

    def set_meta(self, key: str, value: str) -> None: ...

    def _ensure_index_id(self) -> None:
        if self.meta("index_id") is None:
            self.set_meta("index_id", uuid.uuid4().hex)

    def chunk_fingerprints(self) -> tuple[np.ndarray, np.ndarray]:
        """(cids, a 64-bit hash of each chunk's content hash), by cid: what a side file
        made earlier (kbtui/store/side/arrays.py) is checked against, row by row."""
        res = self.con.execute(
            "SELECT cid, hash(content_hash) AS h FROM chunks ORDER BY cid"
        ).fetchnumpy()
        return np.asarray(res["cid"], dtype=np.int64), np.asarray(res["h"], dtype=np.uint64)

    def fingerprints_of(self, cids: np.ndarray) -> np.ndarray:
        """The fingerprints (ReadQueries.chunk_fingerprints) of these live chunks."""
        live, fingerprints = self.chunk_fingerprints()
        pos = np.minimum(np.searchsorted(live, cids), max(len(live) - 1, 0))
        return fingerprints[pos] if len(live) else np.zeros(len(cids), dtype=np.uint64)

    def same_chunks(self, cids: np.ndarray, fingerprints: np.ndarray) -> bool:
        """Whether a side file's rows hold the chunks this index has under those ids (a
        chunk id it has that the index gave to another text since, e.g. an older copy of
        the index restored, or a kbtui that did not keep ids unique, makes it unusable)."""
        if len(cids) and int(cids[-1]) >= self.next_cid:
            return False  # ids this index never handed out
        live, now = self.chunk_fingerprints()
        pos = np.minimum(np.searchsorted(live, cids), max(len(live) - 1, 0))
        both = live[pos] == cids if len(live) else np.zeros(len(cids), dtype=bool)
        return bool(np.array_equal(now[pos[both]], np.asarray(fingerprints)[both]))

    def side_path(self, name: str) -> Path:
        return self.path.parent / name

    def side_stamp(self, kind: str) -> dict[str, Any] | None:
        """What a side file of `kind` must have been made from to be reused; None: this
        store keeps no side files (opened read-only before it had an id)."""
        index_id = self.meta("index_id")
        if index_id is None:
            return None
        stamp: dict[str, Any] = {"kind": kind, "index_id": index_id}
        if kind == "vectors":
            stamp["model"] = self.meta("embed_model")
            stamp["vectors_epoch"] = self.meta("vectors_epoch") or "0"
        return stamp

    def _bump_vectors_epoch(self) -> None:
        """Inside the transaction that replaces stored vectors."""
        self.set_meta("vectors_epoch", str(int(self.meta("vectors_epoch") or 0) + 1))
