"""Who uses the index file when: one writer at a time, reads beside a save (issue 33).

DuckDB keeps row versions (MVCC): a statement on a connection of its own reads the last
committed state while another connection's write transaction is open. So a save's statements
need not hold every reader off (one note's save held the store 250-1,000 ms under load); only
its COMMIT and the bookkeeping after it do (generation counters, the vector log, meta values,
the next chunk id), so that a reader sees the index as it was before a save or after it,
never between. Two re-entrant locks:

- `write`: one writer at a time: the indexer's store calls and every call that is not a read;
- `read`: the store's readers one at a time (the in-memory indexes, caches and side-file maps
  they bring up to date are not thread-safe), and a writer's COMMIT with what follows it.

`StoreLock` as a context manager takes both, `write` first: what every store user took before
there were two. A write transaction `beside_readers` lets `read` go for its statements and
takes it back for the COMMIT; meanwhile the writer touches only the database and its own
local values. A reader takes `read` only and reads through the store's read cursor (`con` is
the connection of whoever may use the store on this thread, see `StoreAccess.con`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import duckdb


class LockOrderError(RuntimeError):
    """A thread holding only the read lock asked for the write lock (a reader that writes):
    refused at once rather than deadlocked against a writer waiting for its COMMIT."""


class StoreLock:
    """The write lock then the read lock, as one re-entrant lock (see the module docstring).
    `_release_save`/`_acquire_restore` let both go and take them back, as `threading.Condition`
    does with an RLock (runtime.VaultRuntime._released: long work off the store)."""

    def __init__(self) -> None:
        self.write = threading.RLock()
        self.read = threading.RLock()

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        if self.owns_read() and not self.owns_write():
            raise LockOrderError("a reader of the store cannot write (take the store lock first)")
        self.write.acquire()
        self.read.acquire()

    def release(self) -> None:
        self.read.release()
        self.write.release()

    def owns_read(self) -> bool:
        return bool(self.read._is_owned())  # type: ignore[attr-defined]

    def owns_write(self) -> bool:
        return bool(self.write._is_owned())  # type: ignore[attr-defined]

    def _release_save(self) -> tuple[Any, Any]:
        read = self.read._release_save() if self.owns_read() else None  # type: ignore[attr-defined]
        write = self.write._release_save() if self.owns_write() else None  # type: ignore[attr-defined]
        return read, write

    def _acquire_restore(self, state: tuple[Any, Any]) -> None:
        read, write = state
        if write is not None:
            self.write._acquire_restore(write)  # type: ignore[attr-defined]
        if read is not None:
            self.read._acquire_restore(read)  # type: ignore[attr-defined]


class StoreAccess:
    """Mixed into Store (first): its connections, write transactions and meta values."""

    lock: StoreLock
    _con: duckdb.DuckDBPyConnection
    _read_con: duckdb.DuckDBPyConnection | None = None
    _meta_seen: dict[str, str | None]
    _meta_txn: dict[str, str] | None = None  # set inside the open write transaction
    _txn_thread = 0
    # Called by a writer between its statements and its COMMIT, readers still in: where
    # tests hold a save mid-way (tests/test_reads_beside_saves.py). None in use.
    before_commit: Callable[[], None] | None = None

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The read cursor for a thread that holds only the read lock (a reader beside a
        save: the writer has the connection), else the connection."""
        lock = self.lock
        if self._read_con is not None and lock.owns_read() and not lock.owns_write():
            return self._read_con
        return self._con

    @con.setter
    def con(self, value: duckdb.DuckDBPyConnection) -> None:
        self._con = value

    def open_read_cursor(self) -> None:
        """Once the file is open and migrated, before any other thread uses the store."""
        self._read_con = self._con.cursor()

    def close_connections(self) -> None:
        """The read cursor, then the connection; a later statement on either raises
        duckdb's "Connection already closed" (the runtime answers "closed" before that)."""
        if self._read_con is not None:
            with suppress(duckdb.Error):
                self._read_con.close()
        self._con.close()

    @contextmanager
    def may_write(self) -> Iterator[bool]:
        """Whether this thread may write now: True under the write lock; a reader gets it only
        if no writer holds it (never waits: lock order). For writes a read may skip (the
        usage counters: the next save writes them)."""
        lock = self.lock
        if lock.owns_write() or not lock.owns_read():
            yield True
            return
        if not lock.write.acquire(blocking=False):
            yield False
            return
        try:
            yield True
        finally:
            lock.write.release()

    @contextmanager
    def beside_readers(self) -> Iterator[None]:
        """Let readers in while this thread (a writer, under the store lock) only reads the
        database or writes in a transaction of its own, and touches nothing they use."""
        if not (self.lock.owns_write() and self.lock.owns_read()):
            yield
            return
        state = self.lock.read._release_save()  # type: ignore[attr-defined]
        try:
            yield
        finally:
            self.lock.read._acquire_restore(state)  # type: ignore[attr-defined]

    @contextmanager
    def transaction(self, beside_readers: bool = False) -> Iterator[None]:
        """All or nothing. `beside_readers`: readers go on while the statements run (they see
        the last commit); the COMMIT waits for the reader in flight and holds the next ones
        until the caller's bookkeeping after it is done (the caller holds the store lock).
        A Ctrl-C that DuckDB turns into "Query interrupted" inside it is raised as the
        KeyboardInterrupt it was (not a traceback), after the rollback."""
        read, con = self.lock.read, self._con  # the writer's, whatever it holds at the COMMIT
        # Only a writer (under the write lock) lets readers in and takes the read lock for its
        # COMMIT. A thread without it is a one-shot user or a helper of a writer that holds the
        # store lock for it (a tool call's indexer embedding on a second thread, under the
        # indexer's own lock): the read lock is its caller's, taking it would wait forever.
        writer = self.lock.owns_write()
        state = None
        if beside_readers and writer and self.lock.owns_read():
            state = read._release_save()  # type: ignore[attr-defined]
        taken = False
        self._meta_txn, self._txn_thread = {}, threading.get_ident()
        try:
            con.execute("BEGIN TRANSACTION")
            yield
            if state is not None and self.before_commit is not None:
                self.before_commit()
            if state is not None:
                read._acquire_restore(state)  # type: ignore[attr-defined]
                state = None
            elif writer and not self.lock.owns_read():
                read.acquire()
                taken = True
            con.execute("COMMIT")
            self._meta_seen.update(self._meta_txn)
        except BaseException as exc:
            if state is not None:
                read._acquire_restore(state)  # type: ignore[attr-defined]
            self._meta_seen.clear()  # values set inside are undone
            with suppress(duckdb.Error):  # nothing to roll back if the COMMIT went through
                con.execute("ROLLBACK")
            if _interrupted(exc):
                raise KeyboardInterrupt from exc
            raise
        finally:
            self._meta_txn = None
            if taken:
                read.release()

    def meta(self, key: str) -> str | None:
        """A meta value, remembered until set_meta or a rollback: every answer's `index`
        reads the model's name, and a query per call cost ~4 ms under load (issue 33). A
        value set inside the open write transaction is the writer's alone until its COMMIT."""
        txn = self._meta_txn
        if txn is not None and key in txn and self._txn_thread == threading.get_ident():
            return txn[key]
        if key in self._meta_seen:
            return self._meta_seen[key]
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        value = self._meta_seen[key] = None if row is None else str(row[0])
        return value

    def set_meta(self, key: str, value: str) -> None:
        self._meta_seen.pop(key, None)  # a failed write must not leave a value remembered
        self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])
        txn = self._meta_txn
        if txn is not None and self._txn_thread == threading.get_ident():
            txn[key] = value  # remembered for everyone at the COMMIT
        else:
            self._meta_seen[key] = value


def _interrupted(exc: BaseException) -> bool:
    """DuckDB's answer to a SIGINT during a query (InterruptException, or RuntimeError)."""
    if isinstance(exc, duckdb.InterruptException):
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()
