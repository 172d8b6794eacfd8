"""A stamp of the index file as a clean close left it, so the next open can skip the damage
check (recover.check_tables reads every table: 300k chunks ~1-3 s of a spawned server's
start, more than everything else before its first answer).

Damage comes from a process that stopped while writing (kill -9, power loss, a full disk).
The stamp (size, mtime, inode, DuckDB version) is written only after DuckDB closed the file
without error, and removed by the next open for writing before anything is written, so it
exists only while the file is exactly as a clean close left it: a crash after that open finds
no stamp and the check runs; a file changed by anything else (a copy, a restore, a damaged
write) differs in one of those fields. Bytes that rot on disk after a clean close are still
caught by DuckDB's block checksums when a query reads them.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from pathlib import Path
from typing import Any

import duckdb

FORMAT = 1


def stamp_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".closed.json")


def file_state(db_path: Path) -> dict[str, Any]:
    st = os.stat(db_path)
    return {
        "format": FORMAT,
        "duckdb": duckdb.__version__,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "inode": st.st_ino,
    }


def closed_cleanly(db_path: Path) -> bool:
    """True when the file is exactly as kbtui's last clean close left it (and has no WAL)."""
    try:
        stamp = json.loads(stamp_path(db_path).read_text(encoding="utf-8"))
        wal = db_path.with_name(db_path.name + ".wal")
        return not wal.exists() and bool(stamp == file_state(db_path))
    except (OSError, ValueError):
        return False


def facts_path(db_path: Path) -> Path:
    """What the close recorded beside its stamp (kbtui/store/vectors/open_facts.py)."""
    return db_path.with_name(db_path.name + ".facts.arrays")


def forget(db_path: Path) -> None:
    """Before the first write of an open: a crash from here on must not find a stamp (nor
    the facts recorded with it)."""
    with suppress(FileNotFoundError):
        stamp_path(db_path).unlink()
    facts_path(db_path).unlink(missing_ok=True)


def record(db_path: Path) -> None:
    """After DuckDB closed the file without error (atomic: a torn stamp never matches)."""
    with suppress(OSError):  # a stamp that cannot be written only costs the next check
        tmp = stamp_path(db_path).with_suffix(".tmp")
        tmp.write_text(json.dumps(file_state(db_path)), encoding="utf-8")
        os.replace(tmp, stamp_path(db_path))
