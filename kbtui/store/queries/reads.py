"""Read queries: what the query layer needs from the index, as plain values and numpy arrays.

Id lists travel as registered numpy columns, never as Python list parameters: DuckDB converts
a list parameter element by element (trying `import pandas` for each) and cannot prune by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from kbtui.memory import give_back_freed_memory
from kbtui.models import EMBED_DIM, SearchFilters
from kbtui.store.side.arrays import SideChecks
from kbtui.store.side.chunk_cache import NOTE_FIELDS, NOTE_KEYS, ChunkCache
from kbtui.store.side.chunk_side import SIDE_FILE as CHUNKS_FILE
from kbtui.store.side.chunk_side import load_cache, write_cache
from kbtui.store.side.state import STALE_FRACTION


class ReadQueries:
    """Mixed into Store: every read the services make."""

    con: duckdb.DuckDBPyConnection
    path: Path
    generation: int
    text_generation: int
    _stats_cache: tuple[int, dict[str, Any]] | None = None
    _chunk_cache: ChunkCache | None = None
    _chunk_cache_at = -1
    count_pending: Callable[[], int]  # EmbeddingWrites'
    _embedded_at_open: np.ndarray | None = None
    _chunk_side_due = 0  # rows of the mapped side file still true; past STALE_FRACTION: write
    side_checks: SideChecks  # Store's

    # SideState's (before this class in Store's bases)
    side_stamp: Callable[[str], dict[str, Any] | None]
    side_path: Callable[[str], Path]
    same_chunks: Callable[[np.ndarray, np.ndarray], bool]
    fingerprints_of: Callable[[np.ndarray], np.ndarray]

    @contextmanager
    def _id_table(self, values: Sequence[Any] | np.ndarray, name: str = "_ids") -> Iterator[str]:
        arr = np.asarray(values)
        if arr.dtype.kind in "iu" or not len(arr):
            arr = arr.astype(np.int64) if arr.dtype.kind in "iu" else arr.astype(np.str_)
        else:
            arr = arr.astype(np.str_)
        self.con.register(name, {"id": arr})
        try:
            yield name
        finally:
            self.con.unregister(name)

    # -- whole-index arrays, for the in-memory search indexes ------------------------------
    def chunk_lengths(
        self, after_cid: int = 0
    ) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
        """(cids, n_terms, entity ids, chunk indexes) of chunks past `after_cid`, by cid.

        Chunk ids only ever grow, so `after_cid` selects what was written since a sync.
        """
        res = self.con.execute(
            """SELECT cid, n_terms, entity_id, chunk_index FROM chunks WHERE cid > ?
               ORDER BY cid""",
            [after_cid],
        ).fetchnumpy()
        return (
            np.asarray(res["cid"], dtype=np.int64),
            np.asarray(res["n_terms"], np.float32),
            [str(e) for e in res["entity_id"]],
            np.asarray(res["chunk_index"], dtype=np.int32),
        )

    def live_cids(self) -> np.ndarray:
        res = self.con.execute("SELECT cid FROM chunks ORDER BY cid").fetchnumpy()
        return np.asarray(res["cid"], dtype=np.int64)

    def postings(self, after_cid: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(term, cid, tf) of chunks with cid > after_cid, sorted by term then cid."""
        res = self.con.execute(
            "SELECT term, cid, tf FROM postings WHERE cid > ? ORDER BY term, cid", [after_cid]
        ).fetchnumpy()
        return (
            np.asarray(res["term"], dtype=np.int64),
            np.asarray(res["cid"], dtype=np.int64),
            np.asarray(res["tf"], dtype=np.float32),
        )

    def embedded_cids(self) -> np.ndarray:
        if self.generation == 0 and self._embedded_at_open is not None:
            return self._embedded_at_open
        res = self.con.execute(
            "SELECT cid FROM chunks WHERE embedding IS NOT NULL ORDER BY cid"
        ).fetchnumpy()
        return np.asarray(res["cid"], dtype=np.int64)

    def load_vector_range(
        self, low: int, high: int, dtype: type[np.floating[Any]] = np.float32
    ) -> tuple[np.ndarray, np.ndarray]:
        """(cids, vectors as `dtype`) of embedded chunks with low <= cid <= high: a range the
        column's min/max statistics prune, for loading every vector a batch at a time."""
        res = self.con.execute(
            """SELECT cid, embedding FROM chunks WHERE cid BETWEEN ? AND ?
               AND embedding IS NOT NULL ORDER BY cid""",
            [low, high],
        ).fetchnumpy()
        found = np.asarray(res["cid"], dtype=np.int64)
        if not len(found):
            return found, np.zeros((0, EMBED_DIM), dtype=dtype)
        return found, np.stack(list(res["embedding"])).astype(dtype)

    def load_vectors(self, cids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(cids int64[n], vectors float32[n, 384]) of embedded chunks (all, or these)."""
        if cids is None:
            res = self.con.execute(
                "SELECT cid, embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY cid"
            ).fetchnumpy()
        else:
            with self._id_table(cids) as ids:
                res = self.con.execute(
                    f"""SELECT cid, embedding FROM chunks WHERE embedding IS NOT NULL
                        AND cid IN (SELECT id FROM {ids}) ORDER BY cid"""
                ).fetchnumpy()
        found = np.asarray(res["cid"], dtype=np.int64)
        if not len(found):
            return found, np.zeros((0, EMBED_DIM), dtype=np.float32)
        return found, np.stack(list(res["embedding"])).astype(np.float32, copy=False)

    # -- filters --------------------------------------------------------------------------
    def _filter_sql(self, filters: SearchFilters, params: dict[str, Any]) -> str:
        clauses = []
        if filters.type:
            clauses.append("n.type = $f_type")
            params["f_type"] = filters.type
        if filters.folder:
            clauses.append("(n.folder = $f_folder OR starts_with(n.folder, $f_folder || '/'))")
            params["f_folder"] = filters.folder.strip("/")
        if filters.tag:
            clauses.append("""EXISTS (SELECT 1 FROM tags t WHERE t.entity_id = n.entity_id
                              AND (t.tag = $f_tag OR starts_with(t.tag, $f_tag || '/')))""")
            params["f_tag"] = filters.tag.lstrip("#").lower()
        if filters.entity_id:
            clauses.append("n.entity_id = $f_entity")
            params["f_entity"] = filters.entity_id
        if filters.category:
            clauses.append("""(lower(json_extract_string(n.frontmatter, '$.category')) = $f_cat
                OR list_contains(list_transform(
                    json_extract_string(n.frontmatter, '$.category[*]'), x -> lower(x)),
                    $f_cat))""")
            params["f_cat"] = filters.category.lower()
        if filters.document_id:
            clauses.append("""(json_extract_string(n.frontmatter, '$.document_id') = $f_doc
                              OR n.entity_id = $f_doc)""")
            params["f_doc"] = filters.document_id
        return " AND ".join(clauses) or "TRUE"

    def filtered_cids(self, filters: SearchFilters) -> np.ndarray:
        """Ascending cids of the chunks of notes that pass every filter."""
        params: dict[str, Any] = {}
        where = self._filter_sql(filters, params)
        res = self.con.execute(
            f"""SELECT c.cid FROM chunks c JOIN notes n USING (entity_id)
                WHERE {where} ORDER BY c.cid""",
            params,
        ).fetchnumpy()
        return np.asarray(res["cid"], dtype=np.int64)

    # -- chunks ---------------------------------------------------------------------------
    def chunk_details(self, cids: Sequence[int] | np.ndarray) -> dict[int, dict[str, Any]]:
        """Chunk rows with their note's title/type/path/folder (from RAM: chunk_cache.py)."""
        return self._chunks().details(cids)

    def _chunks(self) -> ChunkCache:
        """The chunk cache, caught up with the table when notes were written since; mapped
        from its side file when there is one for this index (chunk_side.py), and written to
        one after a first full read or when the file was far behind."""
        if self._chunk_cache is None:
            stamp = self.side_stamp("chunks")
            path = self.side_path(CHUNKS_FILE)
            folder = self.path.parent  # text files beside the index
            checks = self.side_checks
            loaded = load_cache(path, stamp, self.same_chunks, folder, checks) if stamp else None
            self._chunk_cache = loaded or ChunkCache(folder)
            self._chunk_side_due = 0 if loaded is None else len(loaded.cids)
        cache = self._chunk_cache
        if self._chunk_cache_at != self.text_generation:
            at = self.text_generation
            res = self.con.execute("SELECT cid FROM chunks ORDER BY cid").fetchnumpy()
            before = int(cache.alive.sum())
            added, touched = cache.missing(np.asarray(res["cid"], dtype=np.int64))
            self._chunk_side_due -= len(added) + before - int(cache.alive.sum())
            if len(added):
                with self._id_table(added) as ids:
                    rows = self.con.execute(
                        f"""SELECT cid, entity_id, chunk_index, start_pos, end_pos, heading,
                                   content, coalesce(shown, '') AS shown FROM chunks
                            WHERE cid >= {int(added[0])} AND cid IN (SELECT id FROM {ids})
                            ORDER BY cid"""
                    ).fetchnumpy()
                cache.add(rows)
                touched |= set(rows["entity_id"])
                del rows  # the texts are in the cache's files now
                give_back_freed_memory(len(added))
            if touched:
                cache.set_notes(touched, self._note_rows(sorted(touched)))
            self._chunk_cache_at = at
            if self._chunk_side_due <= (1 - STALE_FRACTION) * len(cache.cids):
                self._write_chunk_side(cache)
        return self._chunk_cache

    def _write_chunk_side(self, cache: ChunkCache) -> None:
        """Write the cache to its side file and map it in place of the cache in RAM."""
        self._chunk_side_due = 2**62  # once per process, whatever happens next
        stamp = self.side_stamp("chunks")
        if stamp is None or not len(cache.cids):
            return
        path = self.side_path(CHUNKS_FILE)
        if not write_cache(path, stamp, cache, self.fingerprints_of):
            return
        loaded = load_cache(path, stamp, self.same_chunks, self.path.parent, self.side_checks)
        if loaded is not None:
            cache.close()
            self._chunk_cache = loaded

    def chunk_by_id(self, chunk_id: str) -> dict[str, Any] | None:
        row = self.con.execute(
            "SELECT cid FROM chunks WHERE chunk_id = ? LIMIT 1", [chunk_id]
        ).fetchone()
        if row is None:
            return None
        return self.chunk_details([int(row[0])]).get(int(row[0]))

    def chunk_vector(self, cid: int) -> np.ndarray | None:
        row = self.con.execute("SELECT embedding FROM chunks WHERE cid = ?", [cid]).fetchone()
        if row is None or row[0] is None:
            return None
        return np.asarray(row[0], dtype=np.float32)

    # -- notes ----------------------------------------------------------------------------
    def _note_rows(self, entity_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        """entity_id -> (NOTE_KEYS values..., sorted tags) of the notes that exist."""
        with self._id_table(np.asarray(entity_ids, dtype=np.str_)) as ids:
            rows = self.con.execute(f"""
                SELECT {", ".join(NOTE_KEYS)}, coalesce(t.tags, []) FROM notes
                LEFT JOIN (SELECT entity_id, list(tag ORDER BY tag) AS tags FROM tags
                           WHERE entity_id IN (SELECT id FROM {ids}) GROUP BY 1) t
                USING (entity_id)
                WHERE entity_id IN (SELECT id FROM {ids})""").fetchall()
        # Lists become tuples: a record of immutable values is dropped from the cyclic GC's
        # watch, where 54k notes' alias and tag lists made each full collection take 200 ms.
        return {r[0]: tuple(tuple(v) if isinstance(v, list) else v for v in r) for r in rows}

    def _note_records(self, entity_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """entity_id -> raw note row (NOTE_KEYS and "tags"), from RAM where it is kept (a note
        without chunks, an empty body, is not) and from the table otherwise, as long as the
        chunk cache is not loaded (see `note_chunks`)."""
        rows: dict[str, tuple[Any, ...]] = {}
        if self._chunk_cache is not None:
            kept = self._chunks()
            rows = {e: n for e in entity_ids if (n := kept.note(e)) is not None}
        if len(rows) < len(set(entity_ids)):
            rows.update(self._note_rows([e for e in entity_ids if e not in rows]))
        return {
            e: {**dict(zip(NOTE_KEYS, r[:-1], strict=True)), "tags": r[-1]} for e, r in rows.items()
        }

    def note(self, entity_id: str) -> dict[str, Any] | None:
        """One note's row (frontmatter and aliases decoded), or None. Exact, case-sensitive."""
        note = self._note_records([entity_id]).get(entity_id)
        if note is None:
            return None
        note["frontmatter"] = json.loads(note["frontmatter"] or "{}")
        note["aliases"] = list(note["aliases"] or [])
        for key in ("created_at", "indexed_at"):
            note[key] = note[key].isoformat() + "Z"
        note["tags"] = list(note["tags"])
        return note

    def note_chunks(self, entity_id: str) -> list[dict[str, Any]]:
        """A note's chunks in order, from the table until a search loads the chunk cache
        (~0.6 s at 43k chunks): the first note opened after a start need not wait for it."""
        if self._chunk_cache is None:
            return self._note_chunks_from_table(entity_id)
        return self._chunks().note_rows(entity_id)

    def _note_chunks_from_table(self, entity_id: str) -> list[dict[str, Any]]:
        """What `ChunkCache.note_rows` gives, from the table."""
        note = self._note_rows([entity_id]).get(entity_id)
        if note is None:
            return []
        rows = self.con.execute(
            """SELECT cid, chunk_index, start_pos, end_pos, heading, content,
                      coalesce(shown, '') FROM chunks WHERE entity_id = ? ORDER BY chunk_index""",
            [entity_id],
        ).fetchall()
        fields = {f: note[NOTE_KEYS.index(f)] for f in NOTE_FIELDS}
        return [
            {
                "cid": cid,
                "chunk_id": f"{entity_id}_chunk_{index}",
                "entity_id": entity_id,
                "chunk_index": index,
                "heading": heading,
                "content": content,
                "shown": shown or content,
                "start_pos": start,
                "end_pos": end,
                **fields,
            }
            for cid, index, start, end, heading, content, shown in rows
        ]

    def notes_meta(self, entity_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """entity_id -> {title, type, path, folder, frontmatter}."""
        keys = ("title", "type", "path", "folder")
        return {
            e: {**{k: n[k] for k in keys}, "frontmatter": json.loads(n["frontmatter"])}
            for e, n in self._note_records(entity_ids).items()
        }

    def note_docs(self) -> dict[str, tuple[str, str, str, str]]:
        """entity_id -> (title, tags, headings, opening text): what names a topic cluster."""
        rows = self.con.execute("""
            WITH t AS (SELECT entity_id, string_agg(tag, ' ') AS tags FROM tags GROUP BY 1),
                 h AS (SELECT entity_id, string_agg(DISTINCT heading, ' ') AS heads,
                              left(min_by(content, chunk_index), 600) AS opening
                       FROM chunks GROUP BY 1)
            SELECT n.entity_id, n.title, coalesce(t.tags, ''), coalesce(h.heads, ''),
                   coalesce(h.opening, '')
            FROM notes n LEFT JOIN t USING (entity_id) LEFT JOIN h USING (entity_id)
        """).fetchall()
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def count_embedded(self) -> int:
        if self.generation == 0 and self._embedded_at_open is not None:
            return len(self._embedded_at_open)
        row = self.con.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone()
        return int(row[0]) if row else 0

    def note_count(self) -> int:
        row = self.con.execute("SELECT count(*) FROM notes").fetchone()
        return int(row[0]) if row else 0

    def note_types(self) -> list[str]:
        rows = self.con.execute("SELECT DISTINCT type FROM notes ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def entity_ids_at(self, paths: Sequence[str]) -> dict[str, str]:
        with self._id_table(list(paths)) as ids:
            rows = self.con.execute(
                f"SELECT path, entity_id FROM notes WHERE path IN (SELECT id FROM {ids})"
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def stats(self) -> dict[str, Any]:
        """Counts of what the index holds. Cached until this process's next write; the TUI
        and `kbtui://status` poll it every second. A chunk has a vector, waits for one or is
        not embedded (code, data: never given one), so the embedded ones are counted as the
        rest: counting them reads the vector column (~20 ms at 43k chunks, after each save),
        counting the waiting ones reads it only past `count_pending`'s floor."""
        cached = self._stats_cache
        if cached is not None and cached[0] == self.generation:
            return {**cached[1], "types": dict(cached[1]["types"])}
        pending = self.count_pending()
        row = self.con.execute("""
            SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM chunks),
                   NULL,
                   (SELECT count(*) FROM links), (SELECT count(DISTINCT tag) FROM tags),
                   (SELECT count(*) FROM postings),
                   (SELECT count(*) FROM chunks WHERE not_embedded IS NOT NULL)""").fetchone()
        assert row is not None
        row = (*row[:2], row[1] - row[6] - pending, *row[3:])
        types = self.con.execute(
            "SELECT type, count(*) FROM notes GROUP BY type ORDER BY 2 DESC, 1"
        ).fetchall()
        stats = {
            "notes": row[0],
            "chunks": row[1],
            "embedded": row[2],
            "not_embedded": row[6],  # code/data chunks: keyword-searched, never embedded
            "links": row[3],
            "tags": row[4],
            "postings": row[5],
            "types": dict(types),
            # every vault file (attachments too), and the .base files that cannot be read
            "files": self.con.execute("SELECT count(*) FROM vault_files").fetchone()[0],  # type: ignore[index]
            "broken_bases": dict(self.con.execute(
                "SELECT path, problem FROM vault_files WHERE problem IS NOT NULL ORDER BY 1"
            ).fetchall()),
        }  # fmt: skip
        self._stats_cache = (self.generation, stats)
        return {**stats, "types": dict(types)}
