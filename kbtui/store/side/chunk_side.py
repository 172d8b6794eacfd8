"""The chunk cache (chunk_cache.py) in a side file next to the index, mapped at start.

Filling the cache from the table read every chunk's text and every note's row at the first
search (100k chunks: 0.5-1 s, +150 MB of transient heap and 27 MB of DuckDB pages). The
cache's columns are written here instead (kbtui/store/side/arrays.py: disposable, checked
against the index's id and each chunk's content fingerprint) and a later start maps them:
a search then reads only the texts it returns (with pread: see store/side/arrays.py). Note rows are
kept as one JSON document each, read and decoded the first time a note is shown.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.store.side.arrays import SideChecks, load_arrays, mapped, write_arrays
from kbtui.store.side.chunk_cache import INT_FIELDS, NOTE_KEYS, TEXT_FIELDS, ChunkCache, Texts

SIDE_FILE = "chunks.arrays"
_TIMES = frozenset(i for i, k in enumerate(NOTE_KEYS) if k.endswith("_at"))
NAMES = (
    "cids",
    "fingerprints",
    "entity",
    "ints",
    *(f"{f}_{part}" for f in (*TEXT_FIELDS, "entities", "notes") for part in ("bytes", "offsets")),
)
READ = ("fingerprints", "notes_bytes", *(f"{f}_bytes" for f in TEXT_FIELDS))  # not mapped


def encode_note(note: tuple[Any, ...]) -> bytes:
    values = [
        v.isoformat() if isinstance(v, dt.datetime) else list(v) if isinstance(v, tuple) else v
        for v in note
    ]
    return json.dumps(values, ensure_ascii=False).encode()


def decode_note(raw: bytes) -> tuple[Any, ...]:
    values = json.loads(raw)
    return tuple(
        dt.datetime.fromisoformat(v)
        if i in _TIMES and v is not None
        else tuple(v)
        if isinstance(v, list)
        else v
        for i, v in enumerate(values)
    )


def _pack(values: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in values], out=offsets[1:])
    return np.frombuffer(b"".join(values), dtype=np.uint8), offsets


def write_cache(
    path: Path,
    stamp: dict[str, Any],
    cache: ChunkCache,
    fingerprints_of: Callable[[np.ndarray], np.ndarray],
) -> bool:
    """Write the cache's live rows; False (nothing written) when a note row would not
    come back as it is. Fingerprints are taken after compacting (dead rows dropped)."""
    cache.compact()
    fingerprints = fingerprints_of(cache.cids)
    notes = []
    for entity_id in cache.entities:
        note = cache.note(entity_id)
        raw = b"" if note is None else encode_note(note)
        if note is not None and decode_note(raw) != note:
            return False
        notes.append(raw)
    arrays: dict[str, np.ndarray] = {
        "cids": cache.cids,
        "fingerprints": fingerprints,
        "entity": cache.entity,
        "ints": cache.ints,
    }
    for f in TEXT_FIELDS:
        arrays[f"{f}_bytes"], arrays[f"{f}_offsets"] = cache.texts[f].data(), cache.texts[f].offsets
    arrays["entities_bytes"], arrays["entities_offsets"] = _pack(
        [e.encode() for e in cache.entities]
    )
    arrays["notes_bytes"], arrays["notes_offsets"] = _pack(notes)
    write_arrays(path, arrays, stamp)
    return True


def load_cache(
    path: Path,
    stamp: dict[str, Any],
    same_chunks: Callable[[np.ndarray, np.ndarray], bool],
    folder: Path,
    checks: SideChecks | None = None,
) -> ChunkCache | None:
    """The cache mapped from `path`, if it was written for this index and its chunks."""
    arrays = load_arrays(path, stamp, NAMES, read=READ, checks=checks)
    if arrays is None:
        return None
    if not same_chunks(mapped(arrays, "cids"), np.asarray(arrays["fingerprints"])):
        return None
    cache = ChunkCache(folder)
    cache.cids = mapped(arrays, "cids")
    cache.alive = np.ones(len(cache.cids), dtype=bool)
    cache.entity = mapped(arrays, "entity")
    cache.ints = mapped(arrays, "ints").reshape(-1, len(INT_FIELDS))
    cache.texts = {
        f: Texts(folder=folder, base=(arrays[f"{f}_bytes"], mapped(arrays, f"{f}_offsets")))
        for f in TEXT_FIELDS
    }
    names, offsets = mapped(arrays, "entities_bytes"), mapped(arrays, "entities_offsets")
    cache.entities = [
        names[offsets[i] : offsets[i + 1]].tobytes().decode() for i in range(len(offsets) - 1)
    ]
    cache.codes = {e: i for i, e in enumerate(cache.entities)}
    cache.packed_notes(arrays["notes_bytes"], mapped(arrays, "notes_offsets"), decode_note)
    return cache
