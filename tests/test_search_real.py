"""Search over vault_example indexed with the real embedding model (the product as users get it)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.models import SearchFilters
from kbtui.search.service import SearchService
from kbtui.store import Store

WATCH_TEAM = {
    "person:andrei_clodius",
    "person:maya_okafor",
    "person:tomas_lindqvist",
    "person:priya_raman",
    "person:lena_hartmann",
    "person:daniel_cho",
    "person:kenji_watanabe",
    "person:felix_brandt",
    "person:ines_duarte",
}
AI_PEOPLE = {
    "person:priya_raman",
    "person:sofia_marquez",
    "person:noor_haddad",
    "person:ruth_abernathy",
}


@pytest.fixture
def service(indexed_example: Settings, real_embedder: FastEmbedder) -> Iterator[SearchService]:
    store = Store(indexed_example.db_path)
    yield SearchService(store, real_embedder)
    store.close()


def test_every_chunk_has_a_real_unit_vector(service: SearchService) -> None:
    vectors = service.vectors
    assert len(vectors.cids) == service.store.stats()["chunks"]
    norms = (vectors.matrix.astype(np.float32) ** 2).sum(axis=1)
    assert abs(norms - 1).max() < 2e-3  # float16 rows: ~5e-4 rounding per element


def test_float16_vectors_rank_like_float32(service: SearchService) -> None:
    """The matrix is held as float16 (half the RAM); its top 10 is float32's top 10."""
    vectors = service.vectors
    assert vectors.matrix.dtype == np.float16
    cids, full = service.store.load_vectors()
    queries = ["who worked on the watch project", "design reviews", "hiring plan", "budget"]
    found = 0
    for query in queries:
        q = service.embed_query(query)
        assert q is not None
        exact = set(cids[np.argsort(-(full @ q), kind="stable")[:10]].tolist())
        found += len(exact & {cid for cid, _ in vectors.exact_search(q, 10)})
        sims = vectors.similarities(q, list(exact))
        assert max(abs(sims[c] - float(full[cids == c][0] @ q)) for c in exact) < 2e-3
    assert found / (10 * len(queries)) >= 0.98


def test_who_worked_on_the_watch_project(service: SearchService) -> None:
    results = service.search("who worked on the watch project", 10)
    ids = [r.id for r in results]
    assert len(WATCH_TEAM & set(ids)) >= 5
    assert "person:andrei_clodius" in ids[:3]


def test_spec_example_voice_query_finds_the_watch_team(service: SearchService) -> None:
    watch = WATCH_TEAM | {"project:vector_watch_project", "organization:vector_studio"}
    top = service.search("Who worked on Vector Watch?", 3)
    assert len(top) == 3 and {r.id for r in top} <= watch
    assert "person:andrei_clodius" in [r.id for r in service.search("Who worked on Vector Watch?")]


def test_spec_example_filtered_by_person(service: SearchService) -> None:
    results = service.search("AI and machine learning expertise", 8, SearchFilters(type="person"))
    assert results and all(r.type == "person" for r in results)
    assert set([r.id for r in results][:4]) == AI_PEOPLE


def test_spec_example_junk_query_returns_nothing(service: SearchService) -> None:
    assert service.search("quantum computing blockchain NFTs", 10) == []


def test_scores_are_descending_in_unit_range_with_auditable_metadata(
    service: SearchService,
) -> None:
    results = service.search("battery life of the smartwatch", 10)
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert len({r.id for r in results}) == len(results)  # one result per note
    for r in results:
        assert r.metadata["file_path"].endswith(".md")
        assert r.metadata["chunk_id"] == f"{r.id}_chunk_{r.metadata['chunk_index']}"
        assert len(r.snippet) <= 200


def test_strong_match_scores_high_and_weak_match_low(service: SearchService) -> None:
    strong = service.search("CRDT sync", 1)[0]
    assert strong.id == "concept:crdt" and strong.score > 0.8
    weak = service.search("football world cup results", 1)
    assert not weak or weak[0].score < 0.3


def test_keyword_and_vector_modes_each_work_alone(service: SearchService) -> None:
    kw = service.search("Zephyr RTOS", 3, mode="keyword")
    assert kw[0].id == "technology:zephyr_rtos" and kw[0].metadata["vector_score"] == 0
    vec = service.search("real-time operating system for the watch firmware", 3, mode="vector")
    assert vec[0].id == "technology:zephyr_rtos" and vec[0].metadata["keyword_score"] == 0


def test_non_english_queries(service: SearchService) -> None:
    assert service.search("東京", 3, mode="keyword")[0].id == "daily:2026_03_20"
    assert service.search("cafe des idees", 3)[0].id == "concept:cafe_des_idees"
