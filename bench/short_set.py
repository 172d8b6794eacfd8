"""The short lay-query set over SciFact (bench/short_queries.jsonl), scored by bench/retrieval.py.

71 queries of 1-3 words (median 15 characters) as a curious non-specialist types them about
health and biology ("heart attack", "vitamin d bones", "body clock"), against the SciFact
abstracts: the same kind as the held-out short-query set of issue 17, which we cannot see.

How it was made: the 72 queries were written and committed (60f606c) before any search result
was looked at. Each query's pool is the top 20 notes of kbtui's keyword, vector and hybrid modes
(over the full 5,183-abstract vault retrieval.py builds), the top 20 of a plain word scan of
titles and texts, and the top 20 of a second scan with hand-written technical synonyms for the
lay words ("heart attack" -> myocardial infarction, acute coronary syndrome; "cancer spread" ->
metasta*). The synonym scan was added after the first round showed the gap it fills: none of
the 13 abstracts with "myocardial infarction" in the title was in the "heart attack" pool. The
pool, deduplicated and shuffled, was judged from title and text without knowing which system
found an abstract or at what rank: 2 = squarely about the query's topic, 1 = partly or closely
related, 0 = not. 3,051 judged, 1,321 relevant (815 grade 2); one query ("coffee") had nothing
relevant and was dropped. A blind re-judging of 100 random first-round pairs agreed on 98
(same judge, so this measures consistency, not agreement between people). A row keeps the
graded judgments ("relevant") and the judged-not-relevant abstracts ("nonrelevant"), ids only.

Pool bias: an abstract no pooled source ranked in its top 20 was never judged and counts as not
relevant, which flatters the systems that built the pool. J@10 (the share of the top 10 that
was judged) shows how far a changed ranking has moved outside the pool; when it drops well
below 1.00, judge the new abstracts before trusting a gain.
"""

from __future__ import annotations

import json
from pathlib import Path

QUERIES = Path(__file__).resolve().parent / "short_queries.jsonl"


def load(
    path: Path = QUERIES,
) -> tuple[dict[str, str], dict[str, dict[str, int]], dict[str, set[str]]]:
    """(queries {id: text}, graded qrels {id: {doc: grade}}, judged {id: every pooled doc})."""
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    judged: dict[str, set[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        qid = row["id"]
        queries[qid] = row["query"]
        qrels[qid] = {doc: int(grade) for doc, grade in row["relevant"].items()}
        judged[qid] = set(row["relevant"]) | set(row.get("nonrelevant", []))
    return queries, qrels, judged


def judged_at_10(rankings: dict[str, list[str]], judged: dict[str, set[str]]) -> float:
    """Mean share of each query's top 10 that was judged (1.00: the pool covers the ranking)."""
    shares = [
        sum(d in judged[qid] for d in ranked[:10]) / len(ranked[:10])
        for qid, ranked in rankings.items()
        if ranked
    ]
    return sum(shares) / max(len(shares), 1)
