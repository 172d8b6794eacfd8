"""Writes held for review: what an assistant asked to change, kept until a person decides.

`kbtui mcp --review` (or the vault's review setting, which the TUI turns on) holds an
assistant's note writes as proposals instead of writing them (kbtui.tools.review). Each one
keeps the call (tool and arguments), the note, the hash of the note it was proposed against,
the bytes before and after (the write's dry run) and the diff a person reads. A proposal is
`pending` until accepted (written with that hash), rejected, or saved as a copy; its state is
what the assistant can ask for. The table lives in the history file (`.kbtui/history.sqlite`)
beside the versions, so any process of the vault reads the same proposals.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS proposals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    path TEXT NOT NULL,
    base_hash TEXT,
    base BLOB,
    proposed BLOB,
    proposed_hash TEXT,
    added INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0,
    diff TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT 'pending',
    decided REAL,
    outcome TEXT,
    result_hash TEXT
);
CREATE INDEX IF NOT EXISTS proposals_state ON proposals (state, id);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
PENDING = "pending"
STATES = (PENDING, "accepted", "rejected", "copied")
_COLUMNS = (
    "id, time, source, tool, args, path, base_hash, proposed_hash, added, removed, diff, "
    "state, decided, outcome, result_hash"
)
_REVIEW_KEY = "review"


@dataclass(frozen=True)
class Proposal:
    id: int
    time: float
    source: str  # who asked: mcp:<client>
    tool: str
    args: dict[str, Any]
    path: str
    base_hash: str | None  # the note's hash when proposed (None: a new note)
    proposed_hash: str | None  # the bytes it would write (None: the note deleted)
    added: int
    removed: int
    diff: str
    state: str
    decided: float | None
    outcome: str | None  # what the decision did, in words
    result_hash: str | None  # the note's hash after an accept

    def as_dict(self, diff: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "state": self.state,
            "tool": self.tool,
            "path": self.path,
            "source": self.source,
            "time": _clock(self.time),
            "base_hash": self.base_hash,
            "added": self.added,
            "removed": self.removed,
        }
        if diff:
            out["diff"] = self.diff
        if self.decided is not None:
            out["decided"] = _clock(self.decided)
            out["outcome"] = self.outcome
            out["hash"] = self.result_hash
        return out


class Proposals:
    """The proposals of one vault, on the history file's connection and lock."""

    def __init__(self, con: sqlite3.Connection, lock: threading.Lock) -> None:
        self._con = con
        self._lock = lock
        with self._lock, self._con:
            self._con.executescript(SCHEMA)

    def add(
        self,
        source: str,
        tool: str,
        args: dict[str, Any],
        path: str,
        base: bytes | None,
        base_hash: str | None,
        proposed: bytes | None,
        proposed_hash: str | None,
        added: int,
        removed: int,
        diff: str,
    ) -> Proposal:
        with self._lock, self._con:
            cursor = self._con.execute(
                "INSERT INTO proposals (time, source, tool, args, path, base_hash, base, "
                "proposed, proposed_hash, added, removed, diff) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    time.time(),
                    source,
                    tool,
                    json.dumps(args, ensure_ascii=False),
                    path,
                    base_hash,
                    _pack(base),
                    _pack(proposed),
                    proposed_hash,
                    added,
                    removed,
                    diff,
                ),
            )
            number = int(cursor.lastrowid or 0)
        found = self.get(number)
        assert found is not None
        return found

    def get(self, number: int) -> Proposal | None:
        with self._lock:
            row = self._con.execute(
                f"SELECT {_COLUMNS} FROM proposals WHERE id = ?", (number,)
            ).fetchone()
        return None if row is None else _proposal(row)

    def texts(self, number: int) -> tuple[bytes | None, bytes | None]:
        """The note's bytes when proposed and the bytes the proposal would write (None: no
        file before / the note deleted)."""
        with self._lock:
            row = self._con.execute(
                "SELECT base, proposed FROM proposals WHERE id = ?", (number,)
            ).fetchone()
        if row is None:
            raise KeyError(number)
        return _unpack(row[0]), _unpack(row[1])

    def listed(
        self, state: str | None = None, path: str | None = None, limit: int = 200
    ) -> list[Proposal]:
        """Newest first; of one state and/or one note when given."""
        where, params = [], list[object]()
        if state is not None:
            where.append("state = ?")
            params.append(state)
        if path is not None:
            where.append("path = ?")
            params.append(path)
        sql = f"SELECT {_COLUMNS} FROM proposals"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
        with self._lock:
            rows = self._con.execute(sql, params).fetchall()
        return [_proposal(r) for r in rows]

    def pending_count(self) -> int:
        with self._lock:
            row = self._con.execute(
                "SELECT count(*) FROM proposals WHERE state = ?", (PENDING,)
            ).fetchone()
        return int(row[0]) if row else 0

    def decide(self, number: int, state: str, outcome: str, result_hash: str | None = None) -> bool:
        """Mark a pending proposal decided; False when it was not pending (decided already,
        by another process a moment ago, or unknown)."""
        assert state in STATES and state != PENDING
        with self._lock, self._con:
            changed = self._con.execute(
                "UPDATE proposals SET state = ?, decided = ?, outcome = ?, result_hash = ? "
                "WHERE id = ? AND state = ?",
                (state, time.time(), outcome, result_hash, number, PENDING),
            ).rowcount
        return changed == 1

    def prune(self, cutoff: float) -> int:
        """Drop proposals decided before `cutoff` (pending ones stay until decided)."""
        with self._lock, self._con:
            return int(
                self._con.execute(
                    "DELETE FROM proposals WHERE state <> ? AND decided < ?", (PENDING, cutoff)
                ).rowcount
            )

    # -- the vault's review setting ----------------------------------------------------------

    def review_on(self) -> bool:
        """True when every assistant's writes to this vault are held for review."""
        with self._lock:
            row = self._con.execute(
                "SELECT value FROM settings WHERE key = ?", (_REVIEW_KEY,)
            ).fetchone()
        return bool(row) and row[0] == "on"

    def set_review(self, on: bool) -> None:
        with self._lock, self._con:
            self._con.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                (_REVIEW_KEY, "on" if on else "off"),
            )


def _pack(data: bytes | None) -> bytes | None:
    return None if data is None else zlib.compress(data, 6)


def _unpack(raw: bytes | None) -> bytes | None:
    return None if raw is None else zlib.decompress(raw)


def _clock(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(when))


def _proposal(row: tuple[Any, ...]) -> Proposal:
    (number, when, source, tool, args, path, base_hash, proposed_hash, added, removed, diff,
     state, decided, outcome, result_hash) = row  # fmt: skip
    return Proposal(
        int(number),
        float(when),
        str(source),
        str(tool),
        json.loads(args),
        str(path),
        base_hash,
        proposed_hash,
        int(added),
        int(removed),
        str(diff),
        str(state),
        None if decided is None else float(decided),
        outcome,
        result_hash,
    )
