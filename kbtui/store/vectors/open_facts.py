"""What an open learns by reading every stored vector, kept beside the index by a clean close.

Every open needs the ids of the chunks that have a vector and the floor under which no chunk
waits for one (EmbeddingWrites._read_at_open). DuckDB answers `embedding IS NOT NULL` only by
decompressing the whole vector column: 1M chunks 2-3 s with the file in the page cache and
2.5 GB read from disk without (after a reboot, or on a VM that pages out idle file pages), the
largest read of a start.

It also notes the side files whose checksum this process read (or trusted) and that are
unchanged at close (side.arrays.SideChecks): the next open does not read them again in full.

So a clean close writes them (side/arrays.py, `index.duckdb.facts.arrays`) under the clean-close
stamp of the file it leaves (kbtui/store/file/clean_close.py: size, mtime, inode, DuckDB version),
and an open uses them only when the file is still exactly that (no WAL, stamp matching): then
they are the facts of the file as it is. Anything else (a crash, a copy, a restore, an older
kbtui's close, a damaged or cut-short record) and the open reads the column as before. Like the
other side files it is never the source of truth: deleting it costs one read of the column.

A close knows them without reading the column: the ids read (or loaded) at open, plus the
vectors this process logged (Store.vector_log), less the chunks deleted since, and for the
chunks written since its open (ids past the open's next id, which the column's min/max
statistics prune to) the table itself, so rows added by SQL outside the store's methods
(tests, bulk benches) are counted as they are. A close after vectors were dropped (another
model) writes none.
"""

from __future__ import annotations

import json
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.store.file.clean_close import facts_path, file_state
from kbtui.store.side.arrays import load_arrays, write_arrays
from kbtui.store.vectors.hnsw_build import member

NAMES = ("embedded", "floor", "side")
Facts = tuple[np.ndarray, int, dict[str, list[int]]]


def _stamp(db_path: Path) -> dict[str, Any]:
    return {"kind": "open facts", **file_state(db_path)}


def load(db_path: Path) -> Facts | None:
    """(embedded chunk ids, ascending; the waiting floor; the side files checked, as
    side.arrays.SideChecks notes them) as the last clean close recorded them for the file as
    it is now; None when there are none for it. The caller has checked that the file is as a
    clean close left it (clean_close.closed_cleanly)."""
    try:
        arrays = load_arrays(facts_path(db_path), _stamp(db_path), NAMES)
    except OSError:
        return None
    if arrays is None:
        return None
    embedded = np.array(arrays["embedded"], dtype=np.int64)  # a copy: the file goes at open
    floor = np.asarray(arrays["floor"], dtype=np.int64)
    if len(floor) != 1 or (len(embedded) > 1 and bool((np.diff(embedded) <= 0).any())):
        return None
    try:
        side = json.loads(np.asarray(arrays["side"], dtype=np.uint8).tobytes())
    except ValueError:
        return None
    return embedded, int(floor[0]), side if isinstance(side, dict) else {}


def record(db_path: Path, embedded: np.ndarray, floor: int, side: dict[str, list[int]]) -> None:
    """After DuckDB closed the file without error and its stamp was written."""
    with suppress(OSError):  # a record that cannot be written costs the next open one read
        arrays: dict[str, np.ndarray] = {
            "embedded": np.ascontiguousarray(embedded, dtype=np.int64),
            "floor": np.array([floor], dtype=np.int64),
            "side": np.frombuffer(json.dumps(side).encode(), dtype=np.uint8),
        }
        write_arrays(facts_path(db_path), arrays, _stamp(db_path))


def at_close(
    at_open: np.ndarray, logged: np.ndarray, live_before: np.ndarray, written_since: np.ndarray
) -> np.ndarray:
    """The embedded ids at close: those of the chunks older than the open's next id that had
    a vector at open or were given one since (`logged`) and still exist (`live_before`), then
    the embedded ids of the chunks written since (`written_since`, read from the table)."""
    extra = np.unique(logged[~member(logged, at_open)])  # sorted arrays merged, not re-sorted
    old = np.insert(at_open, np.searchsorted(at_open, extra), extra) if len(extra) else at_open
    old = old[member(old, live_before)]  # a binary search, not a sort (1M: 0.7 s)
    return np.concatenate([old, written_since])  # every id written since is larger
