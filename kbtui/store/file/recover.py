"""Telling a damaged index file from a busy one, and setting a damaged one aside.

The index is rebuildable from the vault (DESIGN principle 1), so an unreadable file is not a
dead end: it is renamed to `index.duckdb.corrupt-<time>` (kept for a bug report, never
deleted) and a fresh one is built. Only errors that say the bytes are bad count as damage; a
lock held by another process, a permission problem or a newer schema are reported, never
"repaired" by moving someone's file away.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the errors below are imported by processes that never load DuckDB
    import duckdb

log = logging.getLogger("kbtui.store")


class StoreError(RuntimeError):
    """The index cannot be used; the message is meant for the user."""


class StoreLockedError(StoreError):
    """Another process holds the index file open."""


class StoreDamagedError(StoreError):
    """The index file's bytes are bad (truncated, overwritten); it can be rebuilt."""


def classified(exc: duckdb.Error, db_path: Path) -> StoreError:
    """The StoreError for a failed open. Matching "lock" alone is wrong: DuckDB's checksum
    errors say "block", and a damaged file was reported as open in another process."""
    if is_lock_error(exc):
        return StoreLockedError(
            f"the index {db_path} is open in another kbtui process; close it and retry"
        )
    if is_damage(exc):
        return StoreDamagedError(f"the index {db_path} is damaged: {exc}")
    return StoreError(f"cannot open the index {db_path}: {exc}")


# What DuckDB 1.5 says about a file whose bytes are wrong (truncated, overwritten, garbage).
DAMAGE_WORDS = (
    "not a valid duckdb database file",
    "corrupt database file",
    "could not read enough bytes",
    "does not match stored checksum",
    "serialization error",
    "failed to deserialize",
    "invalid database",
    "invalid block",
)
LOCK_WORDS = ("could not set lock",)

# Queries that read every table's rows (all but the vectors, which the vector index reads
# in full at start anyway): damage in the middle of a table shows up here, at open, rather
# than as a failing search later. Cheap next to loading the vectors.
CHECKS = (
    "SELECT count(*), sum(length(path)), sum(length(title)), sum(length(file_hash)),"
    " sum(length(frontmatter::VARCHAR)), sum(size) FROM notes",
    "SELECT count(*), sum(cid), sum(length(content)), sum(length(heading)),"
    " sum(length(content_hash)) FROM chunks",  # the vectors: Store._read_at_open reads them
    "SELECT count(*), sum(term), sum(cid), sum(tf) FROM postings",
    "SELECT count(*), sum(length(tag)) FROM tags",
    "SELECT count(*), sum(pos), sum(length(tag)) FROM file_tags",
    "SELECT count(*), sum(length(target)), sum(length(key)) FROM links",
    "SELECT count(*), sum(length(key)) FROM entity_names",
    "SELECT count(*), sum(source_key), sum(length(rel_id)) FROM relationships",
    "SELECT count(*), sum(access_count) FROM entity_usage",
    "SELECT count(*), sum(node), sum(key), sum(length(entity_id)) FROM graph_nodes",
    "SELECT count(*), sum(a), sum(b), sum(length(rel_id)) FROM graph_edges",
)


def is_lock_error(exc: BaseException) -> bool:
    return any(word in str(exc).lower() for word in LOCK_WORDS)


def is_damage(exc: BaseException) -> bool:
    """True when DuckDB says the file's bytes are bad (not busy, not forbidden)."""
    text = str(exc).lower()
    return not is_lock_error(exc) and any(word in text for word in DAMAGE_WORDS)


def check_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Read every indexed row once (the vector column: Store._read_at_open, right after);
    raises duckdb.Error where a block is damaged."""
    for sql in CHECKS:
        con.execute(sql).fetchall()


def set_aside(db_path: Path, reason: BaseException) -> str:
    """Rename the damaged file (and its WAL) out of the way; returns the message to show."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    kept = db_path.with_name(f"{db_path.name}.corrupt-{stamp}-{os.getpid()}")
    os.replace(db_path, kept)
    wal = db_path.with_name(db_path.name + ".wal")
    if wal.exists():
        os.replace(wal, kept.with_name(kept.name + ".wal"))
    first_line = str(reason).strip().splitlines()[0] if str(reason).strip() else type(reason)
    message = (
        f"the index {db_path} was damaged ({first_line}); it was moved to {kept.name} "
        "and is being rebuilt from the vault (notes are safe: they live in the vault)"
    )
    log.warning("%s", message)
    return message
