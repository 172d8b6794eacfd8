"""Vectors written into the chunks table: which chunks wait for one, and storing a batch."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

import duckdb
import numpy as np

from kbtui.models import EMBED_DIM


class EmbeddingWrites:
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection
    generation: int

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def transaction(self) -> AbstractContextManager[None]:
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
                self.con.execute("UPDATE chunks SET embedding = NULL")
                self._bump_vectors_epoch()
            self.set_meta("embed_model", model_id)
        return previous is not None

    def pending_embeddings(self, limit: int) -> list[tuple[int, str, str, str]]:
        """(cid, title, heading, shown text) of chunks still waiting for a vector, the most
        recently modified notes first (what a person likely wants early), in note order.
        Chunks not worth a vector (`not_embedded`, kbtui.vault.meaning) never wait."""
        rows = self.con.execute(
            """
            SELECT c.cid, n.title, c.heading, coalesce(c.shown, c.content) FROM chunks c
            JOIN notes n USING (entity_id)
            WHERE c.embedding IS NULL AND c.not_embedded IS NULL
            ORDER BY n.mtime_ns DESC, c.cid LIMIT ?
            """,
            [limit],
        ).fetchall()
        return [(int(r[0]), r[1], r[2], r[3]) for r in rows]

    def count_pending(self) -> int:
        row = self.con.execute(
            "SELECT count(*) FROM chunks WHERE embedding IS NULL AND not_embedded IS NULL"
        ).fetchone()
        return int(row[0]) if row else 0

    def set_embeddings(self, cids: Sequence[int], vectors: np.ndarray) -> None:
        n = len(cids)
        if n == 0:
            return
        self.generation += 1
        flat = {
            "r": np.repeat(np.asarray(cids, dtype=np.int64), EMBED_DIM),
            "j": np.tile(np.arange(EMBED_DIM, dtype=np.int16), n),
            "v": np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1),
        }
        self.con.register("_vec", flat)
        try:
            with self.transaction():
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
        finally:
            self.con.unregister("_vec")
