"""The model choice with the real models (issue 43): a Chinese vault under `auto` is embedded by
multilingual-e5-small, whose vectors answer a Chinese question MiniLM's rank 10th
(bench/model_choice.py measures the whole set). Skipped until kbtui.embed_e5 is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.indexing.model_choice import E5, VaultEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from tests.conftest import write_notes_in

pytest.importorskip("kbtui.embed_e5")


def test_auto_gives_a_chinese_vault_e5_whose_vectors_read_chinese(tmp_path: Path) -> None:
    settings = Settings.for_vault(write_notes_in(tmp_path / "vault", "zh"))
    embedder = VaultEmbedder(settings)
    kb = KnowledgeBase.open(settings, embedder, approximate=False)
    try:
        assert embedder.choice is not None and embedder.choice.model == E5
        assert embedder.model_id.startswith("multilingual-e5-small")
        assert kb.indexer.run().chunks_embedded == 12
        found = kb.call("kb_search", {"query": "拖进来的图片存到哪里去了？", "mode": "vector"})
        assert found["results"][0]["metadata"]["file_path"] == "附件.md"
    finally:
        kb.close()
