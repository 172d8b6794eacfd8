"""What the side files next to the index are checked against (kbtui/store/side_arrays.py).

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

SIDE_KEYS = ("index_id", "next_cid", "vectors_epoch")  # bookkeeping, not content


class SideState:
    """Mixed into Store."""

    path: Path
    read_only: bool
    _next_cid: int

    @property
    def next_cid(self) -> int:
        """The id the next chunk written will get; every id below it was handed out once."""
        return self._next_cid

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def _ensure_index_id(self) -> None:
        if self.meta("index_id") is None:
            self.set_meta("index_id", uuid.uuid4().hex)

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
