"""The HNSW side file: real DuckDB files, real builds (in a child process), no mocks."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store, StoreError
from kbtui.store.vectors.hnsw import HnswSideIndex
from tests.hnsw_kit import (
    MODEL,
    SIDE,
    child_script,
    copy_template,
    make_template,
    side,
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_template(tmp_path_factory.mktemp("hnsw"))


@pytest.fixture
def settings(template: Path, tmp_path: Path) -> Settings:
    return copy_template(template, tmp_path)


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = Store(settings.db_path)
    yield s
    s.close()


def exact(store: Store, query: np.ndarray, k: int) -> list[int]:
    cids, vecs = store.load_vectors()
    sims = vecs @ query
    return [int(c) for c in cids[np.lexsort((cids, -sims))[:k]]]


def test_search_uses_the_index_and_matches_exact(store: Store, settings: Settings) -> None:
    index = side(store, settings)
    assert index.open() == "reused"
    assert "HNSW_INDEX_SCAN" in index.explain(10)
    cids, vecs = store.load_vectors()
    rng = np.random.default_rng(0)
    recalls = []
    sample = vecs[:: max(len(vecs) // 40, 1)]
    for q in sample + rng.normal(0, 0.05, sample.shape):
        q = (q / np.linalg.norm(q)).astype(np.float32)
        got, sims = index.search(q, 10)
        assert got.dtype == np.int64 and sims.dtype == np.float32
        assert list(sims) == sorted(sims, reverse=True)
        np.testing.assert_allclose(sims, vecs[np.searchsorted(cids, got)] @ q, atol=1e-5)
        recalls.append(len(set(got.tolist()) & set(exact(store, q, 10))) / 10)
    assert np.mean(recalls) >= 0.95
    index.close()


def test_k_above_ef_search_still_returns_k(store: Store, settings: Settings) -> None:
    index = side(store, settings, ef_search=8)
    index.open()
    q = store.load_vectors()[1][3]
    got, _ = index.search(q, 60)
    assert len(got) == 60
    assert len(set(got.tolist()) & set(exact(store, q, 60))) >= 54
    everything, _ = index.search(q, 10_000)
    assert len(everything) == index.count == len(store.embedded_cids())
    index.close()


def test_reopen_after_clean_close_reuses_the_file(store: Store, settings: Settings) -> None:
    path = settings.index_dir / SIDE
    before = path.stat().st_mtime_ns
    for _ in range(2):
        index = side(store, settings)
        assert index.open() == "reused"
        index.search(store.load_vectors()[1][0], 5)
        index.close()
        index.close()  # twice is fine
    assert path.stat().st_mtime_ns == before
    assert not path.with_name(SIDE + ".wal").exists()


def run_and_crash(settings: Settings, body: str) -> None:
    """Run `body` in a child process that then dies without closing anything."""
    script = child_script(settings, body, 1)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == 1, done.stderr.decode()


def test_crash_while_attached_keeps_the_file(settings: Settings) -> None:
    """The side file is only ever attached read-only, so a crash cannot damage it."""
    run_and_crash(settings, "index.open(); index.search(store.load_vectors()[1][0], 3)")
    store = Store(settings.db_path)  # the main file opens fine after the crash
    index = side(store, settings)
    assert index.open() == "reused"
    q = store.load_vectors()[1][7]
    assert index.search(q, 10)[0].tolist() == exact(store, q, 10)
    index.close()
    store.close()


def test_crash_during_a_build_discards_it(settings: Settings) -> None:
    build = settings.index_dir / "vectors.hnsw.build.duckdb"
    run_and_crash(
        settings,
        f"""
        index.marker.unlink()  # the build replaces the side file: marker goes first
        store.con.execute("ATTACH {str(build)!r} AS b")
        store.con.execute("CREATE TABLE b.vecs AS SELECT cid, embedding AS vec FROM chunks")
        """,
    )
    assert build.exists()
    store = Store(settings.db_path)
    index = side(store, settings)
    assert index.open() == "built"
    assert not build.exists() and not build.with_name(build.name + ".wal").exists()
    index.close()
    store.close()


@pytest.mark.parametrize("forge_marker", [False, True])
def test_garbage_side_file_is_rebuilt(store: Store, settings: Settings, forge_marker: bool) -> None:
    path = settings.index_dir / SIDE
    path.write_bytes(b"not a database" * 1000)
    marker = path.with_suffix(".clean.json")
    if forge_marker:  # the marker vouches for it: attaching fails, and that is not an error
        data = json.loads(marker.read_text())
        data |= {"bytes": path.stat().st_size, "mtime_ns": path.stat().st_mtime_ns}
        marker.write_text(json.dumps(data))
    index = side(store, settings)
    assert index.open() == "built"
    assert index.count == len(store.embedded_cids())
    index.close()


def test_a_file_opened_for_writing_is_rebuilt(store: Store, settings: Settings) -> None:
    path = settings.index_dir / SIDE
    path.with_name(SIDE + ".wal").write_bytes(b"")
    index = side(store, settings)
    assert index.open() == "built"
    index.close()


def edit_vault(settings: Settings, store: Store) -> tuple[set[int], set[int]]:
    """Delete two notes and add one, re-index; return (removed cids, added cids)."""
    before = set(store.embedded_cids().tolist())
    (settings.vault / "people" / "maya_okafor.md").unlink()
    (settings.vault / "tech" / "sqlite.md").unlink()
    new = settings.vault / "concepts" / "hnsw.md"
    new.write_text("# HNSW\n\nHierarchical navigable small world graphs for vector search.\n")
    Indexer(settings, store, HashEmbedder()).run()
    after = set(store.embedded_cids().tolist())
    return before - after, after - before


def check_follows(store: Store, index: HnswSideIndex, removed: set[int], added: set[int]) -> None:
    cids, vecs = store.load_vectors()
    assert index.count == len(cids)
    for q in vecs:
        got, sims = index.search(q, 20)
        assert not set(got.tolist()) & removed
        np.testing.assert_allclose(sims, vecs[np.searchsorted(cids, got)] @ q, atol=1e-5)
    for cid in added:
        got, sims = index.search(vecs[np.searchsorted(cids, cid)], 1)
        assert sims[0] > 0.999


def test_sync_follows_deletes_and_additions(store: Store, settings: Settings) -> None:
    index = side(store, settings)
    index.open()
    removed, added = edit_vault(settings, store)
    assert removed and added
    assert index.sync() == (len(added), len(removed))
    assert index.sync() == (0, 0)
    check_follows(store, index, removed, added)
    index.close()
    index = side(store, settings)  # and after a restart, with the same file
    assert index.open() == "reused"
    check_follows(store, index, removed, added)
    index.close()


def test_changes_while_closed_are_applied_on_open(store: Store, settings: Settings) -> None:
    removed, added = edit_vault(settings, store)
    cid = int(store.embedded_cids()[0])  # same cid, another vector (a reused cid)
    store.set_embeddings([cid], HashEmbedder().embed(["something else entirely"]))
    index = side(store, settings)
    assert index.open() == "reused"
    check_follows(store, index, removed, added | {cid})
    index.close()


def test_large_change_rebuilds_in_the_background(store: Store, settings: Settings) -> None:
    index = side(store, settings)
    index.open()
    ids = [eid for eid, *_ in store.note_states().values()]
    store.delete_notes(ids[: len(ids) // 2])
    index.sync()
    assert index._rebuilder is not None
    index._rebuilder.join(30)
    assert index.info()["hidden"] == 0 and index.info()["base"] == index.count
    assert index.count == len(store.embedded_cids())
    index.close()


def test_model_change_rebuilds(store: Store, settings: Settings) -> None:
    index = side(store, settings)
    index.open()
    store.reset_embeddings_for_model("other-model")
    index.sync()
    assert not index.ready  # vectors of another model: stop serving
    index.close()
    with pytest.raises(StoreError):
        side(store, settings).open()
    pending = store.pending_embeddings(10_000)
    vecs = np.roll(HashEmbedder().embed([p[3] for p in pending]), 1, axis=1)
    store.set_embeddings([p[0] for p in pending], vecs)
    index = HnswSideIndex(store, settings.index_dir / SIDE, "other-model")
    assert index.open() == "built"
    assert index.search(vecs[5], 1)[1][0] > 0.999
    index.close()


def test_concurrent_searches_and_syncs(store: Store, settings: Settings) -> None:
    index = side(store, settings)
    index.open()
    vecs = store.load_vectors()[1]
    errors: list[BaseException] = []

    def searcher() -> None:
        try:
            for q in vecs[:60]:
                assert len(index.search(q, 10)[0]) == 10
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=searcher) for _ in range(3)]
    for t in threads:
        t.start()
    for _ in range(5):
        index.sync()
    for t in threads:
        t.join()
    assert not errors
    index.close()


def test_close_during_a_build_kills_it(store: Store, settings: Settings) -> None:
    (settings.index_dir / SIDE).with_suffix(".clean.json").unlink()
    index = side(store, settings)
    errors: list[BaseException] = []

    def opener() -> None:
        try:
            index.open()
        except StoreError as exc:
            errors.append(exc)

    thread = threading.Thread(target=opener)
    thread.start()
    deadline = time.monotonic() + 10
    while index._child is None and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)
    index.close()
    thread.join(10)
    assert errors and not index.ready
    assert not (settings.index_dir / "vectors.hnsw.build.duckdb").exists()


def test_the_graph_holds_projected_vectors_and_search_rescores_them(
    store: Store, settings: Settings
) -> None:
    """vss keeps a float32 copy of every vector in the graph (~2.5 GB at a million chunks):
    the file holds them projected on a basis it keeps, and results carry exact cosines."""
    index = side(store, settings, dims=16)
    assert index.open() == "built"  # the template's file was built at another size
    assert "HNSW_INDEX_SCAN" in index.explain(10)
    cids, vecs = store.load_vectors()
    for q in vecs[:: max(len(vecs) // 10, 1)]:
        got, sims = index.search(q, 10)
        assert got.tolist() == exact(store, q, 10)
        np.testing.assert_allclose(sims, vecs[np.searchsorted(cids, got)] @ q, atol=1e-5)
    index.close()
    con = duckdb.connect(str(settings.index_dir / SIDE), read_only=True)
    assert con.execute("SELECT DISTINCT typeof(vec) FROM vecs").fetchall() == [("FLOAT[16]",)]
    basis = np.stack(list(con.execute("SELECT v FROM basis ORDER BY i").fetchnumpy()["v"]))
    con.close()
    np.testing.assert_allclose(basis @ basis.T, np.eye(16), atol=1e-5)  # orthonormal axes


def test_the_vector_index_rescores_candidates_with_its_matrix(
    store: Store, settings: Settings
) -> None:
    index = side(store, settings, dims=16)
    index.open()
    vectors = VectorIndex(store, index, ann_min=1, side_files=False)
    assert vectors.use_ann() and index.rescore is not None
    for q in store.load_vectors()[1][:5]:
        expected = vectors.exact_search(q, 10)  # float16 scores, as the matrix gives them
        assert vectors.search(q, 10) == expected
    vectors.close()


def test_not_ready_while_the_file_is_attached_and_checked(store: Store, settings: Settings) -> None:
    """The check reads every vector (1M chunks: ~13 s); searches meanwhile go to exact
    search (ready False) instead of waiting for the index's locks (first answer 18 s)."""
    seen: list[bool] = []

    class Probe(HnswSideIndex):
        def _load(self, alias: str, verify: bool) -> None:
            seen.append(self.ready)
            super()._load(alias, verify)

    index = Probe(store, settings.index_dir / SIDE, MODEL)
    assert index.open() == "reused" and seen == [False] and index.ready
    index.close()


def test_reuse_checks_each_row_only_when_a_vector_may_have_changed(
    store: Store, settings: Settings
) -> None:
    """While the store's vector stamp is the one the file was made at (ids never reused, no
    vector overwritten), reuse skips the row-by-row check (1M chunks: 600 MB of pages, most of
    the attach); an overwritten vector moves the stamp, and the check finds that row."""
    checked: list[bool] = []

    class Probe(HnswSideIndex):
        def _load(self, alias: str, verify: bool) -> None:
            checked.append(verify)
            super()._load(alias, verify)

    def reuse() -> Probe:
        index = Probe(store, settings.index_dir / SIDE, MODEL)
        assert index.open() == "reused"
        return index

    reuse().close()
    assert checked == [False]
    marker_path = (settings.index_dir / SIDE).with_suffix(".clean.json")
    marker = json.loads(marker_path.read_text())
    del marker["vectors"]  # a marker from before the stamp: checked once, then vouched for
    marker_path.write_text(json.dumps(marker))
    reuse().close()
    reuse().close()
    assert checked == [False, True, False]
    cids, vecs = store.load_vectors()
    store.set_embeddings([int(cids[0])], vecs[1:2])  # cid 0 now holds another vector
    index = reuse()
    assert checked == [False, True, False, True] and int(cids[0]) in set(index._changed.tolist())
    index.close()
    reuse().close()  # a file that differs from the store is never vouched for
    assert checked[-1] is True


def test_sync_takes_the_embedded_ids_it_is_given(store: Store, settings: Settings) -> None:
    """The ids of the chunks with a vector come from the caller (the vector index knows
    them) or the store's read at open: the store's query reads every vector (1M chunks:
    0.8 s and the buffer pool filled to its cap, at every sync)."""
    at_open = store.embedded_at_open()
    assert at_open is not None and len(at_open) == store.count_embedded()
    index = side(store, settings)
    assert index.open() == "reused"
    kept = at_open[: len(at_open) // 2]
    added, removed = index.sync(kept)  # as if the other half had lost its vectors
    assert (added, removed) == (0, len(at_open) - len(kept))
    hits, _ = index.search(store.load_vectors()[1][-1], 5)
    assert set(hits.tolist()) <= set(kept.tolist())
    index.close()
    cids, vecs = store.load_vectors()
    store.set_embeddings([int(cids[0])], vecs[:1])
    assert store.embedded_at_open() is None  # written since: the store asks DuckDB again


def test_rescoring_after_a_save_scores_old_and_new_rows(store: Store, settings: Settings) -> None:
    """A saved note's rows go to the vector index's second matrix; candidates from either are
    rescored with their own vectors (without joining the two matrices per search)."""
    index = side(store, settings, dims=16)
    index.open()
    vectors = VectorIndex(store, index, ann_min=1, side_files=False)
    (settings.vault / "fresh.md").write_text("# Fresh\nQuokkas sunbathe on Rottnest Island.\n")
    Indexer(settings, store, HashEmbedder()).run()
    vectors.sync()
    assert len(vectors.extra) > 0
    cids, vecs = store.load_vectors()
    q = vecs[-1]
    got = vectors.rescore(q, cids)
    want = (vecs.astype(np.float16).astype(np.float32) @ q).astype(np.float32)
    assert np.allclose(got, want, atol=1e-3)
    vectors.close()
