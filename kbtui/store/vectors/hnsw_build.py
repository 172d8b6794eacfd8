"""Writing an HNSW side file's rows (kbtui/store/vectors/hnsw.py): the build process's script, and
the vectors projected on their principal directions, which the graph holds in their place."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

import duckdb
import numpy as np

from kbtui.models import EMBED_DIM
from kbtui.store.file import pool


class VectorSource(Protocol):
    """What the side index needs of the Store (kbtui/store/db.py), which composes this room's
    writes and so may not be imported from here."""

    con: duckdb.DuckDBPyConnection

    def embedded_at_open(self) -> np.ndarray | None: ...


BASIS_SAMPLE = 20_000  # vectors the principal directions are taken from
PROJECT_BATCH = 50_000  # vectors projected into the build file at once
CHILD = """import sys, duckdb
path, extension, m = sys.argv[1:]
con = duckdb.connect(path)
con.execute(f"LOAD '{extension}'")
con.execute("SET hnsw_enable_experimental_persistence = true")
con.execute(f"CREATE INDEX vecs_hnsw ON vecs USING HNSW (vec) WITH (metric='cosine', m={int(m)})")
con.execute("CHECKPOINT")
con.close()
"""  # the build process: the only place the persistence flag is ever set


def write_projected(cur: duckdb.DuckDBPyConnection, alias: str, dims: int) -> None:
    """The basis (principal directions of a sample) and every vector projected on it."""
    sample = cur.execute(f"""SELECT embedding FROM chunks WHERE embedding IS NOT NULL
        USING SAMPLE reservoir({BASIS_SAMPLE} ROWS) REPEATABLE (7)""").fetchnumpy()
    vectors = np.stack(list(sample["embedding"])) if len(sample["embedding"]) else None
    if vectors is None:
        basis = np.eye(EMBED_DIM, dims, dtype=np.float32)
    else:
        _, _, comps = np.linalg.svd(vectors - vectors.mean(axis=0), full_matrices=False)
        basis = np.zeros((EMBED_DIM, dims), dtype=np.float32)  # few vectors: fewer axes
        basis[:, : min(dims, len(comps))] = comps[:dims].T
    _insert_arrays(cur, f"{alias}.basis", {"i": np.arange(dims)}, basis.T, EMBED_DIM)
    cur.execute(f"CREATE TABLE {alias}.vecs (cid BIGINT, h UBIGINT, vec FLOAT[{dims}])")
    after = -1
    while True:
        res = cur.execute(
            """SELECT cid, hash(embedding) AS h, embedding FROM chunks
               WHERE embedding IS NOT NULL AND cid > ? ORDER BY cid LIMIT ?""",
            [after, PROJECT_BATCH],
        ).fetchnumpy()
        if not len(res["cid"]):
            break
        projected = np.stack(list(res["embedding"])).astype(np.float32) @ basis
        columns = {"cid": np.asarray(res["cid"]), "h": np.asarray(res["h"])}
        _insert_arrays(cur, f"{alias}.vecs", columns, projected, dims, create=False)
        after = int(res["cid"][-1])


def _insert_arrays(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    columns: dict[str, np.ndarray],
    rows: np.ndarray,
    dims: int,
    create: bool = True,
) -> None:
    """Insert `columns` and each row of `rows` as a FLOAT[dims] column (`v` when created):
    one registered float32 column per dimension, joined by array_value (no list per row)."""
    by_column = np.ascontiguousarray(rows.T, dtype=np.float32)
    frame = {**columns, **{f"d{j}": by_column[j] for j in range(dims)}}
    vector = f"array_value({', '.join(f'd{j}' for j in range(dims))})::FLOAT[{dims}]"
    names = ", ".join(columns)
    cur.register("_hnsw_rows", frame)
    try:
        verb = f"CREATE TABLE {table} AS" if create else f"INSERT INTO {table}"
        cur.execute(f"{verb} SELECT {names}, {vector}{' AS v' if create else ''} FROM _hnsw_rows")
    finally:
        cur.unregister("_hnsw_rows")


def store_cosines(cur: duckdb.DuckDBPyConnection, q: np.ndarray, cids: np.ndarray) -> np.ndarray:
    """Cosines of q with these chunks' vectors read from the store (NaN: no vector)."""
    cur.register("_hnsw_ids", {"id": cids})
    try:
        got = cur.execute("""SELECT cid, embedding FROM chunks
            WHERE embedding IS NOT NULL AND cid IN (SELECT id FROM _hnsw_ids)""").fetchnumpy()
    finally:
        cur.unregister("_hnsw_ids")
    sims = np.full(len(cids), np.nan, dtype=np.float32)
    if len(got["cid"]):
        found = np.asarray(got["cid"], dtype=np.int64)
        order = np.argsort(cids)
        pos = order[np.searchsorted(cids, found, sorter=order)]
        sims[pos] = np.stack(list(got["embedding"])).astype(np.float32) @ q
    return sims


def remove(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        p.unlink(missing_ok=True)


def hold_graph(cur: duckdb.DuckDBPyConnection, alias: str, dims: int, m: int) -> None:
    """Before the first query of the attached side file `alias`: make room in the pool for
    its graph (kbtui/store/file/pool.py), taken as an upper bound (1M vectors, 128 dims, m=16:
    631 MB measured): per vector its floats, its links (2m on the base layer) and their
    header; the row count from the catalog (no scan)."""
    row = cur.execute(
        """SELECT estimated_size FROM duckdb_tables()
           WHERE database_name = ? AND table_name = 'vecs'""",
        [alias],
    ).fetchone()
    pool.hold_graph(cur, int(row[0] if row and row[0] else 0) * (4 * dims + 8 * m + 64))


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """values ∈ sorted_set, elementwise."""
    if not len(sorted_set) or not len(values):
        return np.zeros(len(values), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return np.asarray(sorted_set[pos] == values)


def sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def vectors_stamp(cur: duckdb.DuckDBPyConnection) -> dict[str, str | None]:
    """What the store's vectors are now (kbtui/store/side/state.py): while the index id, the
    model and the count of overwritten vectors stay the same, a chunk id's vector never
    changes, so a side file made at this stamp needs no row-by-row check on reuse (1M
    chunks: that check read 600 MB of table pages and took most of the attach)."""
    keys = ("index_id", "embed_model", "vectors_epoch", "next_cid")
    rows = dict(cur.execute(f"SELECT key, value FROM meta WHERE key IN {keys}").fetchall())
    return {k: rows.get(k) for k in keys}


def stamp_holds(cur: duckdb.DuckDBPyConnection, made: dict[str, Any] | None) -> bool:
    """Whether a side file made at stamp `made` still has the store's vector for each of its
    chunk ids (an older copy of the index restored has handed out fewer ids: checked)."""
    now = vectors_stamp(cur)
    if not made or any(made.get(k) != now[k] for k in ("index_id", "embed_model")):
        return False
    same_epoch = made.get("vectors_epoch") == now["vectors_epoch"]
    return same_epoch and int(made.get("next_cid") or 0) <= int(now["next_cid"] or 0)


def write_marker(path: Path, marker: dict[str, Any]) -> None:
    """The side file's marker, whole or not at all (written beside it, then renamed)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(marker))
    os.replace(tmp, path)
