"""kb_search with a filter on a vault served by HNSW: a broad filter is answered from the
index's nearest (over-fetched) and gives exact search's answer; a narrow one, or one whose
chunks are not among the nearest, is scored exactly. Real DuckDB, a real side file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.search.vector_index import VectorIndex
from kbtui.store import Store
from kbtui.store.vectors.hnsw import HnswSideIndex
from tests.conftest import copy_indexed

SIDE = "vectors.hnsw.duckdb"


@pytest.fixture
def served(tui_template: Path, tmp_path: Path) -> Iterator[tuple[VectorIndex, list[int]]]:
    """The vector index over an HNSW side file, and the ANN searches it made (n asked)."""
    settings = Settings.for_vault(copy_indexed(tui_template, tmp_path / "vault"))
    store = Store(settings.db_path)
    asked: list[int] = []

    class Counted(HnswSideIndex):
        def search(self, query: np.ndarray, k: int) -> Any:
            asked.append(k)
            return super().search(query, k)

    index = Counted(store, settings.index_dir / SIDE, HashEmbedder().model_id, dims=16)
    index.open()
    vectors = VectorIndex(store, index, ann_min=1, side_files=False, filtered_ann_min=1)
    assert vectors.use_ann()
    yield vectors, asked
    vectors.close()
    index.close()
    store.close()


def queries(vectors: VectorIndex) -> np.ndarray:
    return np.stack([vectors.vector(int(c)) for c in vectors.cids[::17]])  # type: ignore[misc]


def test_a_broad_filter_is_served_by_the_index_with_exact_search_s_answer(
    served: tuple[VectorIndex, list[int]],
) -> None:
    vectors, asked = served
    allowed = vectors.cids[::2].copy()  # half the chunks
    for q in queries(vectors):
        asked.clear()
        assert vectors.search(q, 5, allowed) == vectors.exact_search(q, 5, allowed)
        assert asked == [int(2 * 5 / (len(allowed) / vectors.size)) + 16]


def test_a_narrow_filter_is_scored_exactly(served: tuple[VectorIndex, list[int]]) -> None:
    vectors, asked = served
    allowed = vectors.cids[:5].copy()  # ~4% of vault_example's chunks
    for q in queries(vectors):
        assert vectors.search(q, 3, allowed) == vectors.exact_search(q, 3, allowed)
    assert asked == []


def test_a_filter_whose_chunks_are_not_among_the_nearest_falls_back_to_exact(
    served: tuple[VectorIndex, list[int]],
) -> None:
    """The index's nearest all fail the filter: exact search finds the filter's top k."""
    vectors, asked = served
    q = queries(vectors)[0]
    nearest = {c for c, _ in vectors.exact_search(q, 40)}
    allowed = np.array(sorted(set(vectors.cids.tolist()) - nearest), dtype=np.int64)
    found = vectors.search(q, 2, allowed)
    assert len(asked) == 1 and found == vectors.exact_search(q, 2, allowed) and len(found) == 2
    assert not {c for c, _ in found} & nearest


def test_below_the_size_where_exact_costs_more_a_broad_filter_is_scored_exactly(
    served: tuple[VectorIndex, list[int]],
) -> None:
    vectors, asked = served
    vectors.filtered_ann_min = vectors.size + 1  # exact over the filter is cheap below it
    allowed = vectors.cids[::2].copy()
    for q in queries(vectors):
        assert vectors.search(q, 5, allowed) == vectors.exact_search(q, 5, allowed)
    assert asked == []
