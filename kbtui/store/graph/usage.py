"""Usage statistics (Q-value, access count, last access) with deferred writes.

Every kb_get, kb_search and graph read records a use. Written at once, that upsert was more
than half of a kb_get (3.4 of 6 ms: a DuckDB write and commit per read). Uses are now folded
in memory and written in one MERGE at most every FLUSH_SECONDS, before any query
that orders or aggregates by them, and when the store closes. Reads through `entity_rows`
see pending uses at once (`overlay_usage`), so nothing a caller observes changes.

The learning rule q <- q + alpha * (reward - q) is affine in q, so any sequence of uses since
the last write folds into one map q <- a * q + b, applied exactly at the write (a missing row
starts from 0.5). A process killed between writes loses at most those seconds of counters,
never notes or index content.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

FLUSH_SECONDS = 2.0


@dataclass
class PendingUse:
    a: float = 1.0
    b: float = 0.0
    count: int = 0
    last: dt.datetime | None = None


class UsageStore:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection
    _pending_uses: dict[str, PendingUse]
    _pending_since: float
    may_write: Callable[[], AbstractContextManager[bool]]  # StoreAccess'

    def record_usage(self, ids: Sequence[str], reward: float, alpha: float, count: bool) -> None:
        """q <- q + alpha * (reward - q), starting from 0.5; `count` bumps accessCount."""
        if not ids:
            return
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        pending = self._pending_uses
        if not pending:
            self._pending_since = time.monotonic()
        for entity_id in dict.fromkeys(ids):
            use = pending.setdefault(entity_id, PendingUse())
            use.a, use.b = (1 - alpha) * use.a, (1 - alpha) * use.b + alpha * reward
            if count:
                use.count += 1
                use.last = now
        if time.monotonic() - self._pending_since >= FLUSH_SECONDS:
            self.flush_usage()

    def overlay_usage(self, rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Entity rows as they will read once pending uses are written."""
        for entity_id, row in rows.items():
            use = self._pending_uses.get(entity_id)
            if use is not None:
                row["q_value"] = use.a * row["q_value"] + use.b
                row["access_count"] += use.count
                row["last_accessed"] = use.last or row["last_accessed"]
        return rows

    def flush_usage(self) -> None:
        """Write pending uses: update the rows that exist, insert the others. Not from a
        reader beside a save (file/access.py): the save writes them when it starts."""
        if not self._pending_uses:
            return
        with self.may_write() as allowed:
            if allowed:
                self._write_usage()

    def _write_usage(self) -> None:
        pending = self._pending_uses
        if not pending:
            return
        self._pending_uses = {}
        ids = list(pending)
        uses = [pending[i] for i in ids]
        self.con.register(
            "_uses",
            {
                "id": np.asarray(ids, dtype=np.str_),
                "a": np.asarray([u.a for u in uses], dtype=np.float64),
                "b": np.asarray([u.b for u in uses], dtype=np.float64),
                "n": np.asarray([u.count for u in uses], dtype=np.int64),
                "t": np.asarray([u.last or np.datetime64("NaT") for u in uses], "datetime64[us]"),
            },
        )
        try:  # one statement, one commit: an UPDATE then an INSERT took 20-110 ms at 300k
            self.con.execute("""
                MERGE INTO entity_usage u USING _uses p ON u.entity_id = p.id
                WHEN MATCHED THEN UPDATE SET
                    q_value = p.a * u.q_value + p.b,
                    access_count = u.access_count + p.n,
                    last_accessed = coalesce(p.t, u.last_accessed)
                WHEN NOT MATCHED THEN INSERT VALUES (p.id, p.a * 0.5 + p.b, p.n, p.t)""")
        finally:
            self.con.unregister("_uses")

    def carry_usage(self, moves: list[tuple[str, str]]) -> None:
        """A renamed note whose id follows its file name keeps its Q-value and access count
        under the new id (unless the new id already has its own)."""
        for old, new in moves:
            if old == new:
                continue
            self.con.execute(
                """INSERT INTO entity_usage
                   SELECT $new, q_value, access_count, last_accessed FROM entity_usage
                   WHERE entity_id = $old
                     AND NOT EXISTS (SELECT 1 FROM entity_usage WHERE entity_id = $new)""",
                {"old": old, "new": new},
            )
            self.con.execute("DELETE FROM entity_usage WHERE entity_id = ?", [old])

    def merge_usage(self, target: str, sources: Sequence[str]) -> None:
        """The target keeps the best Q-value and the summed access counts of a merge."""
        self.flush_usage()
        ids = [target, *sources]
        row = self.con.execute(
            """SELECT max(q_value), sum(access_count), max(last_accessed) FROM entity_usage
               WHERE entity_id IN (SELECT unnest($ids))""",
            {"ids": ids},
        ).fetchone()
        if row is None or row[0] is None:
            return
        self.con.execute(
            "DELETE FROM entity_usage WHERE entity_id IN (SELECT unnest($ids))", {"ids": ids}
        )
        self.con.execute(
            "INSERT INTO entity_usage VALUES (?, ?, ?, ?)", [target, row[0], int(row[1]), row[2]]
        )
