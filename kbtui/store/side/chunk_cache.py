"""Chunk and note rows held in RAM for the reads that show text: kb_search, kb_get, get_chunk.

DuckDB reads a single chunk row in ~1 ms at 100k chunks (it decompresses a whole vector of
the FSST-compressed content column; an IN list decompresses all of them: 40 ms). That was
half of kb_search's time and most of kb_get's. Here each text field is one UTF-8 buffer with
offsets (~1 byte a character: 35 MB at 100k chunks, against ~50 bytes of overhead per Python
str), and the integers are numpy columns. The text buffers live in unlinked temporary files
beside the index, mapped into memory: only the pages of the texts a read returns count in the
process's RAM, and the OS drops them under pressure (reading a mapped page costs microseconds,
a DuckDB point read ~1 ms). A file without a name cannot outlive the process or be reused
stale (tests/test_chunk_cache.py, test_crash.py). What a start needs is mapped from a named,
checked side file instead of read from the table when there is one (chunk_side.py); rows
added since go to the unnamed buffers.
The rows of the notes that have chunks are kept too, with their tags (a point read of notes
plus tags cost ~2.5 ms). Only the store fills it, with rows it read by SQL.

It follows the table by diffing cid sets whenever the store's notes changed: rows of new cids
are read once and appended, rows whose cid went away are masked, and past a quarter masked
the arrays are compacted. The notes of every chunk added or removed are read again (a note
is always written with all its chunks, so a changed note always shows up here). Cids only
grow, so appending keeps them sorted; anything else makes it load everything again.
"""

from __future__ import annotations

import mmap
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from kbtui.store.side.arrays import Column

COMPACT_FRACTION = 0.25
TEXT_FIELDS = ("heading", "content", "shown")  # shown: "" when it is the content
INT_FIELDS = ("chunk_index", "start_pos", "end_pos")
NOTE_COLUMNS = (  # the notes table, in the order writes give them
    "entity_id",
    "path",
    "type",
    "name",
    "title",
    "folder",
    "frontmatter",
    "aliases",
    "size",
    "mtime_ns",
    "file_hash",
    "chunk_size",
    "chunk_overlap",
    "created_at",
    "indexed_at",
)
FILE_STATE = frozenset({"size", "mtime_ns", "file_hash"})  # for change detection only
NOTE_KEYS = tuple(c for c in NOTE_COLUMNS if c not in FILE_STATE)  # what a note row holds
NOTE_FIELDS = ("type", "title", "path", "folder")  # what a chunk row carries of its note
_NOTE_AT = [NOTE_KEYS.index(f) for f in NOTE_FIELDS]


class Texts:
    """Many strings in one UTF-8 buffer, read back one at a time.

    With `folder`, the buffer is an unlinked temporary file there, memory-mapped (see the
    module docstring); without, a bytes object."""

    def __init__(
        self,
        values: Sequence[str] = (),
        folder: Path | None = None,
        base: tuple[Column, np.ndarray] | None = None,
    ) -> None:
        """`base`: (UTF-8 bytes, offsets) of strings already in a buffer (a side file, see
        chunk_side.py), followed by `values`."""
        self.folder = folder
        self._file: IO[bytes] | None = None
        self._map: mmap.mmap | None = None
        self._blob = b""
        self._size = 0
        empty = (np.zeros(0, np.uint8), np.zeros(1, np.int64))
        self._base: Column = (base or empty)[0]
        offsets = (base or empty)[1]
        self._base_bytes = int(offsets[-1])
        encoded = [v.encode() for v in values]
        ends = self._base_bytes + np.cumsum([len(e) for e in encoded], dtype=np.int64)
        self.offsets = np.concatenate([np.asarray(offsets, dtype=np.int64), ends])
        self._append(b"".join(encoded))

    def _append(self, data: bytes) -> None:
        if self.folder is None:
            self._blob += data
            return
        if not data:
            return
        if self._file is None:
            # Open for the life of this buffer, closed by close(): no context manager fits.
            self._file = tempfile.TemporaryFile(prefix="texts-", dir=self.folder)  # noqa: SIM115
        self._file.seek(self._size)
        self._file.write(data)
        self._file.flush()
        self._size += len(data)
        self._map = mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> str:
        start, end = int(self.offsets[i]), int(self.offsets[i + 1])
        if end <= self._base_bytes:
            return self._base[start:end].tobytes().decode()
        start, end = start - self._base_bytes, end - self._base_bytes
        if self.folder is None or self._map is None:
            return self._blob[start:end].decode()
        return self._map[start:end].decode()

    def extend(self, values: Sequence[str]) -> None:
        encoded = [v.encode() for v in values]
        ends = self.offsets[-1] + np.cumsum([len(e) for e in encoded], dtype=np.int64)
        self.offsets = np.concatenate([self.offsets, ends])
        self._append(b"".join(encoded))

    def data(self) -> np.ndarray:
        """Every string's bytes, one after the other (what `offsets` index)."""
        if self.folder is None or self._file is None:
            tail = self._blob
        else:
            self._file.seek(0)
            tail = self._file.read(self._size)
        return np.concatenate([np.asarray(self._base), np.frombuffer(tail, dtype=np.uint8)])

    def take(self, rows: np.ndarray) -> Texts:
        return Texts([self[int(i)] for i in rows], self.folder)

    def close(self) -> None:
        """Drop the mapping and the file now rather than when collected."""
        self._map = None  # a slice being decoded elsewhere keeps its own bytes
        if self._file is not None:
            self._file.close()
            self._file = None


class ChunkCache:
    """cid -> chunk row (and its note's title, type, path, folder), without a query."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder  # where the text buffers' files go (None: in RAM)
        self.texts: dict[str, Texts] = {}
        self._reset()

    def _reset(self) -> None:
        self.close()
        self.cids = np.zeros(0, dtype=np.int64)
        self.alive = np.zeros(0, dtype=bool)
        self.entity = np.zeros(0, dtype=np.int32)  # index into self.entities
        self.ints = np.zeros((0, len(INT_FIELDS)), dtype=np.int64)
        self.texts = {f: Texts(folder=self.folder) for f in TEXT_FIELDS}
        self.entities: list[str] = []
        self.codes: dict[str, int] = {}
        self.notes: dict[str, tuple[Any, ...]] = {}  # NOTE_KEYS values, then the sorted tags
        self._packed: tuple[Column, np.ndarray, Callable[[bytes], tuple[Any, ...]]] | None
        self._packed = None  # note rows of a side file, by entity code (chunk_side.py)
        self._packed_ok = np.zeros(0, dtype=bool)  # False: read again since, see `notes`

    def packed_notes(
        self, data: Column, offsets: np.ndarray, decode: Callable[[bytes], tuple[Any, ...]]
    ) -> None:
        """Note rows of entity code i at data[offsets[i]:offsets[i + 1]] (empty: none),
        decoded by `decode` when first asked for."""
        self._packed = (data, offsets, decode)
        self._packed_ok = np.ones(len(offsets) - 1, dtype=bool)

    def note(self, entity_id: str) -> tuple[Any, ...] | None:
        """The note row of an entity with chunks here (NOTE_KEYS values, sorted tags)."""
        note = self.notes.get(entity_id)
        code = self.codes.get(entity_id)
        if note is not None or self._packed is None or code is None:
            return note
        data, offsets, decode = self._packed
        if code >= len(self._packed_ok) or not self._packed_ok[code]:
            return None
        raw = data[offsets[code] : offsets[code + 1]].tobytes()
        if not raw:
            return None
        self.notes[entity_id] = note = decode(raw)
        return note

    def missing(self, table_cids: np.ndarray) -> tuple[np.ndarray, set[str]]:
        """Mask rows the table lost; return the cids to read and the notes of lost rows."""
        keep = np.isin(self.cids, table_cids, assume_unique=True)
        lost = {self.entities[c] for c in np.unique(self.entity[self.alive & ~keep])}
        self.alive &= keep
        added = table_cids[~np.isin(table_cids, self.cids, assume_unique=True)]
        if len(added) and len(self.cids) and added.min() <= self.cids[-1]:
            self._reset()
            return table_cids, set()
        if len(self.alive) - int(self.alive.sum()) > COMPACT_FRACTION * max(len(self.alive), 1000):
            self.compact()
        return added, lost

    def set_notes(self, asked: set[str], found: dict[str, tuple[Any, ...]]) -> None:
        """Note rows read again for `asked`; the ones not found are gone."""
        for entity_id in asked - set(found):
            self.notes.pop(entity_id, None)
        self.notes.update(found)
        for entity_id in asked:  # what the side file said of them is out of date
            code = self.codes.get(entity_id)
            if code is not None and code < len(self._packed_ok):
                self._packed_ok[code] = False

    def add(self, rows: dict[str, np.ndarray]) -> None:
        """Append rows (columns cid, entity_id, *INT_FIELDS, *TEXT_FIELDS, ascending cid)."""
        for entity_id in rows["entity_id"]:
            if entity_id not in self.codes:
                self.codes[entity_id] = len(self.entities)
                self.entities.append(entity_id)
        codes = np.array([self.codes[e] for e in rows["entity_id"]], dtype=np.int32)
        self.cids = np.concatenate([self.cids, np.asarray(rows["cid"], dtype=np.int64)])
        self.alive = np.concatenate([self.alive, np.ones(len(codes), dtype=bool)])
        self.entity = np.concatenate([self.entity, codes])
        new_ints = np.column_stack([np.asarray(rows[f], dtype=np.int64) for f in INT_FIELDS])
        self.ints = np.concatenate([self.ints, new_ints.reshape(-1, len(INT_FIELDS))])
        for f in TEXT_FIELDS:
            self.texts[f].extend(list(rows[f]))

    def compact(self) -> None:
        """Drop the masked rows."""
        if self.alive.all():
            return
        keep = np.flatnonzero(self.alive)
        self.cids, self.entity, self.ints = self.cids[keep], self.entity[keep], self.ints[keep]
        self.alive = np.ones(len(keep), dtype=bool)
        old, self.texts = self.texts, {f: t.take(keep) for f, t in self.texts.items()}
        for texts in old.values():
            texts.close()
        live = {self.entities[c] for c in np.unique(self.entity)}
        self.notes = {e: v for e, v in self.notes.items() if e in live}
        if self._packed is not None:  # entities no chunk has any more: forget their rows
            gone = np.ones(len(self._packed_ok), dtype=bool)
            gone[np.unique(self.entity[self.entity < len(gone)])] = False
            self._packed_ok &= ~gone

    def close(self) -> None:
        for texts in self.texts.values():
            texts.close()

    def row(self, i: int) -> dict[str, Any] | None:
        entity_id = self.entities[int(self.entity[i])]
        note = self.note(entity_id)
        if note is None:
            return None
        index, start, end = (int(v) for v in self.ints[i])
        return {
            "cid": int(self.cids[i]),
            "chunk_id": f"{entity_id}_chunk_{index}",
            "entity_id": entity_id,
            "chunk_index": index,
            "heading": self.texts["heading"][i],
            "content": self.texts["content"][i],
            "shown": self.texts["shown"][i] or self.texts["content"][i],
            "start_pos": start,
            "end_pos": end,
            **{f: note[at] for f, at in zip(NOTE_FIELDS, _NOTE_AT, strict=True)},
        }

    def details(self, cids: Sequence[int] | np.ndarray) -> dict[int, dict[str, Any]]:
        wanted = np.unique(np.asarray(cids, dtype=np.int64))
        at = np.minimum(np.searchsorted(self.cids, wanted), max(len(self.cids) - 1, 0))
        out = {}
        for cid, i in zip(wanted.tolist(), at.tolist(), strict=True):
            if len(self.cids) and self.cids[i] == cid and self.alive[i]:
                row = self.row(i)
                if row is not None:
                    out[cid] = row
        return out

    def note_rows(self, entity_id: str) -> list[dict[str, Any]]:
        """A note's chunks in chunk order."""
        code = self.codes.get(entity_id)
        if code is None:
            return []
        rows = np.flatnonzero((self.entity == code) & self.alive)
        found = [r for r in (self.row(int(i)) for i in rows) if r is not None]
        return sorted(found, key=lambda r: r["chunk_index"])
