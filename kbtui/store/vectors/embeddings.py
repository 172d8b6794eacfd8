"""Vectors written into the chunks table: which chunks wait for one, and storing a batch."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import duckdb
import numpy as np

from kbtui.models import EMBED_DIM
from kbtui.store.side.arrays import SideChecks
from kbtui.store.vectors.open_facts import Facts, at_close

VECTOR_LOG_MAX = 200_000  # logged cids (8 bytes each); past this, readers reload every vector


class EmbeddingWrites:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection
    generation: int
    _next_cid: int
    # No chunk under this cid waits for a vector, as far as this process knows (0: unknown).
    # A save's pass then looks for waiting chunks among the few new ones: finding them over
    # the whole table reads the vector column (~20-40 ms at 43k chunks, twice per pass).
    _pending_from: int = 0
    # Cids given a vector by this process, in order, since `vector_epoch` last changed (it
    # does when vectors are dropped or the log is cut short): the in-memory vector index
    # reads only what was added since it last looked instead of the whole vector column.
    vector_log: array[int]
    vector_epoch: int
    _given: array[int]  # every cid given a vector by this process (the log is cut short)
    _dropped: bool  # vectors were dropped (another model) since the open
    _id_table: Callable[..., AbstractContextManager[str]]  # ReadQueries'
    _embedded_at_open: np.ndarray | None  # ReadQueries'
    _facts: Facts | None  # open_facts.load's, taken at open (db.py)
    side_checks: SideChecks  # the side files checked (side/arrays.py)
    _open_next_cid: int  # the next chunk id when the file was opened
    stats: Callable[[], dict[str, Any]]  # ReadQueries'

    def _log_vectors(self, cids: Sequence[int]) -> None:
        self._given.extend(int(c) for c in cids)  # kept whole: the close's facts need them all
        if len(self.vector_log) + len(cids) > VECTOR_LOG_MAX:
            self.vector_log, self.vector_epoch = array("q"), self.vector_epoch + 1
        else:
            self.vector_log.extend(int(c) for c in cids)

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def transaction(self, beside_readers: bool = False) -> AbstractContextManager[None]:
        raise NotImplementedError  # Store's

    def beside_readers(self) -> AbstractContextManager[None]:
        raise NotImplementedError  # Store's

    def _bump_vectors_epoch(self) -> None: ...  # SideState's

    def reset_embeddings_for_model(self, model_id: str) -> bool:
        """Drop vectors made by another model. Returns True when any were dropped."""
        previous = self.meta("embed_model")
        if previous == model_id:
            return False
        self.generation += 1
        with self.transaction():
            if previous is not None:
                self._pending_from, self._dropped = 0, True
                self.con.execute("UPDATE chunks SET embedding = NULL")
                self._bump_vectors_epoch()
            self.set_meta("embed_model", model_id)
        self.vector_log, self.vector_epoch = array("q"), self.vector_epoch + 1
        return previous is not None

    def pending_embeddings(self, limit: int) -> list[tuple[int, str, str, str]]:
        """(cid, title, heading, shown text) of chunks still waiting for a vector, the most
        recently modified notes first (what a person likely wants early), in note order.
        Chunks not worth a vector (`not_embedded`, kbtui.vault.meaning) never wait."""
        since = self._pending_from
        with self.beside_readers():  # a read: searches go on (~5-25 ms a save under load)
            rows = self.con.execute(
                """
                SELECT c.cid, n.title, c.heading, coalesce(c.shown, c.content) FROM chunks c
                JOIN notes n USING (entity_id)
                WHERE c.cid >= ? AND c.embedding IS NULL AND c.not_embedded IS NULL
                ORDER BY n.mtime_ns DESC, c.cid LIMIT ?
                """,
                [since, limit],
            ).fetchall()
        if not rows:
            self._pending_from = self._next_cid
        return [(int(r[0]), r[1], r[2], r[3]) for r in rows]

    def _read_at_open(self) -> None:
        """At open, under the damage check's small pool cap (db.py): the reads of the vector
        column every first answer makes (100k chunks: ~0.1 s each, and 30 MB of pages the
        pool kept), kept until this process's first write (the file is locked to it).

        One read of the column answers both the embedded ids and the chunks waiting for a
        vector (the floor of count_pending), and is the damage check's read of it: asked
        apart, the ids, the check's count and stats' count of the waiting ones each read
        every vector (1M chunks: 1.2-1.8 s each, three of them before the first answer).
        A file as the last clean close left it has both recorded beside it (open_facts.py):
        then no vector is read (1M: 2-3 s warm, 2.5 GB from a cold disk)."""
        if self._facts is not None:
            self._embedded_at_open, self._pending_from, vouched = self._facts
            self.side_checks, self._facts = SideChecks(vouched), None
        else:
            cids, has, waiting = self._vector_flags()
            self._embedded_at_open = np.sort(cids[has])  # no SQL sort
            self._pending_from = int(cids[waiting].min()) if waiting.any() else self._next_cid
        self.stats()

    def _vector_flags(self, since: int | None = None) -> tuple[np.ndarray, ...]:
        """(cid, has a vector, waits for one) of every chunk (from cid `since` on)."""
        res = self.con.execute(
            """SELECT cid, embedding IS NOT NULL AS has,
                   embedding IS NULL AND not_embedded IS NULL AS waiting FROM chunks"""
            + ("" if since is None else f" WHERE cid >= {int(since)}")
        ).fetchnumpy()
        cids = np.asarray(res["cid"], dtype=np.int64)
        return cids, np.asarray(res["has"], dtype=bool), np.asarray(res["waiting"], dtype=bool)

    def _facts_at_close(self) -> tuple[np.ndarray, int] | None:
        """(embedded ids, waiting floor) of the file as this close leaves it, for the next
        open (open_facts.py), without reading the vectors of the chunks older than this
        open; None when this process cannot vouch for them (vectors were dropped) or the
        table cannot be read."""
        if self._embedded_at_open is None or self._dropped:
            return None
        try:
            since = self._open_next_cid
            cids, has, waiting = self._vector_flags(since)
            before = self.con.execute(
                "SELECT cid FROM chunks WHERE cid < ? ORDER BY cid", [since]
            ).fetchnumpy()["cid"]
        except duckdb.Error:
            return None
        logged = np.unique(np.frombuffer(self._given, dtype=np.int64))
        old = np.asarray(before, dtype=np.int64)
        embedded = at_close(self._embedded_at_open, logged, old, np.sort(cids[has]))
        # no chunk older than this open waits under _pending_from; the new ones as read
        first_waiting = int(cids[waiting].min()) if waiting.any() else self._next_cid
        return embedded, self._pending_from if self._pending_from < since else first_waiting

    def count_pending(self) -> int:
        """Chunks waiting for a vector."""
        row = self.con.execute(
            """SELECT count(*) FROM chunks
               WHERE cid >= ? AND embedding IS NULL AND not_embedded IS NULL""",
            [self._pending_from],
        ).fetchone()
        count = int(row[0]) if row else 0
        if not count:
            self._pending_from = self._next_cid
        return count

    def _reuse_vectors(self, hashes: list[str], first_cid: int) -> list[int]:
        """Give chunks from `first_cid` on the vector of an older chunk with the same text.

        The older chunks are found by their hash alone first: grouping every vector by hash
        read the whole vector column, ~170 ms per save at 43k chunks, where a save's few
        hashes need only the hash column and the rows that match. Returns the cids given one."""
        if not hashes:
            return []
        with self._id_table(hashes, "_hashes") as table:
            rows = self.con.execute(
                f"""SELECT cid FROM chunks WHERE cid < ?
                    AND content_hash IN (SELECT id FROM {table})""",
                [first_cid],
            ).fetchnumpy()["cid"]
        if not len(rows):
            return []
        old = np.sort(np.asarray(rows, dtype=np.int64))
        with self._id_table(old, "_old") as table:
            given = self.con.execute(
                f"""
                UPDATE chunks SET embedding = old.embedding
                FROM (SELECT content_hash, any_value(embedding) AS embedding FROM chunks
                      WHERE cid BETWEEN {int(old[0])} AND {int(old[-1])}
                        AND cid IN (SELECT id FROM {table}) AND embedding IS NOT NULL
                      GROUP BY content_hash) AS old
                WHERE chunks.cid >= ? AND chunks.content_hash = old.content_hash
                  AND chunks.not_embedded IS NULL
                RETURNING chunks.cid
                """,
                [first_cid],
            ).fetchall()
        return [int(r[0]) for r in given]

    def set_embeddings(self, cids: Sequence[int], vectors: np.ndarray) -> None:
        """Store these vectors in one transaction, beside readers (file/access.py)."""
        n = len(cids)
        if n == 0:
            return
        flat = {
            "r": np.repeat(np.asarray(cids, dtype=np.int64), EMBED_DIM),
            "j": np.tile(np.arange(EMBED_DIM, dtype=np.int16), n),
            "v": np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1),
        }
        self.con.register("_vec", flat)
        try:
            with self.transaction(beside_readers=True):
                rewritten = self.con.execute(
                    """SELECT count(*) FROM chunks WHERE embedding IS NOT NULL
                       AND cid IN (SELECT r FROM _vec)"""
                ).fetchone()
                if rewritten and rewritten[0]:  # vectors replaced, not added
                    self._bump_vectors_epoch()
                self.con.execute(f"""
                    UPDATE chunks SET embedding = s.e FROM (
                        SELECT r, array_agg(v ORDER BY j)::FLOAT[{EMBED_DIM}] AS e
                        FROM _vec GROUP BY r) AS s
                    WHERE chunks.cid = s.r""")
        finally:  # under the read lock again
            self.generation += 1
            self.con.unregister("_vec")
        self._log_vectors(cids)
