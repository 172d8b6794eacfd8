"""The Store: one open DuckDB file, composed of the rooms beside it (file, side, vectors, graph,
queries); it connects, migrates and writes notes.

Callers get plain Python values and numpy arrays.
"""

from __future__ import annotations

import datetime as dt
import json
from array import array
from collections.abc import Sequence
from contextlib import suppress
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from kbtui.models import NoteWrite
from kbtui.store.file import pool, recover
from kbtui.store.file.access import StoreAccess, StoreLock
from kbtui.store.file.clean_close import closed_cleanly, forget
from kbtui.store.file.clean_close import record as record_clean_close
from kbtui.store.file.extensions import extension_path
from kbtui.store.file.pool import CHECK_MEMORY, drop_table_pages, follow_growth, memory_limit
from kbtui.store.file.recover import check_tables
from kbtui.store.file.verify import Snapshot, snapshot
from kbtui.store.graph import paths as graph_paths
from kbtui.store.graph.entities import GraphStore
from kbtui.store.graph.link_queries import LinkQueries
from kbtui.store.graph.map_queries import MapQueries
from kbtui.store.note_facts import FACT_TABLES, insert_facts
from kbtui.store.queries.browse import BrowseQueries
from kbtui.store.queries.note_changes import NoteChanges
from kbtui.store.queries.reads import ReadQueries
from kbtui.store.queries.vault_files import VaultFileQueries
from kbtui.store.side.arrays import SideChecks
from kbtui.store.side.chunk_cache import NOTE_COLUMNS
from kbtui.store.side.state import SideState
from kbtui.store.vectors import open_facts
from kbtui.store.vectors.embeddings import EmbeddingWrites

SCHEMA_VERSION = 14
NOTE_SELECT = ", ".join(
    "frontmatter::VARCHAR::JSON"  # numpy str columns arrive as ENUM; ENUM::JSON quotes them
    if c == "frontmatter"
    else "from_json(aliases::VARCHAR, '[\"VARCHAR\"]')"
    if c == "aliases"
    else f"{c}::TIMESTAMP"
    if c.endswith("_at")
    else c
    for c in NOTE_COLUMNS
)
# The chunks table in column order; `shown` arrives as "" when it is the content itself.
CHUNK_SELECT = (
    'cid, chunk_id, entity_id, idx, heading, content, start, "end", hash, n_terms, NULL, '
    "nullif(shown::VARCHAR, ''), nullif(skip::VARCHAR, '')"
)


DatabaseError = duckdb.Error  # what a failing query raises; callers need not import duckdb


def _column(values: list[Any]) -> np.ndarray:
    """A typed numpy column. Never dtype=object: DuckDB then tries `import pandas` once per
    element, which made bulk inserts ~50x slower when pandas is not installed."""
    if values and all(isinstance(v, int) for v in values):
        return np.asarray(values, dtype=np.int64)
    return np.asarray(values, dtype=np.str_)


class Store(StoreAccess, SideState, ReadQueries, GraphStore, BrowseQueries, LinkQueries,
            EmbeddingWrites, VaultFileQueries, MapQueries, NoteChanges):  # fmt: skip
    """One open index file. Use it under `lock` (file/access.py): the store lock to write,
    its read lock alone to read beside a save (through the read cursor).

    `generation` counts this process's writes, so in-memory indexes know when to re-sync;
    it moves at a write's COMMIT, under the read lock.
    """

    def __init__(self, db_path: Path, read_only: bool = False) -> None:
        self.path = db_path
        self.read_only = read_only
        self.lock = StoreLock()
        self.generation = 0
        self.text_generation = 0  # counts writes of notes and chunks only
        self._init_note_changes()
        self.recovered: str | None = None  # why a damaged file was set aside, if it was
        self._pending_uses = {}
        self.vector_log, self.vector_epoch = array("q"), 0
        self._given, self._dropped = array("q"), False  # for the facts at close (embeddings.py)
        self.side_checks = SideChecks()  # the side files read in full, or vouched for at open
        self._pending_since = 0.0
        db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._open(read_only)
        except recover.StoreDamagedError as exc:
            if read_only or not db_path.exists():
                raise
            self.recovered = recover.set_aside(db_path, exc.__cause__ or exc)
            self._open(read_only)

    def _open(self, read_only: bool) -> None:
        """Connect, load vss, migrate and read every table once, or raise a StoreError
        that says whether the file is busy, damaged (the caller rebuilds) or unusable."""
        checked = closed_cleanly(self.path)  # as the last clean close left it: no check
        self._meta_seen: dict[str, str | None] = {}  # meta(), see there
        self._facts = open_facts.load(self.path) if checked else None  # embeddings.py
        if not read_only:
            forget(self.path)
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            raise recover.classified(exc, self.path) from exc
        try:
            # Give freed memory back to the OS within seconds (RSS at 100k chunks: 830 -> 520
            # MB); by default DuckDB keeps 128 MB per thread cached and returns it lazily.
            self.con.execute("SET allocator_background_threads = true")
            self.con.execute("SET allocator_flush_threshold = '32MB'")
            self._sized_for = pool.estimated_chunks(self.con)  # what the pool cap is set for
            limit = memory_limit(self._sized_for)
            self.con.execute(f"SET memory_limit = '{limit}'")
            self.con.execute(f"LOAD '{extension_path('vss')}'")
            if not read_only:
                self._migrate()
            self._next_cid = max(
                int(self._scalar("SELECT coalesce(max(cid), 0) + 1 FROM chunks")),
                int(self.meta("next_cid") or 0),
            )
            self._open_next_cid = self._next_cid
            try:
                self.con.execute(f"SET memory_limit = '{CHECK_MEMORY}'")
                self._check_and_read(checked)
            except duckdb.OutOfMemoryException:  # too small for this index: the usual cap
                self.con.execute(f"SET memory_limit = '{limit}'")
                self._check_and_read(checked)
            drop_table_pages(self.con)
            self.con.execute(f"SET memory_limit = '{limit}'")
            self.open_read_cursor()
        except duckdb.Error as exc:
            self.con.close()
            raise recover.classified(exc, self.path) from exc
        except BaseException:
            self.con.close()
            raise

    def _check_and_read(self, checked: bool) -> None:
        if not checked:
            check_tables(self.con)  # by name: tests count the checks
        self._read_at_open()

    def close(self) -> None:
        with suppress(duckdb.Error):  # counters only; closing must not fail over them
            self.flush_usage()
        if self._chunk_cache is not None:
            self._chunk_cache.close()
        facts = None if self.read_only else self._facts_at_close()
        self.close_connections()
        if not self.read_only:
            record_clean_close(self.path)
            if facts is not None:
                open_facts.record(self.path, *facts, self.side_checks.still_true(self.path.parent))

    def snapshot(self) -> Snapshot:
        """Everything a rebuild must reproduce (kbtui.store.file.verify): for consistency checks."""
        return snapshot(self.con)

    def wal_limit(self, size: str) -> None:
        """Checkpoint automatically once the WAL reaches `size` (e.g. "64KB")."""
        self.con.execute(f"SET checkpoint_threshold = '{size}'")

    # -- schema ---------------------------------------------------------------------------
    def _migrate(self) -> None:
        self.con.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
        version = int(self.meta("schema_version") or 0)
        if version > SCHEMA_VERSION:
            raise recover.StoreError(f"the index was written by a newer kbtui (schema {version})")
        scripts = resources.files("kbtui.store") / "migrations"
        for number in range(version + 1, SCHEMA_VERSION + 1):
            script = next(p for p in scripts.iterdir() if p.name.startswith(f"{number:03d}_"))
            self._facts = None  # of the file before the migration
            with self.transaction():
                self.con.execute(script.read_text())
                if number == 6:  # the path tables start from the relationships there are
                    graph_paths.rebuild(self.con)
                self.set_meta("schema_version", str(number))
        self._ensure_index_id()
        self._check_graph()

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.con.execute(sql, list(params)).fetchone()
        return None if row is None else row[0]

    # -- notes ----------------------------------------------------------------------------
    def note_states(self) -> dict[str, tuple[str, int, int, str]]:
        """{path: (entity_id, size, mtime_ns, file_hash)} of every indexed note."""
        rows = self.con.execute("SELECT path, entity_id, size, mtime_ns, file_hash FROM notes")
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows.fetchall()}

    def touch_note(self, entity_id: str, size: int, mtime_ns: int) -> None:
        """Record a new stat for a file whose content did not change (e.g. `touch`)."""
        self.con.execute(
            "UPDATE notes SET size = ?, mtime_ns = ? WHERE entity_id = ?",
            [size, mtime_ns, entity_id],
        )

    def write_notes(self, batch: Sequence[NoteWrite]) -> None:
        """Replace these notes (and what they supersede) in one transaction.

        New chunks take vectors from any existing chunk with the same content hash, so text
        that did not change is never embedded again, even when it moved to another note.
        """
        if not batch:
            return
        self.flush_usage()  # renamed notes carry their usage rows
        old_ids = sorted({w.note.entity_id for w in batch} | {r for w in batch for r in w.replaces})
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        first_cid = next_cid = self._next_cid  # published at the COMMIT: readers see the old
        self._written: frozenset[str] | None = None
        try:
            with self.transaction(beside_readers=True):
                next_cid, reused = self._write_notes(batch, old_ids, now, first_cid)
        finally:  # under the read lock again; ids are never handed out twice, even rolled back
            self._next_cid = max(self._next_cid, next_cid)
            self.generation += 1
            self.text_generation += 1
            self._notes_changed(self._written)
        self._log_vectors(reused)
        self._sized_for = follow_growth(self.con, self._sized_for, self._next_cid)

    def _write_notes(
        self, batch: Sequence[NoteWrite], old_ids: list[str], now: dt.datetime, first_cid: int
    ) -> tuple[int, list[int]]:
        """write_notes' statements, beside readers: the database and local values only.
        Returns the next chunk id and the chunks given an older chunk's vector."""
        old_notes = self._notes_before(old_ids)
        self._written = frozenset([*old_notes.paths.values(), *(w.state.path for w in batch)])
        created = dict(
            self.con.execute(
                "SELECT entity_id, created_at FROM notes WHERE list_contains(?, entity_id)",
                [old_ids],
            ).fetchall()
        )
        next_cid = self._insert_chunks(batch, first_cid)
        hashes = sorted({h for w in batch for h in w.chunk_hashes})
        reused = self._reuse_vectors(hashes, first_cid)
        self.set_meta("next_cid", str(next_cid))  # ids are never handed out again
        self._delete_entities(old_ids, before_cid=first_cid)
        self.carry_usage([(old, w.note.entity_id) for w in batch for old in w.replaces])
        rows: dict[str, list[Any]] = {k: [] for k in NOTE_COLUMNS}
        for w in batch:
            n = w.note
            carried = [created[i] for i in (n.entity_id, *w.replaces) if i in created]
            values = (
                n.entity_id,
                n.path,
                n.type,
                n.name,
                n.title,
                n.folder,
                json.dumps(n.frontmatter, ensure_ascii=False),
                json.dumps(list(n.aliases), ensure_ascii=False),
                w.state.size,
                w.state.mtime_ns,
                w.file_hash,
                w.chunk_size,
                w.chunk_overlap,
                (min(carried) if carried else now).isoformat(),
                now.isoformat(),
            )
            for key, value in zip(NOTE_COLUMNS, values, strict=True):
                rows[key].append(value)
        self._bulk_insert("notes", rows, select=NOTE_SELECT)
        insert_facts(self._bulk_insert, batch)
        self._write_names(old_ids, batch)
        self._relink(old_notes, batch)
        return next_cid, reused

    def delete_notes(self, entity_ids: Sequence[str]) -> None:
        ids = list(entity_ids)
        try:
            with self.transaction(beside_readers=True):
                old_notes = self._notes_before(ids)
                self._delete_entities(ids)
                self.con.execute(
                    "DELETE FROM entity_names WHERE list_contains(?, entity_id)", [ids]
                )
                self._relink(old_notes)
        finally:
            self.generation += 1
            self.text_generation += 1
            self._notes_changed(None)

    def _delete_entities(self, ids: list[str], before_cid: int | None = None) -> None:
        limit = before_cid if before_cid is not None else self._next_cid
        params = {"ids": ids, "limit": limit}
        self.con.execute(
            """DELETE FROM postings WHERE cid IN (SELECT cid FROM chunks
                            WHERE list_contains($ids, entity_id) AND cid < $limit)""",
            params,
        )
        self.con.execute(
            "DELETE FROM chunks WHERE list_contains($ids, entity_id) AND cid < $limit", params
        )
        for table in ("notes", *FACT_TABLES):
            self.con.execute(f"DELETE FROM {table} WHERE list_contains(?, entity_id)", [ids])

    def _insert_chunks(self, batch: Sequence[NoteWrite], cid: int) -> int:
        """Rows of chunks and postings, ids from `cid` on; returns the next free id."""
        cols: dict[str, list[Any]] = {
            k: []
            for k in (
                "cid",
                "chunk_id",
                "entity_id",
                "idx",
                "heading",
                "content",
                "start",
                "end",
                "hash",
                "n_terms",
                "shown",
                "skip",
            )
        }
        post_term: list[int] = []
        post_cid: list[int] = []
        post_tf: list[int] = []
        for w in batch:
            shown = w.chunk_shown or ("",) * len(w.chunks)
            skips = w.chunk_not_embedded or ("",) * len(w.chunks)
            for chunk, chash, terms, length, visible, skip in zip(
                w.chunks, w.chunk_hashes, w.chunk_terms, w.chunk_lengths, shown, skips, strict=True
            ):
                for key, value in (
                    ("cid", cid),
                    ("chunk_id", f"{w.note.entity_id}_chunk_{chunk.index}"),
                    ("entity_id", w.note.entity_id),
                    ("idx", chunk.index),
                    ("heading", chunk.heading),
                    ("content", chunk.content),
                    ("start", chunk.start),
                    ("end", chunk.end),
                    ("hash", chash),
                    ("n_terms", length),
                    ("shown", visible),
                    ("skip", skip),
                ):
                    cols[key].append(value)
                post_term.extend(terms.keys())
                post_cid.extend([cid] * len(terms))
                post_tf.extend(terms.values())
                cid += 1
        if cols["cid"]:
            self._bulk_insert("chunks", cols, select=CHUNK_SELECT)
        if post_term:
            self._bulk_insert(
                "postings",
                {
                    "term": np.asarray(post_term, dtype=np.int64),
                    "cid": np.asarray(post_cid, dtype=np.int64),
                    "tf": np.asarray(post_tf, dtype=np.int32),
                },
            )
        return cid

    def _bulk_insert(
        self, table: str, columns: dict[str, Any], extra_null: int = 0, select: str = "*"
    ) -> None:
        """Insert column arrays through a registered view: executemany is orders slower."""
        arrays = {k: v if isinstance(v, np.ndarray) else _column(v) for k, v in columns.items()}
        if not len(next(iter(arrays.values()))):
            return
        self.con.register("_bulk", arrays)
        try:
            nulls = ", NULL" * extra_null
            self.con.execute(f"INSERT INTO {table} SELECT {select}{nulls} FROM _bulk")
        finally:
            self.con.unregister("_bulk")

    def stats(self) -> dict[str, Any]:
        return {
            **super().stats(),
            "embed_model": self.meta("embed_model"),
            "model_choice": self.meta("model_choice"),  # and why (kbtui.indexing.model_choice)
            "model_reason": self.meta("model_reason"),
            "schema_version": SCHEMA_VERSION,
            "db_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }
