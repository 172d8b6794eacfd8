"""The in-memory keyword and vector indexes stay identical to a fresh build as the vault changes."""

from __future__ import annotations

import numpy as np

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.models import SearchFilters
from kbtui.search.keyword_index import KeywordIndex, row_mask
from kbtui.search.service import SearchService
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store
from kbtui.tokenize import query_terms

QUERIES = ["watch battery", "gesture model training", "sync offline", "design review", "rust"]


def test_row_mask_marks_members_of_a_sorted_array() -> None:
    cids = np.array([2, 5, 9, 14], dtype=np.int64)
    assert row_mask(cids, np.array([5, 14, 20, 1])).tolist() == [False, True, False, True]
    assert row_mask(cids, np.array([], dtype=np.int64)).tolist() == [False] * 4


def _same_answers(store: Store, keywords: KeywordIndex, vectors: VectorIndex) -> None:
    fresh_kw, fresh_vec = KeywordIndex(store), VectorIndex(store)
    embedder = HashEmbedder()
    for query in QUERIES:
        terms = query_terms(query)
        got_kw, want_kw = keywords.score(terms, 20), fresh_kw.score(terms, 20)
        assert got_kw.hits == want_kw.hits, query
        # a note's BM25 (its chunks' words summed) too: note ordinals differ, the scores not
        live = store.live_cids().tolist()
        assert np.allclose(got_kw.notes(live), want_kw.notes(live)), query
        assert got_kw.note_best == want_kw.note_best, query
        q = embedder.embed([query])[0]
        got, want = vectors.search(q, 20), fresh_vec.search(q, 20)
        assert [c for c, _ in got] == [c for c, _ in want], query
        assert np.allclose([s for _, s in got], [s for _, s in want])


def test_indexes_follow_edits_deletes_and_new_notes(settings: Settings, store: Store) -> None:
    indexer = Indexer(settings, store, HashEmbedder())
    indexer.run()
    search = SearchService(store, HashEmbedder())
    keywords, vectors = search.keywords, search.vectors
    _same_answers(store, keywords, vectors)
    vault = settings.vault
    (vault / "people/andrei_clodius.md").write_text("# Andrei\n\nNow works on rust sync only.\n")
    (vault / "people/maya_okafor.md").unlink()
    (vault / "concepts/new_idea.md").write_text("# New idea\n\nA watch battery that sync offline.")
    report = indexer.run()
    assert report.changed and report.deleted and report.new
    _same_answers(store, keywords, vectors)
    hits = {cid for cid, _, _ in keywords.search(query_terms("Maya founded Vector Studio"), 50)}
    maya = {c["cid"] for c in store.note_chunks("person:maya_okafor")}
    assert not maya and all(keywords.locate(c) is not None for c in hits)


def test_filtered_search_still_fills_top_k(settings: Settings, store: Store) -> None:
    Indexer(settings, store, HashEmbedder()).run()
    search = SearchService(store, HashEmbedder())
    allowed = store.filtered_cids(SearchFilters(type="person"))
    assert 8 < len(allowed) < len(store.live_cids()) / 2  # a narrow filter
    hits = search.vectors.search(HashEmbedder().embed(["watch"])[0], 8, allowed)
    assert len(hits) == 8 and {c for c, _ in hits} <= set(allowed.tolist())
    unfiltered = search.vectors.search(HashEmbedder().embed(["watch"])[0], 8)
    assert {c for c, _ in unfiltered} != {c for c, _ in hits}


def test_many_small_syncs_rebuild_and_stay_right(settings: Settings, store: Store) -> None:
    indexer = Indexer(settings, store, HashEmbedder())
    indexer.run()
    search = SearchService(store, HashEmbedder())
    keywords, vectors = search.keywords, search.vectors
    note = settings.vault / "concepts/churn.md"
    for i in range(40):  # enough rewrites to pass the rebuild threshold
        note.write_text(f"# Churn {i}\n\nwatch battery revision {i} " + "sync offline " * i)
        indexer.run()
        keywords.sync()
        vectors.sync()
    _same_answers(store, keywords, vectors)
