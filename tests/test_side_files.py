"""The search indexes' side files (kbtui/store/side/arrays.py): a start maps them instead of
reading the store, and a file that is damaged, cut short, made from another state of the
index or from an older copy of it is never used: it is rebuilt, and every search answers as
a build from the store does ("delete the index and rebuild gives the same answers")."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.search.keyword_index import SIDE_FILE as KEYWORDS
from kbtui.search.keyword_index import KeywordIndex
from kbtui.search.vector_index import SIDE_FILE as VECTORS
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store
from kbtui.store.side.arrays import FileArray, load_arrays, write_arrays
from kbtui.store.side.chunk_side import SIDE_FILE as CHUNKS
from kbtui.tokenize import query_terms
from tests.test_chunk_cache import check_matches_table

QUERIES = ["watch battery", "gesture model training", "sync offline", "design review", "rust"]


def _answers(keywords: KeywordIndex, vectors: VectorIndex) -> list[object]:
    out: list[object] = []
    for query in QUERIES:
        out.append(keywords.search(query_terms(query), 20))
        got = vectors.search(HashEmbedder().embed([query])[0], 20)
        out.append([(c, round(s, 5)) for c, s in got])
    live = keywords.store.live_cids()
    out.append([keywords.locate(int(c)) for c in live[:: max(len(live) // 50, 1)]])
    return out


def _fresh(store: Store) -> list[object]:
    return _answers(KeywordIndex(store, side_files=False), VectorIndex(store, side_files=False))


def _mapped(store: Store) -> tuple[KeywordIndex, VectorIndex]:
    return KeywordIndex(store), VectorIndex(store)


@pytest.fixture
def indexed(settings: Settings, store: Store) -> Store:
    Indexer(settings, store, HashEmbedder()).run()
    return store


def test_arrays_round_trip_and_a_bad_file_is_refused_and_removed(tmp_path: Path) -> None:
    path = tmp_path / "x.arrays"
    arrays = {"a": np.arange(10, dtype=np.int64), "m": np.ones((4, 3), np.float16)}
    write_arrays(path, arrays, {"id": "1"})
    assert load_arrays(path, {"id": "1"}, ("a", "m", "x")) is None and not path.exists()
    write_arrays(path, arrays, {"id": "1"})
    got = load_arrays(path, {"id": "1"}, ("a", "m"))
    assert got is not None and all(np.array_equal(got[k], v) for k, v in arrays.items())
    assert not got["m"].flags.writeable  # mapped read-only, not a copy
    assert load_arrays(path, {"id": "2"}, ()) is None and not path.exists()  # another state
    for damage in ("flip", "cut", "grow"):
        write_arrays(path, arrays, {"id": "1"})
        data = bytearray(path.read_bytes())
        if damage == "flip":
            data[-20] ^= 0xFF
        elif damage == "cut":
            del data[-8:]
        else:
            data += b"\0" * 64
        path.write_bytes(bytes(data))
        assert load_arrays(path, {"id": "1"}, ()) is None and not path.exists(), damage


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="Linux's /proc")
def test_arrays_read_from_the_file_are_read_and_then_closed(tmp_path: Path) -> None:
    """Arrays named in `read` come back as FileArrays: sliced with pread, reading the file
    that was checked even after a newer one is renamed over it, and its descriptor closed
    once they are dropped."""
    path = tmp_path / "x.arrays"
    text = np.frombuffer("ünïcödé and more text".encode(), dtype=np.uint8)
    arrays = {"t": text, "f": np.arange(7, dtype=np.float32), "m": np.ones((4, 3), np.float16)}
    write_arrays(path, arrays, {"id": "1"})
    fds = len(list(Path("/proc/self/fd").iterdir()))
    got = load_arrays(path, {"id": "1"}, ("t", "f", "m"), read=("t", "f"))
    assert got is not None
    t, f = got["t"], got["f"]
    assert isinstance(t, FileArray) and isinstance(f, FileArray) and len(t) == len(text)
    assert t[0:6].tobytes().decode() == "ünïc" and np.array_equal(f[2:5], arrays["f"][2:5])
    assert np.array_equal(np.asarray(f), arrays["f"]) and isinstance(got["m"], np.ndarray)
    write_arrays(path, {**arrays, "f": -arrays["f"]}, {"id": "1"})  # a newer file, renamed
    assert np.array_equal(f[:], arrays["f"])  # still the one that was checked
    del got, t, f
    assert len(list(Path("/proc/self/fd").iterdir())) == fds


def test_a_second_start_maps_the_side_files(indexed: Store) -> None:
    first = _mapped(indexed)
    folder = indexed.path.parent
    assert (folder / KEYWORDS).exists() and (folder / VECTORS).exists()
    keywords, vectors = _mapped(indexed)
    assert isinstance(vectors.matrix.base, object) and not vectors.matrix.flags.writeable
    assert isinstance(keywords.rows, FileArray)  # the postings are read from the file
    assert _answers(keywords, vectors) == _answers(*first) == _fresh(indexed)


@pytest.mark.parametrize("name", [KEYWORDS, VECTORS])
@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_side_file_is_rebuilt_and_answers_stay_the_same(
    indexed: Store, name: str, damage: str
) -> None:
    want = _fresh(indexed)
    _mapped(indexed)
    path = indexed.path.parent / name
    original = path.read_bytes()
    data = bytearray(original)
    if damage == "flip":
        data[len(data) // 2] ^= 0x55
    elif damage == "truncate":
        data = data[: len(data) // 3]
    else:
        data = bytearray(b"not a side file at all")
    path.write_bytes(bytes(data))
    assert _answers(*_mapped(indexed)) == want
    assert path.read_bytes() == original  # written again


def test_side_files_made_before_edits_catch_up(settings: Settings, indexed: Store) -> None:
    """Edits after the files were made: the next start masks what went away, reads what
    came since, and answers as a fresh build; past STALE_FRACTION the files are rewritten."""
    _mapped(indexed)
    vault = settings.vault
    (vault / "people/andrei_clodius.md").write_text("# Andrei\n\nNow works on rust sync only.\n")
    (vault / "people/maya_okafor.md").unlink()
    (vault / "concepts/new_idea.md").write_text("# New idea\n\nA watch battery that syncs.")
    Indexer(settings, indexed, HashEmbedder()).run()
    assert _answers(*_mapped(indexed)) == _fresh(indexed)


def test_chunk_ids_are_never_reused_so_old_files_stay_true(settings: Settings) -> None:
    """The note holding the highest chunk ids is deleted and another written after a
    restart: without the persisted high-water mark it got the same ids, and a side file
    made before would have served the old note's postings and vectors under them."""
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    _mapped(store)
    last = max(store.live_cids())
    (note,) = {c["path"] for c in store.chunk_details([int(last)]).values()}
    path = settings.vault / note
    path.unlink()
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    store = Store(settings.db_path)
    try:
        assert store.next_cid > last
        (settings.vault / "fresh.md").write_text("# Fresh\n\nrust gesture battery words\n")
        Indexer(settings, store, HashEmbedder()).run()
        assert min(c["cid"] for c in store.note_chunks("note:fresh")) > last
        assert _answers(*_mapped(store)) == _fresh(store)
    finally:
        store.close()


def test_side_files_of_a_later_state_are_not_used_by_an_older_copy(
    settings: Settings, tmp_path: Path
) -> None:
    """An index restored from a copy (same id, fewer chunk ids handed out) refuses side
    files that hold chunk ids it never gave: they would name other chunks soon."""
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    saved = tmp_path / "copy.duckdb"
    shutil.copyfile(settings.db_path, saved)
    store = Store(settings.db_path)
    (settings.vault / "later.md").write_text("# Later\n\nwatch battery design review\n")
    Indexer(settings, store, HashEmbedder()).run()
    _mapped(store)  # side files holding the later chunk ids
    store.close()
    shutil.copyfile(saved, settings.db_path)
    store = Store(settings.db_path)
    try:
        (settings.vault / "later.md").unlink()
        (settings.vault / "other.md").write_text("# Other\n\nsync offline gesture\n")
        Indexer(settings, store, HashEmbedder()).run()
        assert _answers(*_mapped(store)) == _fresh(store)
    finally:
        store.close()


def test_rewritten_vectors_retire_the_vectors_file(indexed: Store) -> None:
    """Vectors written over stored ones (another model, a bench's replacement) change the
    stamp: the old matrix is not served."""
    _mapped(indexed)
    cids = indexed.embedded_cids()[:5]
    indexed.set_embeddings(cids.tolist(), -np.asarray(indexed.load_vectors(cids)[1]))
    again = VectorIndex(indexed)
    q = indexed.load_vectors(cids[:1])[1][0]
    assert again.search(q, 1)[0][0] == int(cids[0])  # the new vector, not the mapped one
    assert _answers(KeywordIndex(indexed), again) == _fresh(indexed)


def test_a_new_index_never_takes_the_old_ones_side_files(settings: Settings) -> None:
    """Deleting the index (and rebuilding it) gives it a new id: same-named side files left
    beside it are made for the old one and are rebuilt."""
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    _mapped(store)
    old_id = store.meta("index_id")
    store.close()
    settings.db_path.unlink()
    (settings.vault / "people/andrei_clodius.md").write_text("# Andrei\n\nrust only\n")
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, HashEmbedder()).run()
        assert store.meta("index_id") != old_id
        assert _answers(*_mapped(store)) == _fresh(store)
    finally:
        store.close()


def _reopened(store: Store) -> Store:
    store.close()
    return Store(store.path)


def test_the_chunk_cache_is_mapped_at_the_next_open_and_says_what_the_table_says(
    settings: Settings,
) -> None:
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    check_matches_table(store)  # the first read writes chunks.arrays
    path = settings.index_dir / CHUNKS
    assert path.exists()
    store = _reopened(store)
    try:
        cache = store._chunks()
        assert not cache.cids.flags.writeable  # the file's pages, not rows read again
        # texts and note rows are read from the file when shown, never mapped: a mapped
        # page stays in RSS once touched (a whole 2 MB folio of them here)
        assert all(isinstance(t._base, FileArray) for t in cache.texts.values() if len(t._base))
        assert cache._packed is not None and isinstance(cache._packed[0], FileArray)
        assert cache.notes == {}  # note rows are decoded when first shown
        check_matches_table(store)
        for entity_id in {e for e, *_ in store.note_states().values()}:
            assert store.note(entity_id) == _note_from_sql(store, entity_id), entity_id
        (settings.vault / "people/maya_okafor.md").unlink()
        (settings.vault / "concepts/new_idea.md").write_text("# New\n\nwatch battery #idea\n")
        Indexer(settings, store, HashEmbedder()).run()
        check_matches_table(store)  # caught up in the same process
        store = _reopened(store)
        check_matches_table(store)  # and from the file made before those edits
    finally:
        store.close()


def _note_from_sql(store: Store, entity_id: str) -> dict[str, object] | None:
    fresh = Store.__new__(Store)  # the same connection, without the cache
    fresh.__dict__.update(store.__dict__)
    fresh._chunk_cache, fresh._chunk_cache_at = None, -1
    fresh.side_stamp = lambda kind: None  # type: ignore[method-assign]
    return fresh.note(entity_id)


@pytest.mark.parametrize("damage", ["flip", "truncate", "stale"])
def test_a_bad_chunk_cache_file_is_rebuilt(settings: Settings, damage: str) -> None:
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    check_matches_table(store)
    path = settings.index_dir / CHUNKS
    original = path.read_bytes()
    store.close()
    if damage == "stale":  # the index rebuilt from nothing: another id
        settings.db_path.unlink()
        store = Store(settings.db_path)
        Indexer(settings, store, HashEmbedder()).run()
        store.close()
    else:
        data = bytearray(original)
        if damage == "flip":
            data[len(data) // 2] ^= 0x20
        else:
            data = data[:-100]
        path.write_bytes(bytes(data))
    store = Store(settings.db_path)
    try:
        check_matches_table(store)
        assert path.exists() and (damage == "stale" or path.read_bytes() == original)
    finally:
        store.close()


def test_a_chunk_cache_far_behind_is_rewritten_without_its_dead_rows(settings: Settings) -> None:
    """Deleting a tenth of the notes after a start leaves the mapped cache with dead rows;
    the rewrite drops them, and its fingerprints must be the kept rows' (they were taken
    before the drop: 125 rows against 124 fingerprints, an IndexError in a search)."""
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    check_matches_table(store)
    store = _reopened(store)
    try:
        assert not store._chunks().cids.flags.writeable  # mapped from the file
        notes = sorted(settings.vault.rglob("*.md"))
        for note in notes[: len(notes) // 10 + 1]:
            note.unlink()
        Indexer(settings, store, HashEmbedder()).run()
        check_matches_table(store)  # caught up, past the threshold: rewritten and mapped
        cache = store._chunks()
        assert not cache.cids.flags.writeable and cache.alive.all()
        store = _reopened(store)
        check_matches_table(store)
    finally:
        store.close()


def _heap_bytes(vectors: VectorIndex) -> int:
    """Bytes of the vector index's arrays that live in this process's heap (not mapped)."""
    arrays = [a for a in vars(vectors).values() if isinstance(a, np.ndarray)]
    return sum(a.nbytes for a in arrays if a.flags.owndata)


def test_a_save_keeps_the_mapped_matrix_mapped(settings: Settings, indexed: Store) -> None:
    """The rows a save adds go beside the mapped matrix: appending to it copied the whole
    matrix into the heap (100k chunks: +75 MB RSS after the first edit of the day), and a
    start after any save did the same while catching up."""
    _mapped(indexed)
    vectors = VectorIndex(indexed)
    mapped = vectors.matrix
    assert not mapped.flags.owndata and not mapped.flags.writeable
    (settings.vault / "people/andrei_clodius.md").write_text("# Andrei\n\nNow works on rust.\n")
    (settings.vault / "concepts/new_idea.md").write_text("# New idea\n\nA watch battery.\n")
    Indexer(settings, indexed, HashEmbedder()).run()
    again = VectorIndex(indexed)  # a start after the save: the file plus what came since
    for index in (vectors, again):
        index.sync()
        assert index.size > len(mapped) - 10  # the save's rows are in
        assert _heap_bytes(index) < mapped.nbytes // 10, _heap_bytes(index)
    assert any(a is mapped for a in vars(vectors).values())
    assert _answers(KeywordIndex(indexed), vectors) == _answers(KeywordIndex(indexed), again)
    assert _answers(KeywordIndex(indexed), again) == _fresh(indexed)
    cid = int(again.cids[-1])  # a row of the appended part reads back as stored
    stored = indexed.load_vectors(np.array([cid]))[1][0]
    vector = again.vector(cid)
    assert vector is not None and np.allclose(vector, stored, atol=1e-3)
