"""The short lay-query set (bench/short_queries.jsonl) and the graded scoring bench/retrieval.py
gives it: the file stays what its docstring says, and a grade-2 abstract counts more than a
grade-1 one while binary judgments score exactly as before."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import retrieval  # noqa: E402  (bench/ is not a package)
import short_set  # noqa: E402

CORPUS = Path("/work/shared/data/scifact/corpus.jsonl")


def test_the_set_is_short_graded_queries_with_a_judged_pool() -> None:
    rows = [json.loads(line) for line in short_set.QUERIES.read_text().splitlines() if line]
    assert len(rows) >= 60
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["query"] for r in rows}) == len(rows)
    lengths = sorted(len(r["query"]) for r in rows)
    assert 12 <= lengths[len(lengths) // 2] <= 20
    for row in rows:
        assert 1 <= len(row["query"].split()) <= 4, row["query"]
        assert row["relevant"], f"{row['query']!r} has nothing relevant: it should be dropped"
        assert set(row["relevant"].values()) <= {1, 2}
        assert not set(row["relevant"]) & set(row["nonrelevant"])
    queries, qrels, judged = short_set.load()
    assert set(queries) == set(qrels) == set(judged)
    assert all(set(qrels[q]) <= judged[q] for q in queries)


@pytest.mark.skipif(not CORPUS.is_file(), reason="SciFact data not present")
def test_every_judged_abstract_is_in_the_corpus() -> None:
    ids = {json.loads(line)["_id"] for line in CORPUS.open(encoding="utf-8")}
    _, _, judged = short_set.load()
    assert set().union(*judged.values()) <= ids


def test_graded_gain_ranks_the_squarely_relevant_abstract_higher() -> None:
    grades = {"a": 2, "b": 1}
    best, _, _ = retrieval.metrics(["a", "b"], ["a", "b"], grades)
    swapped, _, _ = retrieval.metrics(["b", "a"], ["b", "a"], grades)
    assert best == pytest.approx(1.0)
    assert swapped == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert swapped < best


def test_binary_judgments_score_as_beir_does() -> None:
    # One relevant of two at rank 2, the other missing from the top 100: BEIR's values.
    ndcg, recall, mrr = retrieval.metrics(["x", "a"], ["x", "a"], {"a": 1, "b": 1})
    assert ndcg == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert recall == pytest.approx(0.5)
    assert mrr == pytest.approx(0.5)


def test_judged_at_10_is_the_share_of_the_top_10_in_the_pool() -> None:
    rankings = {"q1": ["a", "b", "c", "d"], "q2": ["e"]}
    assert short_set.judged_at_10(rankings, {"q1": {"a", "b"}, "q2": {"e"}}) == 0.75
