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
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("kbtui.side")
MAGIC = b"KBTUIARR"
FORMAT = 1
ALIGN = 64
BLOCK = 4 * 2**20


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
    path: Path, stamp: dict[str, Any], names: tuple[str, ...]
) -> dict[str, np.ndarray] | None:
    """The arrays of `path`, mapped read-only, if it was written for `stamp`, is whole and
    holds every one of `names`; else None, and a file that exists but does not fit is
    deleted."""
    try:
        arrays = _load(path, stamp)
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


def _load(path: Path, stamp: dict[str, Any]) -> dict[str, np.ndarray] | None:
    with open(path, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError("not a side file")
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
        if header.get("format") != FORMAT or header.get("stamp") != stamp:
            return None
        start = len(MAGIC) + 8 + size
        start += _pad(start)
        if os.fstat(f.fileno()).st_size != start + header["payload"]:
            raise ValueError("wrong size")
        f.seek(start)
        crc = 0
        while block := f.read(BLOCK):
            crc = zlib.crc32(block, crc)
        if crc != header["crc32"]:
            raise ValueError("checksum mismatch")
        if not header["payload"]:
            return {s["name"]: np.zeros(s["shape"], s["dtype"]) for s in header["arrays"]}
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    out = {}
    for spec in header["arrays"]:
        dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if not count:
            out[spec["name"]] = np.zeros(shape, dtype)
            continue
        array = np.frombuffer(mapped, dtype, count, start + spec["offset"]).reshape(shape)
        out[spec["name"]] = array  # keeps the mapping alive; unmapped when all are dropped
    return out
