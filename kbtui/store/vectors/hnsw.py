"""A disposable HNSW index over the store's vectors, in a side DuckDB file next to the index.

Measured with DuckDB 1.5.5 + vss (tests/test_hnsw.py holds the behaviour), and what follows:
- Built once, then only ATTACHed READ_ONLY. In-place updates fail: a DELETE leaves the node in
  the graph (LIMIT 10 gave 0 live rows); a 1,000-row insert at 100k grew the file 196 -> 394 MB.
- Changes since the build are an overlay: base rows whose chunk went away or whose vector
  differs are hidden (the search over-fetches past them), newer vectors are scored exactly in
  RAM, and the lists merge. Past REBUILD_FRACTION of the base, a new file is built.
- CREATE INDEX runs in a child process (an interrupt does not stop it, a vss crash cannot take
  the app down; `hnsw_enable_experimental_persistence` is only ever set there).
- Crash safety: the build file replaces the side file only after the child checkpointed and
  exited 0; the marker (.clean.json: format, model, DuckDB version, size, mtime, the vectors'
  stamp) is removed before that rename and written after it. A side file without a matching
  marker, or with a .wal, is deleted, never attached; its rows are checked against the
  store's vectors unless the stamp still holds. Read-only, it survives the app's crash.
- The query is a VARCHAR cast to FLOAT[n] (a list parameter: 35 ms); late materialization off.
- The graph holds the vectors projected on DIMS principal directions, rescored exactly
  (CANDIDATES); vss keeps FLOAT[n] copies: 100k +247 MB at 384 dims, +79 MB at 128.

Threads: any method from any thread; construct it while no other thread uses `store.con` (it
takes four cursors). Searches share a cursor under a lock; `ready` is False while a file is
attached and checked (a search or sync already waiting is delayed by it).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import DEVNULL, PIPE, Popen
from typing import Any

import duckdb
import numpy as np

from kbtui.models import EMBED_DIM
from kbtui.store.file.extensions import extension_path
from kbtui.store.file.recover import StoreError
from kbtui.store.vectors import hnsw_build
from kbtui.store.vectors.hnsw_build import CHILD, member, remove

log = logging.getLogger("kbtui.hnsw")
FORMAT = 2  # 2: projected vectors and their basis
DIMS = 128  # dimensions the graph holds (EMBED_DIM: the vectors themselves)
CANDIDATES = 400  # projected neighbours rescored exactly per search (1M: 200 recalled 0.962)
REBUILD_FRACTION = 0.25
MIN_REBUILD_CHANGES = 32  # a rebuild starts a process: not for every saved note
WARM_QUERIES = 48
_aliases = itertools.count(1)
Rescorer = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (query, cids) -> cosines, NaN: gone


class HnswSideIndex:
    """Approximate top-k over the store's embedded chunks (the services' AnnIndex).

    State, all cid arrays sorted: `_base` the file's rows, `_changed` base rows whose vector
    differs from the store's (found on reuse), `_hidden` base rows not to return, and
    `_delta_cids`/`_delta_vecs` the vectors scored exactly.
    """

    def __init__(
        self,
        store: hnsw_build.VectorSource,
        path: Path,
        model_id: str,
        ef_search: int = 200,
        m: int = 16,
        dims: int = DIMS,
    ) -> None:
        # ef_search 200: recall@10 0.977 vs exact at 300k realistic vectors (64: 0.952,
        # 300: 0.993 but +3 ms); a query's fixed cost (~4 ms, 1.3 of it parsing the vector
        # literal) dwarfs the difference below 200. bench/kb_latency.py --realistic.
        self.store, self.path, self.model_id = store, path, model_id
        self.ef_search, self.m, self.dims = ef_search, m, min(dims, EMBED_DIM)
        # Exact cosines of a query with chunks (NaN for a chunk without a vector): set by the
        # vector index to its in-RAM matrix; None reads the store's vectors.
        self.rescore: Rescorer | None = None
        self.marker = path.with_suffix(".clean.json")
        self.build_path = path.with_suffix(".build.duckdb")
        self.last_build_seconds = 0.0
        self._lock = threading.RLock()  # the attached file, the overlay, the search cursor
        self._sync_lock = threading.RLock()  # one diff at a time; always taken before _lock
        self._build_lock = threading.Lock()  # one build at a time
        self._search_cur, self._sync_cur, self._build_cur, self._rescore_cur = (
            store.con.cursor() for _ in "abcd"
        )
        self._search_cur.execute("SET late_materialization_max_rows = 0")
        self._ef_set = 0
        self._alias: str | None = None
        self._base = self._changed = self._hidden = self._delta_cids = np.zeros(0, np.int64)
        self._delta_vecs = np.zeros((0, EMBED_DIM), dtype=np.float32)
        self._basis: np.ndarray | None = None  # (EMBED_DIM, dims) of the attached file
        self._child: Popen[bytes] | None = None
        self._rebuilder: threading.Thread | None = None
        self._closed = False

    @property
    def ready(self) -> bool:
        return self._alias is not None and not self._closed

    @property
    def count(self) -> int:
        """Vectors a search can return."""
        return len(self._base) - len(self._hidden) + len(self._delta_cids)

    def info(self) -> dict[str, Any]:
        """For logs and benches."""
        size = self.path.stat().st_size if self.path.exists() else 0
        building = self._rebuilder is not None and self._rebuilder.is_alive()
        counts = {"base": len(self._base), "hidden": len(self._hidden)}
        return counts | {"delta": len(self._delta_cids), "file_bytes": size, "building": building}

    def open(self) -> str:
        """Attach the side file if its marker vouches for it, else build one: "reused"/"built".

        A build takes minutes at 100k (call this from a background thread); it raises
        StoreError when it fails or when the store's vectors come from another model.
        """
        if not self._model_ok():
            raise StoreError(f"the index holds vectors of another model than {self.model_id}")
        with self._build_lock:
            remove(self.build_path)  # a build that never finished
            outcome = "reused" if self._try_reuse() else "built"
            if outcome == "built":
                self._build()
        self.sync()
        return outcome

    def _identity(self) -> dict[str, Any]:
        identity = {"format": FORMAT, "model": self.model_id, "duckdb": duckdb.__version__}
        return identity | {"m": self.m, "dims": self.dims}

    def _try_reuse(self) -> bool:
        try:
            marker, st = json.loads(self.marker.read_text()), self.path.stat()
            valid = (
                all(marker.get(k) == v for k, v in self._identity().items())
                and (marker.get("bytes"), marker.get("mtime_ns")) == (st.st_size, st.st_mtime_ns)
                and not self.path.with_name(self.path.name + ".wal").exists()
            )
            if valid:
                with self._sync_lock, self._lock:  # checked row by row unless the stamp holds
                    now = hnsw_build.vectors_stamp(self._sync_cur)
                    held = hnsw_build.stamp_holds(self._sync_cur, marker.get("vectors"))
                    self._attach(verify=not held)
                    if not held and not len(self._changed):  # every row checked: vouch for it
                        hnsw_build.write_marker(self.marker, marker | {"vectors": now})
                return True
        except (OSError, ValueError, AttributeError, duckdb.Error) as exc:
            log.info("HNSW side file %s not reusable: %s", self.path, exc)
            with self._lock:
                self._detach()
        self.marker.unlink(missing_ok=True)
        remove(self.path)
        return False

    def _build(self) -> None:
        """Copy the vectors into a new file, index it in a child process, swap it in."""
        started, cur = time.perf_counter(), self._build_cur
        stamp = hnsw_build.vectors_stamp(cur)  # before the copy: a change during it moves on
        remove(self.build_path)
        alias = f"kbtui_hnsw_build_{next(_aliases)}"
        cur.execute(f"ATTACH {hnsw_build.sql_path(self.build_path)} AS {alias}")
        try:
            if self.dims >= EMBED_DIM:
                cur.execute(f"""CREATE TABLE {alias}.vecs AS SELECT cid, hash(embedding) AS h,
                    embedding AS vec FROM chunks WHERE embedding IS NOT NULL ORDER BY cid""")
            else:
                hnsw_build.write_projected(cur, alias, self.dims)
            cur.execute(f"CHECKPOINT {alias}")
        finally:
            cur.execute(f"DETACH {alias}")
        self._run_child()
        with self._sync_lock, self._lock:
            self._detach()
            self.marker.unlink(missing_ok=True)
            remove(self.path)
            os.replace(self.build_path, self.path)
            st = self.path.stat()
            self._attach(verify=False)
            marker = {"rows": len(self._base), "bytes": st.st_size, "mtime_ns": st.st_mtime_ns}
            hnsw_build.write_marker(self.marker, self._identity() | marker | {"vectors": stamp})
            self._refresh()
        self.last_build_seconds = time.perf_counter() - started
        log.info("HNSW index built: %d vectors in %.1f s", len(self._base), self.last_build_seconds)

    def _run_child(self) -> None:
        args = [str(self.build_path), str(extension_path("vss")), str(self.m)]
        self._child = Popen(
            [sys.executable, "-c", CHILD, *args], stdin=DEVNULL, stdout=DEVNULL, stderr=PIPE
        )
        if self._closed:  # close() may have looked before the child existed
            self._child.kill()
        _, err = self._child.communicate()
        code, self._child = self._child.returncode, None
        if code != 0 or self._closed:
            remove(self.build_path)
            raise StoreError(f"HNSW build failed ({code}): {err.decode(errors='replace')[-400:]}")

    def _attach(self, verify: bool) -> None:
        """Attach self.path read-only, load its cids (caller holds _sync_lock and _lock); `ready`
        once done: searches meanwhile go exact, not wait (1M: first answer 18 s instead of 5)."""
        alias, cur = f"kbtui_hnsw_{next(_aliases)}", self._search_cur
        cur.execute(f"ATTACH {hnsw_build.sql_path(self.path)} AS {alias} (READ_ONLY)")
        try:
            self._load(alias, verify)
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                cur.execute(f"DETACH {alias}")
            raise
        self._alias = alias

    def _load(self, alias: str, verify: bool) -> None:
        hnsw_build.hold_graph(self._search_cur, alias, self.dims, self.m)  # pinned: see pool.py
        cur, sql = self._search_cur, f"SELECT cid, false AS x FROM {alias}.vecs ORDER BY cid"
        if verify:  # same cid, other vector: the main file was rebuilt or a cid was reused
            sql = f"""SELECT v.cid, coalesce(hash(c.embedding) <> v.h, false) AS x
                FROM {alias}.vecs v LEFT JOIN chunks c USING (cid) ORDER BY v.cid"""
        res = cur.execute(sql).fetchnumpy()
        self._basis = None
        if self.dims < EMBED_DIM:
            rows = cur.execute(f"SELECT v FROM {alias}.basis ORDER BY i").fetchnumpy()["v"]
            self._basis = np.ascontiguousarray(np.stack(list(rows)).T, dtype=np.float32)
        self._base = np.asarray(res["cid"], dtype=np.int64)
        self._changed = self._base[np.asarray(res["x"], dtype=bool)]
        self._hidden = self._delta_cids = np.zeros(0, dtype=np.int64)
        self._delta_vecs = np.zeros((0, EMBED_DIM), dtype=np.float32)
        # Page the graph in now (else the first ~30 searches took 2-4x longer at 300k chunks)
        rng = np.random.default_rng(0)
        for v in rng.standard_normal((WARM_QUERIES, EMBED_DIM)).astype(np.float32):
            self._query(v / np.linalg.norm(v), 200, alias)

    def _detach(self) -> None:
        if self._alias is not None:
            alias, self._alias = self._alias, None
            try:
                self._search_cur.execute(f"DETACH {alias}")
            except duckdb.Error as exc:  # the store may already be closed
                log.debug("detach %s: %s", alias, exc)

    def _model_ok(self) -> bool:
        with self._sync_lock:
            sql = "SELECT value FROM meta WHERE key = 'embed_model'"
            row = self._sync_cur.execute(sql).fetchone()
        return row is None or row[0] == self.model_id

    def sync(self, embedded: np.ndarray | None = None) -> tuple[int, int]:
        """Follow the store: (vectors added, vectors removed) since the last sync (`embedded`:
        the sorted ids of the chunks with a vector, when the caller knows them).

        Costs a scan of the cid column (60-180 ms at 100k) plus loading new vectors. Past
        REBUILD_FRACTION, a rebuild starts in a background thread; searches go on meanwhile.
        """
        with self._sync_lock:
            if not self.ready:
                return 0, 0
            if not self._model_ok():
                log.warning("HNSW index disabled: the store's vectors are not %s", self.model_id)
                with self._lock:
                    self._detach()
                return 0, 0
            added, removed = self._refresh(embedded)
            changes = len(self._hidden) + len(self._delta_cids)
        if changes > max(REBUILD_FRACTION * len(self._base), MIN_REBUILD_CHANGES):
            self._start_rebuild()
        return added, removed

    def _refresh(self, embedded: np.ndarray | None = None) -> tuple[int, int]:
        """Recompute the overlay against the store: (added, removed). Caller holds _sync_lock.
        A base row once hidden stays hidden (if its cid comes back, the delta serves it); the
        store's query for the embedded ids reads every vector (1M: 0.8 s, a full pool)."""
        cur = self._sync_cur
        embedded = self.store.embedded_at_open() if embedded is None else embedded
        if embedded is None:
            res = cur.execute("SELECT cid FROM chunks WHERE embedding IS NOT NULL ORDER BY cid")
            embedded = np.asarray(res.fetchnumpy()["cid"], dtype=np.int64)
        base = self._base
        gone = member(base, self._changed) | member(base, self._hidden)
        live = base[member(base, embedded) & ~gone]
        wanted = embedded[~member(embedded, live)]
        keep = member(self._delta_cids, wanted)
        new = wanted[~member(wanted, self._delta_cids)]
        cids, vecs = self._delta_cids[keep], self._delta_vecs[keep]
        if len(new):
            cur.register("_hnsw_new", {"id": new})
            try:
                got = cur.execute("""SELECT cid, embedding FROM chunks WHERE embedding IS NOT NULL
                    AND cid IN (SELECT id FROM _hnsw_new)""").fetchnumpy()
            finally:
                cur.unregister("_hnsw_new")
            if len(got["cid"]):
                cids = np.concatenate([cids, np.asarray(got["cid"], dtype=np.int64)])
                vecs = np.concatenate([vecs, np.stack(list(got["embedding"])).astype(np.float32)])
                order = np.argsort(cids, kind="stable")
                cids, vecs = cids[order], np.ascontiguousarray(vecs[order])
        hidden = base[~member(base, live)]
        removed = len(hidden) - len(self._hidden) + int((~keep).sum())
        with self._lock:
            self._hidden, self._delta_cids, self._delta_vecs = hidden, cids, vecs
        return len(cids) - int(keep.sum()), removed

    def _start_rebuild(self) -> None:
        def rebuild() -> None:
            try:
                with self._build_lock:
                    if not self._closed:
                        self._build()
            except (duckdb.Error, StoreError, OSError) as exc:
                log.warning("HNSW rebuild failed: %s", exc)

        if not self._closed and not (self._rebuilder and self._rebuilder.is_alive()):
            self._rebuilder = threading.Thread(target=rebuild, name="hnsw-rebuild", daemon=True)
            self._rebuilder.start()

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(cids int64, cosine similarities float32) of the k nearest, best first."""
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        with self._lock:
            if self._alias is None:
                raise StoreError("the HNSW index is not open")
            if k <= 0:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            if self._basis is None:
                cids, sims = self._search_base(q, k)
            else:
                cids, _ = self._search_base(q, max(k, CANDIDATES))
                sims = self._exact(q, cids)
                known = ~np.isnan(sims)
                cids, sims = cids[known], sims[known]
            if len(self._delta_cids):
                dsims = self._delta_vecs @ q
                top = np.argpartition(-dsims, k - 1)[:k] if len(dsims) > k else slice(None)
                cids = np.concatenate([cids, self._delta_cids[top]])
                sims = np.concatenate([sims, dsims[top]])
        order = np.lexsort((cids, -sims))[:k]
        return cids[order], sims[order].astype(np.float32)

    def _exact(self, q: np.ndarray, cids: np.ndarray) -> np.ndarray:
        """Cosines of q with these chunks' vectors (NaN where a chunk has none)."""
        if self.rescore is not None:
            return np.asarray(self.rescore(q, cids), dtype=np.float32)
        return hnsw_build.store_cosines(self._rescore_cur, q, cids)

    def _search_base(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Over-fetch past hidden rows: the graph still holds them."""
        hidden, most = self._hidden, k + len(self._hidden)
        n = min(most, 2 * k + 16) if len(hidden) else k
        while True:
            cids, dist = self._query(q, n)
            keep = ~member(cids, hidden)
            if keep.sum() >= k or len(cids) < n or n >= most:
                return cids[keep][:k], (1.0 - dist[keep][:k]).astype(np.float32)
            n = min(4 * n, most)

    def _sql(self, n: int, alias: str = "") -> str:
        dims = EMBED_DIM if self._basis is None else self._basis.shape[1]
        return f"""SELECT cid, array_cosine_distance(vec, $1::FLOAT[{dims}]) AS d
            FROM {alias or self._alias}.vecs ORDER BY d LIMIT {int(n)}"""

    def _query(self, q: np.ndarray, n: int, alias: str = "") -> tuple[np.ndarray, np.ndarray]:
        ef = max(self.ef_search, n)  # vss would widen it to n anyway; explicit is clearer
        if ef != self._ef_set:  # a session setting: this cursor only
            self._search_cur.execute(f"SET hnsw_ef_search = {ef}")
            self._ef_set = ef
        if self._basis is not None and len(q) == EMBED_DIM:
            q = q @ self._basis
        literal = "[" + ",".join(map(str, q.tolist())) + "]"  # exact: shortest repr round-trips
        res = self._search_cur.execute(self._sql(n, alias), [literal]).fetchnumpy()
        return np.asarray(res["cid"], dtype=np.int64), np.asarray(res["d"], dtype=np.float64)

    def explain(self, k: int) -> str:
        """The physical plan of the base query, to check it is an HNSW_INDEX_SCAN."""
        with self._lock:
            if self._alias is None:
                raise StoreError("the HNSW index is not open")
            literal = str([0.05] * (EMBED_DIM if self._basis is None else self._basis.shape[1]))
            rows = self._search_cur.execute("EXPLAIN " + self._sql(k), [literal]).fetchall()
        return "\n".join(str(r[1]) for r in rows)

    def close(self) -> None:
        """Stop any build (killing its child) and detach. The file and marker stay valid."""
        self._closed = True
        if (child := self._child) is not None:
            child.kill()
        with contextlib.suppress(duckdb.Error):
            self._build_cur.interrupt()
        with self._build_lock, self._sync_lock, self._lock:
            self._detach()
            for cur in (self._search_cur, self._sync_cur, self._build_cur, self._rescore_cur):
                with contextlib.suppress(duckdb.Error):
                    cur.close()
        remove(self.build_path)
