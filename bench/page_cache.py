"""The benches' --cold-cache: a vault's index files and kbtui's model out of the page cache.

A user's first start after a reboot reads the index from disk; a bench run right after another
reads it from RAM. `evict` asks the kernel to drop the files' cached pages
(posix_fadvise(POSIX_FADV_DONTNEED), no root needed: it drops clean pages no process maps; a
dirty page is written first, by an fsync) and `resident` counts what is cached, as
fincore(1) does (mincore(2) over a read-only mapping), so a bench can show it worked.

    python bench/page_cache.py <vault>        # resident MB of its files, then evicted
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import sys
from pathlib import Path

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
MAP_FAILED = ctypes.c_void_p(-1).value


def model_files() -> list[Path]:
    """kbtui's model folders (kbtui.embed.prepare_model_dir's cache): what a start loads."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kbtui" / "models"
    return sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []


def index_files(index_dir: Path) -> list[Path]:
    """Every file of a vault's index folder (the DuckDB file, its side files and stamps)."""
    return sorted(p for p in index_dir.iterdir() if p.is_file()) if index_dir.is_dir() else []


def resident_bytes(path: Path) -> int:
    """Bytes of `path` in the page cache now (mincore over a mapping of the whole file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return 0
    try:
        size = os.fstat(fd).st_size
        if not size:
            return 0
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, MAP_FAILED):
            return 0
        try:
            pages = -(-size // mmap.PAGESIZE)
            vec = (ctypes.c_ubyte * pages)()
            if _libc.mincore(addr, size, vec) != 0:
                return 0
            return sum(b & 1 for b in bytes(vec)) * mmap.PAGESIZE
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def resident_mb(paths: list[Path]) -> float:
    return sum(resident_bytes(p) for p in paths) / 2**20


def evict(paths: list[Path]) -> tuple[float, float]:
    """Drop these files' pages from the page cache; (resident MB before, after)."""
    before = resident_mb(paths)
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)  # a dirty page is not dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return before, resident_mb(paths)


def cold(index_dir: Path, label: str = "") -> str:
    """Evict a vault's index files and kbtui's model; one line saying what was resident."""
    index, model = index_files(index_dir), model_files()
    index_mb, model_mb = evict(index), evict(model)
    with open("/proc/meminfo") as f:
        cached = next(int(line.split()[1]) for line in f if line.startswith("Cached:")) / 1024
    return (
        f"cold cache{label}: index files resident {index_mb[0]:.0f} -> {index_mb[1]:.0f} MB "
        f"({len(index)} files), model {model_mb[0]:.0f} -> {model_mb[1]:.0f} MB; "
        f"page cache {cached:.0f} MB (/proc/meminfo Cached)"
    )


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(cold(Path(arg).resolve() / ".kbtui", f" {arg}"))
