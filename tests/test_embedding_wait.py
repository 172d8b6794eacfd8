"""kb_search while most passages still wait for their vectors (a first pass, a large import):
hybrid ranks by keywords alone and the answer says so. A mix in which only the embedded notes
can have vector evidence ranks them above better keyword matches (bench/mcp_ranking.py:
nDCG@10 0.25-0.48 on SciFact with 10-80% embedded, keyword alone 0.67). Real DuckDB, the
real model; the partly embedded state is made as the indexer's first batches make it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.texts import embed_text
from kbtui.runtime.knowledge_base import KnowledgeBase
from tests.conftest import copy_vault

QUERY = {"query": "who led the mobile team on the watch", "top_k": 10}


def ids(answer: dict[str, Any]) -> list[str]:
    assert answer["ok"], answer
    return [r["id"] for r in answer["results"]]


def test_hybrid_ranks_by_keywords_and_says_so_until_most_passages_have_vectors(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    kb = KnowledgeBase.open(Settings.for_vault(copy_vault(tmp_path / "vault")), real_embedder)
    try:
        kb.indexer.run(embed=False)
        pending = kb.store.pending_embeddings(100_000)
        first = pending[: len(pending) // 4]  # a quarter embedded, as after the first batches
        texts = [embed_text(title, heading, content) for _, title, heading, content in first]
        kb.store.set_embeddings([row[0] for row in first], real_embedder.embed(texts))

        keyword = kb.call("kb_search", {**QUERY, "mode": "keyword"})
        hybrid = kb.call("kb_search", {**QUERY, "mode": "hybrid"})
        assert ids(hybrid) == ids(keyword) and "message" not in keyword
        assert "ranked by keywords alone" in hybrid["message"], hybrid
        assert f"{len(first)} of {len(pending)} passages" in hybrid["message"]
        vector = kb.call("kb_search", {**QUERY, "mode": "vector"})
        assert "only those are searched" in vector["message"]

        kb.indexer.embed_pending()
        done = kb.call("kb_search", {**QUERY, "mode": "hybrid"})
        assert "message" not in done and ids(done) != ids(keyword)
        assert ids(done)[0] == "person:andrei_clodius"
    finally:
        kb.close()
