"""The HNSW side file and memory: the matrix's pages after exact answers, the graph's
blocks under a small pool cap. Real DuckDB files, real builds, /proc/self/smaps."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.models import EMBED_DIM
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store
from tests.conftest import insert_chunks
from tests.hnsw_kit import MODEL, child_script, copy_template, make_template, side


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_template(tmp_path_factory.mktemp("hnsw_memory"))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of 4,000 chunks with random vectors and a built side file: a graph of several
    256 KB blocks (vault_example's fits in one, too close to what the store's reads need)."""
    vault = tmp_path_factory.mktemp("hnsw_big") / "vault"
    vault.mkdir()
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    store.reset_embeddings_for_model(MODEL)
    insert_chunks(store.con, 4000, "'text ' || i")
    vecs = np.random.default_rng(0).standard_normal((4000, EMBED_DIM)).astype(np.float32)
    store.set_embeddings(list(range(1, 4001)), vecs / np.linalg.norm(vecs, axis=1)[:, None])
    index = side(store, settings)
    assert index.open() == "built"
    index.close()
    store.close()
    return vault


@pytest.fixture
def opened(template: Path, tmp_path: Path) -> Iterator[tuple[Settings, Store]]:
    """A copy of the template and its store, open."""
    settings = copy_template(template, tmp_path)
    store = Store(settings.db_path)
    yield settings, store
    store.close()


def mapped_kb(name: str) -> int:
    """This process's resident kB of the mappings of files called `name` (/proc/self/smaps)."""
    total, counting = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and ":" not in head[0]:
            counting = len(head) > 5 and head[5].endswith("/" + name)
        elif counting and head[0] == "Rss:":
            total += int(head[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's smaps")
def test_the_matrix_pages_exact_answers_mapped_are_dropped_once_the_graph_serves(
    opened: tuple[Settings, Store],
) -> None:
    """Exact answers while the graph attaches read the whole mapped float16 matrix (1M
    chunks: 742 MB of RSS for the day); in a vault with a graph its pages are unmapped after
    each exact scan, and the candidates' rescoring reads their rows from the file, so
    searches map none again."""
    from kbtui.search.vector_index import SIDE_FILE

    settings, store = opened
    index = side(store, settings, dims=16)
    vectors = VectorIndex(store, index, ann_min=1)
    queries = store.load_vectors()[1][:8]
    matrix_kb = vectors.base.nbytes // 1024
    vectors.exact_search(queries[0], 10)  # the reference: maps every page of the matrix
    full = mapped_kb(SIDE_FILE)
    assert full >= matrix_kb - 8
    assert vectors.search(queries[0], 10)  # exact, the graph not open yet: then dropped
    dropped = mapped_kb(SIDE_FILE)
    assert dropped <= full - matrix_kb + 8
    index.open()
    for q in queries:
        assert vectors.use_ann() and vectors.search(q, 10) == vectors.exact_search(q, 10)
        vectors.release_mapped()  # the exact reference above mapped them again
        assert [c for c, _ in vectors.search(q, 10)]
        assert mapped_kb(SIDE_FILE) <= dropped  # the rescoring read rows, mapped none
    allowed = np.asarray(store.embedded_cids()[::2])
    assert vectors.search(queries[0], 10, allowed=allowed)  # filtered: exact, then dropped
    assert mapped_kb(SIDE_FILE) <= dropped
    vectors.close()


def test_an_attach_makes_room_for_the_graph_under_a_small_cap(big: Path, tmp_path: Path) -> None:
    """vss reads the graph into DuckDB's pool at the first query after the ATTACH, and those
    blocks stay pinned; under a cap too small for them that query failed "Out of Memory" and
    left the table's index list locked, so every later search hung (what "changing the cap
    broke the attach" was). The attach raises the cap to hold the graph first."""
    settings = copy_template(big, tmp_path)
    body = """
    used = store.con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]
    small = (int(used) + 2**20) // 1024  # room for the store's reads, not for the graph
    store.con.execute(f"SET memory_limit = '{small}KiB'")
    assert index.open() == "reused"
    q = store.load_vectors()[1][0]
    assert len(index.search(q, 5)[0]) == 5
    pinned = store.con.execute(
        "SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'ART_INDEX'"
    ).fetchone()[0]
    assert pinned > 0, pinned  # the graph's blocks, pinned while attached
    for cap in ("2GiB", f"{(pinned >> 10) + small + 65536}KiB"):  # changed after: harmless
        store.con.execute(f"SET memory_limit = '{cap}'")
        assert len(index.search(q, 5)[0]) == 5
    print("searched", flush=True)
    """
    child = subprocess.Popen(
        [sys.executable, "-c", child_script(settings, body, 0)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        pytest.fail(f"the search hung after the attach: {err.decode()[-400:]}")
    assert child.returncode == 0 and b"searched" in out, err.decode()[-800:]
