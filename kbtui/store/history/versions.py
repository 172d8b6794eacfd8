"""The notes' history: each version's bytes, when, who and by what operation.

It lives beside the index (`.kbtui/history.sqlite`) but is not the index: deleting and
rebuilding the index keeps it. SQLite rather than the DuckDB file because it must be written
before a note is (one small transaction, fsynced by WAL) by any process, and read by one that
does not own the index. Bytes are stored once per content (sha256), zlib-compressed.

A version is a state of a note's file: its bytes (None: the note was deleted), the source
that made it (`cli`, `tui`, `mcp:<client>`, `external` for other programs, as the watcher or
a write found it) and the operation. Versions are numbered per path, 1 the oldest, so a
number stays valid while newer ones are added; pruning drops old ones by age but never a
path's newest (the base to undo the next change).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kbtui.store.history.proposals import Proposals
from kbtui.textdiff import content_hash, line_changes

HISTORY_FILENAME = "history.sqlite"
KEEP_DAYS = 7.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL,
                                  data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    hash TEXT,
    source TEXT NOT NULL,
    operation TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS versions_path ON versions (path, seq);
CREATE INDEX IF NOT EXISTS versions_time ON versions (time);
CREATE TABLE IF NOT EXISTS kept (file TEXT PRIMARY KEY, path TEXT NOT NULL,
                                 hash TEXT, time REAL NOT NULL);
"""
COMPARE_LIMIT = 512_000  # bytes: an outside edit of a bigger note is recorded uncounted
KEPT_GRACE = 30.0  # seconds a file set aside waits for a late write into it before it is read


@dataclass(frozen=True)
class Version:
    path: str
    version: int
    time: float
    hash: str | None  # None: the note was deleted
    source: str
    operation: str
    added: int = 0
    removed: int = 0
    size: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "version": self.version,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.time)),
            "source": self.source,
            "operation": self.operation,
            "hash": self.hash,
            "added": self.added,
            "removed": self.removed,
            "path": self.path,
        }


_COLUMNS = "path, seq, time, hash, source, operation, added, removed"
_NONE = object()  # no version at all (not a deletion)


class History:
    """One vault's history file. Thread-safe; any process may open it."""

    def __init__(self, index_dir: Path, keep_days: float = KEEP_DAYS) -> None:
        index_dir.mkdir(parents=True, exist_ok=True)
        self.path = index_dir / HISTORY_FILENAME
        self.keep_days = keep_days
        self._lock = threading.Lock()
        self._con = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=NORMAL")
        self._con.execute("PRAGMA journal_size_limit=1048576")  # the WAL cut back after use
        self._con.executescript(_SCHEMA)
        self._con.commit()
        self._attributed: dict[str, tuple[str, str]] = {}
        self.proposals = Proposals(self._con, self._lock)  # writes held for review

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def record(
        self,
        path: str,
        data: bytes | None,
        source: str,
        operation: str,
        added: int = 0,
        removed: int = 0,
        when: float | None = None,
    ) -> Version:
        """Add a version of `path` (bytes, or None for a deletion)."""
        return self.record_many([(path, data, source, operation, added, removed)], when)[0]

    def record_many(
        self,
        items: Iterable[tuple[str, bytes | None, str, str, int, int]],
        when: float | None = None,
    ) -> list[Version]:
        """Several versions in one transaction (a rename that rewrote forty notes)."""
        rows = [(item, None if item[1] is None else content_hash(item[1])) for item in items]
        return self._record(rows, time.time() if when is None else when)

    def _record(
        self,
        rows: list[tuple[tuple[str, bytes | None, str, str, int, int], str | None]],
        now: float,
    ) -> list[Version]:
        """The versions (each with its bytes' hash) in one transaction and a few statements
        whatever their number: a thread beside (the indexer's embedding) takes the
        interpreter lock at each statement, so per-note statements cost a group its time."""
        out: list[Version] = []
        with self._lock, self._con:
            seqs = self._in("SELECT path, max(seq) FROM versions WHERE path IN ({}) GROUP BY path",
                            list(dict.fromkeys(item[0] for item, _ in rows)))  # fmt: skip
            wanted = list({d for _, d in rows if d is not None})
            have = self._in("SELECT hash, 1 FROM blobs WHERE hash IN ({})", wanted)
            blobs: dict[str, tuple[str, int, bytes]] = {}
            for (_, data, *_rest), digest in rows:  # compressed only when new
                if (
                    data is not None
                    and digest is not None
                    and digest not in have
                    and digest not in blobs
                ):
                    blobs[digest] = (digest, len(data), zlib.compress(data, 6))
            self._con.executemany(
                "INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)", blobs.values()
            )
            for (path, data, source, operation, added, removed), digest in rows:
                seq = seqs[path] = int(str(seqs.get(path) or 0)) + 1
                size = None if data is None else len(data)
                out.append(Version(path, seq, now, digest, source, operation, added, removed, size))
            self._con.executemany(
                f"INSERT INTO versions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(v.path, v.version, now, v.hash, v.source, v.operation, v.added, v.removed)
                 for v in out],
            )  # fmt: skip
        return out

    def _in(self, sql: str, keys: list[str]) -> dict[str, object]:
        """{first column: second} of `sql` whose `IN ({})` takes `keys`, 500 at a time."""
        out: dict[str, object] = {}
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            query = sql.format(", ".join("?" * len(part)))
            out.update((str(k), v) for k, v in self._con.execute(query, part).fetchall())
        return out

    def observe(self, items: Iterable[tuple[str, bytes]], source: str = "external") -> int:
        """Record what the indexer read where it differs from the path's newest version:
        the edits of other programs, kept so kbtui can undo them too. A group of notes in
        one query and one transaction (an index pass calls it for every group it reads).
        Returns how many versions were added."""
        items = list(items)
        newest = self._newest_hashes([path for path, _ in items])
        fresh: list[tuple[tuple[str, bytes | None, str, str, int, int], str | None]] = []
        for path, data in items:
            known, digest = newest.get(path, _NONE), content_hash(data)
            if known != digest:
                operation = "seen" if known is _NONE else "edited outside kbtui"
                who, operation = self._attributed.get(path, (source, operation))
                added, removed = self._changes_from(known, data)
                fresh.append(((path, data, who, operation, added, removed), digest))
                newest[path] = digest
        if fresh:
            self._record(fresh, time.time())
        return len(fresh)

    def _newest_hashes(self, paths: list[str]) -> dict[str, object]:
        """{path: the hash of its newest version (None: deleted)} for the paths that have one."""
        with self._lock:
            return self._in(
                """SELECT path, hash FROM versions v WHERE path IN ({}) AND seq =
                   (SELECT max(seq) FROM versions w WHERE w.path = v.path)""",
                list(dict.fromkeys(paths)),
            )

    def attribute(self, path: str, source: str | None, operation: str = "") -> None:
        """From now on, what `observe` finds new in `path` is `source`'s `operation` (a note
        handed to an editor for the TUI: its saves are the TUI's); None ends it."""
        with self._lock:
            if source is None:
                self._attributed.pop(path, None)
            else:
                self._attributed[path] = (source, operation)

    def _changes_from(self, newest: object, data: bytes) -> tuple[int, int]:
        """Lines added and removed since the bytes of hash `newest` (0, 0 for a first sight,
        a deletion, or notes too big to compare quickly): what an outside edit did, as
        kbtui's writes say it."""
        if not isinstance(newest, str) or len(data) > COMPARE_LIMIT:
            return 0, 0
        try:
            old = self.data(newest)
        except KeyError:
            return 0, 0
        if len(old) > COMPARE_LIMIT:
            return 0, 0
        return line_changes(old.decode("utf-8", "replace"), data.decode("utf-8", "replace"))

    def observe_deleted(self, paths: Iterable[str]) -> None:
        paths = list(paths)
        newest = self._newest_hashes(paths)
        gone = [(p, None, "external", "deleted outside kbtui", 0, 0) for p in paths]
        gone = [g for g in gone if newest.get(g[0]) is not None]
        if gone:
            self.record_many(gone)

    def newest(self, path: str) -> Version | None:
        found = self.versions(path, limit=1)
        return found[0] if found else None

    def versions(self, path: str, limit: int | None = None) -> list[Version]:
        """The versions of `path`, newest first."""
        sql = f"SELECT {_COLUMNS} FROM versions WHERE path = ? ORDER BY seq DESC"
        params: tuple[object, ...] = (path,)
        if limit is not None:
            sql += " LIMIT ?"
            params = (path, limit)
        with self._lock:
            rows = self._con.execute(sql, params).fetchall()
        return [_version(r) for r in rows]

    def version(self, path: str, number: int) -> Version | None:
        with self._lock:
            row = self._con.execute(
                f"SELECT {_COLUMNS} FROM versions WHERE path = ? AND seq = ?", (path, number)
            ).fetchone()
        return None if row is None else _version(row)

    def data(self, digest: str) -> bytes:
        with self._lock:
            row = self._con.execute("SELECT data FROM blobs WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            raise KeyError(digest)
        return zlib.decompress(row[0])

    def recent(self, limit: int = 100, since: float = 0.0, changes: bool = False) -> list[Version]:
        """The latest versions across the vault, newest first (what changed, by whom);
        `changes`: without the first sight of a note (operation "seen"), which changed
        nothing."""
        seen = " AND operation != 'seen'" if changes else ""
        with self._lock:
            rows = self._con.execute(
                f"SELECT {_COLUMNS} FROM versions WHERE time >= ?{seen} ORDER BY id DESC LIMIT ?",
                (since, limit),
            ).fetchall()
        return [_version(r) for r in rows]

    def last_id(self) -> int:
        """A number that grows with every version recorded (0: none): a cheap way for a
        front end to notice that a note was written, by whichever process."""
        with self._lock:
            row = self._con.execute("SELECT coalesce(max(id), 0) FROM versions").fetchone()
        return int(row[0])

    def paths(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._con.execute("SELECT DISTINCT path FROM versions")]

    def prune(self, now: float | None = None) -> int:
        """Drop versions older than the keep period, except each path's newest while the
        note exists (a deleted note's history goes once it is old). Returns versions dropped."""
        cutoff = (time.time() if now is None else now) - self.keep_days * 86400
        with self._lock, self._con:
            dropped = self._con.execute(
                """DELETE FROM versions WHERE time < ? AND NOT (
                       hash IS NOT NULL AND seq = (SELECT max(seq) FROM versions v
                                                   WHERE v.path = versions.path))""",
                (cutoff,),
            ).rowcount
            self._con.execute(
                "DELETE FROM blobs WHERE hash NOT IN "
                "(SELECT hash FROM versions WHERE hash IS NOT NULL)"
            )
        self.proposals.prune(cutoff)
        if dropped:  # the deletions' pages out of the WAL, and the WAL cut back
            with self._lock:
                self._con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(dropped)

    def note_kept(self, file: Path, path: str, digest: str | None) -> None:
        """A note's old file set aside by a write (kbtui.vault.edit.swap) holding `digest`."""
        with self._lock, self._con:
            self._con.execute(
                "INSERT OR REPLACE INTO kept (file, path, hash, time) VALUES (?, ?, ?, ?)",
                (str(file), path, digest, time.time()),
            )

    def ingest_kept(self, grace: float = KEPT_GRACE) -> int:
        """Read the files set aside at least `grace` seconds ago: one that holds other bytes
        than the note had (a program wrote into it as it was replaced) becomes a version.
        Returns the versions added."""
        with self._lock:
            rows = self._con.execute(
                "SELECT file, path, hash, time FROM kept WHERE time <= ?",
                (time.time() - grace,),
            ).fetchall()
        added = 0
        for file, path, digest, when in rows:
            kept = Path(file)
            try:
                data = kept.read_bytes()
            except OSError:
                data = None
            if data is not None and content_hash(data) != digest:
                known = {v.hash for v in self.versions(path)}
                if content_hash(data) not in known:
                    self.record(path, data, "external", "saved beside a kbtui write", when=when)
                    added += 1
            kept.unlink(missing_ok=True)
            with self._lock, self._con:
                self._con.execute("DELETE FROM kept WHERE file = ?", (file,))
        return added

    def size_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(HISTORY_FILENAME + "*"))


def _version(row: tuple[object, ...]) -> Version:
    path, seq, when, digest, source, operation, added, removed = row
    return Version(
        str(path),
        int(str(seq)),
        float(str(when)),
        None if digest is None else str(digest),
        str(source),
        str(operation),
        int(str(added)),
        int(str(removed)),
    )
