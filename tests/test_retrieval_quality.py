"""A quality floor on a slice of SciFact (keyword mode, no model: a few seconds).

bench/retrieval.py is the full measurement; this catches a tokenizer or BM25 change that
makes ranking clearly worse. Skipped where the dataset is not present.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.search.service import SearchService
from kbtui.store import Store

DATA = Path("/work/shared/data/scifact")
QUERIES = 120
DISTRACTORS = 300
# Keyword nDCG@10 on this slice was 0.785 when written (deterministic: no model involved);
# the floor leaves room for a deliberate small trade-off, not for a broken tokenizer.
FLOOR = 0.76

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="SciFact data not present")


def test_keyword_ranking_keeps_its_quality(tmp_path: Path) -> None:
    queries = [json.loads(line) for line in (DATA / "queries_train.jsonl").open()][:QUERIES]
    qrels: dict[str, set[str]] = {}
    for line in (DATA / "qrels_train.tsv").read_text().splitlines()[1:]:
        qid, doc, _ = line.split("\t")
        qrels.setdefault(qid, set()).add(doc)
    judged = {d for q in queries for d in qrels.get(q["_id"], ())}
    corpus = [json.loads(line) for line in (DATA / "corpus.jsonl").open()]
    others = sorted((d for d in corpus if d["_id"] not in judged), key=lambda d: d["_id"])
    keep = judged | {d["_id"] for d in others[:DISTRACTORS]}
    vault = tmp_path / "vault"
    vault.mkdir()
    for doc in corpus:
        if doc["_id"] in keep:
            title = json.dumps(doc["title"], ensure_ascii=False)
            (vault / f"{doc['_id']}.md").write_text(f"---\ntitle: {title}\n---\n{doc['text']}\n")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, None).run(embed=False)
        search = SearchService(store, None)
        total = 0.0
        for q in queries:
            relevant = qrels[q["_id"]]
            results = search.search(q["text"], 10, mode="keyword")
            ranked = [Path(str(r.metadata["file_path"])).stem for r in results]
            dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked) if d in relevant)
            ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
            total += dcg / ideal
    finally:
        store.close()
    ndcg = total / len(queries)
    print(f"keyword nDCG@10 on the slice: {ndcg:.3f}")
    assert ndcg >= FLOOR
