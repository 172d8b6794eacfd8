"""A search's candidate merge (kbtui.search.candidates) and the cosines of keyword-only
candidates (VectorIndex.similarities after the exact search of the same query) give exactly
what the dict-by-dict merge and a gather of the rows gave: the same values to the bit, so the
faster path (issue 42 item 11) changes no score or order."""

from __future__ import annotations

import random

import numpy as np

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.candidates import candidates
from kbtui.search.vector_index import VectorIndex, dot
from kbtui.store import Store


def merged_by_dicts(
    vectors: list[tuple[int, float]],
    keywords: list[tuple[int, float, float]],
    extra: set[int],
    similar: dict[int, float],
) -> dict[int, tuple[float, float, float]]:
    """The merge as search_chunks wrote it before: dicts, one lookup per candidate."""
    vec_hits = dict(vectors)
    kw_hits = {cid: (raw, norm) for cid, raw, norm in keywords}
    for cid in extra:
        kw_hits.setdefault(cid, (0.0, 0.0))
    missing = [cid for cid in kw_hits if cid not in vec_hits]
    vec_hits.update({c: similar[c] for c in missing if c in similar})
    cids = list(vec_hits.keys() | kw_hits.keys())
    cos = np.nan_to_num(np.array([vec_hits.get(c, np.nan) for c in cids]), nan=-1.0)
    return {
        c: (float(cos[i]), kw_hits.get(c, (0.0, 0.0))[0], kw_hits.get(c, (0.0, 0.0))[1])
        for i, c in enumerate(cids)
    }


def test_the_array_merge_equals_the_dict_merge() -> None:
    rng = random.Random(42)
    for _ in range(200):
        pool = rng.sample(range(1, 5000), 300)
        vec = [(c, float(np.float32(rng.uniform(-1, 1)))) for c in pool[: rng.randint(0, 150)]]
        kw_cids = pool[rng.randint(0, 150) :][: rng.randint(0, 150)]
        kw = [(c, rng.uniform(0, 20), rng.uniform(0, 1)) for c in kw_cids]
        extra = set(rng.sample(pool, rng.randint(0, 5)))
        similar = {c: float(np.float32(rng.uniform(-1, 1))) for c in pool if rng.random() < 0.8}
        asked: list[list[int]] = []

        def similarities(
            cids: list[int], similar: dict[int, float] = similar, asked: list[list[int]] = asked
        ) -> dict[int, float]:
            asked.append(cids)
            return {c: similar[c] for c in cids if c in similar}

        keywords = np.array(kw, dtype=np.float64).reshape(-1, 3)
        cids, cos, raw, norm = candidates(vec, keywords, extra, similarities)
        assert cids == sorted(cids)
        got = {c: (float(cos[i]), float(raw[i]), float(norm[i])) for i, c in enumerate(cids)}
        assert got == merged_by_dicts(vec, kw, extra, similar)
        vectors_only = {c for c, _ in vec}
        assert set(asked[0]) == ({c for c, *_ in kw} | extra) - vectors_only


def test_similarities_after_an_exact_search_are_the_gathered_rows_scores(
    settings: Settings, store: Store
) -> None:
    embedder = HashEmbedder()
    Indexer(settings, store, embedder).run()
    vectors = VectorIndex(store, side_files=False)
    query = np.asarray(embedder.embed(["battery life of the watch"])[0], dtype=np.float32)
    cids = vectors.cids.tolist()[::3]
    vectors.search(query, 5)  # scores every row: similarities reads them
    kept = vectors.similarities(query, cids)
    rows = np.flatnonzero(np.isin(vectors.cids, cids) & vectors.alive)
    gathered = dot(vectors.take(rows), query)
    assert kept == dict(zip(vectors.cids[rows].tolist(), gathered.tolist(), strict=True))
    other = np.asarray(embedder.embed(["meeting notes"])[0], dtype=np.float32)
    assert vectors.similarities(other, cids) != kept  # another query: its own scores
    allowed = np.asarray(cids[::4], dtype=np.int64)  # a narrow filter: only its rows scored
    vectors.search(query, 5, allowed)
    assert vectors.similarities(query, cids) == kept  # rows it did not score: gathered
    assert vectors.similarities(query, allowed.tolist()) == {c: kept[c] for c in allowed.tolist()}


def test_a_type_filter_still_checks_types_the_index_holds(settings: Settings) -> None:
    """kb_search skips the index's types for a type of the contract (a query a search);
    another type is still looked up: a note's own type passes, an unknown one fails."""
    (settings.vault / "pancakes.md").write_text("---\ntype: recipe\n---\nFlour, milk.\n")
    kb = KnowledgeBase.open(settings, HashEmbedder())
    try:
        kb.indexer.run()
        ask = {"query": "flour milk", "top_k": 3}
        found = kb.call("kb_search", {**ask, "filters": {"type": "recipe"}})
        assert [r["title"] for r in found["results"]] == ["pancakes"]
        assert kb.call("kb_search", {**ask, "filters": {"type": "person"}})["ok"]
        wrong = kb.call("kb_search", {**ask, "filters": {"type": "nope"}})
        assert not wrong["ok"] and "recipe" in wrong["message"]
    finally:
        kb.close()
