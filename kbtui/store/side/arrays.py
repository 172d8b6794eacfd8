"""Named numpy arrays in one disposable side file next to the index, mapped at start.

What must be ready at start (the float16 vector matrix, the keyword index's postings) is
written here once and memory-mapped by later starts instead of being read back from DuckDB
rows: a start maps the file (milliseconds) where reading and sorting the rows took seconds at
100k chunks, and the pages are the OS's page cache, shared and dropped under pressure.

Like the HNSW side file, such a file is never the source of truth: the caller names the
store state it was made from (a `stamp`: the index's id and counters, see
Store.side_stamp), and a file whose stamp, size or checksum does not match is deleted and
rebuilt from the store. A write goes to a temporary name first and is renamed over the file
only when whole, so a crash leaves the old file or the new one; a temporary file a killed
writer left is removed by the next write. The checksum (crc32 of every byte after the
header, read in blocks, not mapped) catches a file damaged on disk or cut short.

Arrays a caller names in `read` are not mapped but read with pread when sliced (FileArray):
the texts of the chunk cache, the keyword postings, the fingerprints checked once. A mapped
page counts in the process's RSS from its first touch until it is unmapped, and this kernel
maps a whole large page-cache folio (up to 2 MB, as the file's write or the checksum's read
left it) for one touched byte: a search touched ten chunk texts and 12 MB of the texts'
pages counted (100k chunks). Read, only the bytes asked for are copied; the file's pages
stay the OS's page cache. What a search reads in full (the vector matrix) stays mapped.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import weakref
import zlib
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("kbtui.side")
MAGIC = b"KBTUIARR"
FORMAT = 1
ALIGN = 64
BLOCK = 4 * 2**20


class FileArray:
    """A 1-D array in a side file, read from the file (os.pread) when sliced, never mapped.

    The descriptor is closed when the last FileArray of the file is collected; a side file
    replaced meanwhile (always by a rename) leaves it reading the old one, as a mapping
    would."""

    def __init__(self, fd: _Descriptor, offset: int, dtype: np.dtype[Any], length: int):
        self._fd, self._offset, self.dtype, self._length = fd, offset, dtype, length

    def __len__(self) -> int:
        return self._length

    @property
    def nbytes(self) -> int:
        return self._length * self.dtype.itemsize

    def __getitem__(self, key: slice) -> np.ndarray:
        start, stop, step = key.indices(self._length)
        if step != 1:
            raise IndexError("a FileArray is sliced in steps of 1")
        size = max(stop - start, 0) * self.dtype.itemsize
        data = os.pread(self._fd.fd, size, self._offset + start * self.dtype.itemsize)
        if len(data) != size:
            raise OSError("side file cut short while in use")
        return np.frombuffer(data, self.dtype)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        whole = self[:]
        return whole if dtype is None else whole.astype(dtype)


class FileRows:
    """The rows of a mapped 2-D array, read from the file (os.pread) a row at a time: a
    gather of a few hundred rows (the HNSW candidates rescored) copies 768 bytes each,
    where reading them through the mapping maps a whole page-cache folio per row (up to
    2 MB) and, at a million rows, all of the matrix again after one search."""

    def __init__(self, fd: _Descriptor, offset: int, dtype: np.dtype[Any], shape: tuple[int, int]):
        self._fd, self._offset, self.dtype, self.shape = fd, offset, dtype, shape
        self._row = shape[1] * dtype.itemsize

    def take(self, rows: np.ndarray) -> np.ndarray:
        fd, offset, size = self._fd.fd, self._offset, self._row
        data = b"".join(os.pread(fd, size, offset + int(r) * size) for r in rows)
        if len(data) != len(rows) * size:
            raise OSError("side file cut short while in use")
        return np.frombuffer(data, self.dtype).reshape(len(rows), self.shape[1])


def release(array: np.ndarray) -> None:
    """Unmap from this process the pages of a mapped side file's array (MADV_DONTNEED): they
    stay in the OS's page cache and the next read maps them again. No-op for an array in
    RAM (or where madvise is missing)."""
    pages: Any = array
    while isinstance(pages, np.ndarray | memoryview):
        pages = pages.base if isinstance(pages, np.ndarray) else pages.obj
    if not isinstance(pages, mmap.mmap) or not array.nbytes or not hasattr(mmap, "MADV_DONTNEED"):
        return
    start = array.ctypes.data - np.frombuffer(pages, np.uint8).ctypes.data
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (start + array.nbytes) // mmap.PAGESIZE * mmap.PAGESIZE
    if end > first:
        pages.madvise(mmap.MADV_DONTNEED, first, end - first)


class _Descriptor:
    """A file descriptor closed when this is collected."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        weakref.finalize(self, os.close, fd)


Column = np.ndarray | FileArray  # a side file's array, mapped or read on demand


class SideChecks:
    """The side files whose checksum a process need not read again (kbtui/store/
    open_facts.py), and the ones it read or trusted, by name: (size, mtime, inode, crc32).

    Reading every byte of the side files for their checksum was most of a start from a cold
    page cache (1M chunks: 1.6 GB; a spawned server at 300k chunks: 1.3 of its 2-4 s). A file
    checked once and unchanged since (same size, mtime and inode, the same checksum in its
    header) is vouched for by the clean close that recorded it, as the damage check of the
    index file is (kbtui/store/file/clean_close.py); a file written or touched since is read in
    full again, and its header's stamp and size are checked at every load."""

    def __init__(self, vouched: dict[str, list[int]] | None = None) -> None:
        self.vouched = dict(vouched or {})
        self.checked: dict[str, list[int]] = {}

    def still_true(self, folder: Path) -> dict[str, list[int]]:
        """The files checked (or vouched for) that are still as they were."""
        out = {}
        for name, ident in self.checked.items():
            try:
                st = os.stat(folder / name)
            except OSError:
                continue
            if [st.st_size, st.st_mtime_ns, st.st_ino] == ident[:3]:
                out[name] = ident
        return out


def mapped(arrays: dict[str, Column], name: str) -> np.ndarray:
    """The array `name` of load_arrays' answer, which the caller did not ask to read."""
    array = arrays[name]
    assert isinstance(array, np.ndarray), name
    return array


def _pad(n: int) -> int:
    return -n % ALIGN


def _bytes(data: np.ndarray) -> memoryview:
    """The bytes of a C-contiguous array, without a copy."""
    return data.reshape(-1).view(np.uint8).data if data.size else memoryview(b"")


def write_arrays(path: Path, arrays: dict[str, np.ndarray], stamp: dict[str, Any]) -> None:
    """Write `arrays` and `stamp` to `path`, atomically (temporary file, then rename)."""
    for old in path.parent.glob(path.name + ".tmp-*"):  # a killed writer's leftovers
        old.unlink(missing_ok=True)
    parts, specs, offset, crc = [], [], 0, 0
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        specs.append(
            {"name": name, "dtype": data.dtype.str, "shape": list(data.shape), "offset": offset}
        )
        parts.append(data)
        offset += data.nbytes + _pad(data.nbytes)
    for data in parts:
        crc = zlib.crc32(_bytes(data), crc)
        crc = zlib.crc32(bytes(_pad(data.nbytes)), crc)
    header = json.dumps(
        {"format": FORMAT, "stamp": stamp, "arrays": specs, "payload": offset, "crc32": crc}
    ).encode()
    head = MAGIC + len(header).to_bytes(8, "little") + header
    head += bytes(_pad(len(head)))
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(head)
            for data in parts:
                f.write(_bytes(data))
                f.write(bytes(_pad(data.nbytes)))
        os.replace(tmp, path)
    except OSError as exc:  # a full disk, a read-only folder: the next start reads the store
        log.warning("could not write %s: %s", path, exc)
        tmp.unlink(missing_ok=True)


def load_arrays(
    path: Path,
    stamp: dict[str, Any],
    names: tuple[str, ...],
    read: tuple[str, ...] = (),
    rows: dict[str, FileRows] | None = None,
    checks: SideChecks | None = None,
) -> dict[str, Column] | None:
    """The arrays of `path`, mapped read-only (those named in `read`: FileArrays), if it
    was written for `stamp`, is whole and holds every one of `names`; else None, and a file
    that exists but does not fit is deleted. Given `rows`, each mapped 2-D array's FileRows
    is set there under its name, to read it a row at a time as well. Given `checks`, the
    checksum is not read again for a file they vouch for, and the file is noted there."""
    try:
        arrays = _load(path, stamp, read, rows, checks)
        if arrays is not None and not set(names) <= set(arrays):
            raise ValueError("arrays missing")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        arrays, why = None, str(exc)
    else:
        why = "" if arrays is not None else "made from another state of the index"
    if arrays is None and path.exists():
        log.info("side file %s rebuilt: %s", path.name, why)
        path.unlink(missing_ok=True)
    return arrays


def _load(
    path: Path,
    stamp: dict[str, Any],
    read: tuple[str, ...],
    rows: dict[str, FileRows] | None,
    checks: SideChecks | None = None,
) -> dict[str, Column] | None:
    with open(path, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError("not a side file")
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
        if header.get("format") != FORMAT or header.get("stamp") != stamp:
            return None
        start = len(MAGIC) + 8 + size
        start += _pad(start)
        st = os.fstat(f.fileno())
        if st.st_size != start + header["payload"]:
            raise ValueError("wrong size")
        ident = [st.st_size, st.st_mtime_ns, st.st_ino, int(header["crc32"])]
        if checks is None or checks.vouched.get(path.name) != ident:
            f.seek(start)
            crc = 0
            while block := f.read(BLOCK):
                crc = zlib.crc32(block, crc)
            if crc != header["crc32"]:
                raise ValueError("checksum mismatch")
        if checks is not None:
            checks.checked[path.name] = ident
        if not header["payload"]:
            return {s["name"]: np.zeros(s["shape"], s["dtype"]) for s in header["arrays"]}
        pages = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        want = read or rows is not None
        fd = _Descriptor(os.dup(f.fileno())) if want else None  # the file just checked
    out: dict[str, Column] = {}
    for spec in header["arrays"]:
        dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        offset = start + spec["offset"]
        if not count:
            out[spec["name"]] = np.zeros(shape, dtype)
        elif spec["name"] in read and fd is not None and len(shape) == 1:
            out[spec["name"]] = FileArray(fd, offset, dtype, count)
        else:  # keeps the mapping alive; unmapped when all its arrays are dropped
            out[spec["name"]] = np.frombuffer(pages, dtype, count, offset).reshape(shape)
            if rows is not None and fd is not None and len(shape) == 2:
                rows[spec["name"]] = FileRows(fd, offset, dtype, (shape[0], shape[1]))
    return out
