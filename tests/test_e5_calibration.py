"""How search reads multilingual-e5-small's cosines (issue 43): a Chinese question no note
answers gets no confident-looking result, its answers still do, and English questions read
the map as before (SciFact's figures stand). On cosines the real model gave on the
multilingual set's Chinese vault (bench/multilingual_set.py, bench/multilingual_offtopic.jsonl:
each question's best chunk); one test runs the real model on that vault."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed_e5 import COSINE_MAP, E5Embedder
from kbtui.indexing.model_choice import VaultEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.service import MIN_SCORE, calibrate_cosine, hybrid_scores
from kbtui.tokenize import han_share
from tests.conftest import write_notes_in

OFF_TOPIC = [  # nothing in the vault answers these
    ("德国的个人所得税怎么申报？", 0.825),
    ("怎样训练小狗不咬人？", 0.826),
    ("成年人缺乏维生素D有什么症状？", 0.835),
    ("自行车的刹车片怎么更换？", 0.833),
    ("家用轿车的轮胎气压应该是多少？", 0.824),
    ("怎么在阳台上种番茄？", 0.831),
]
ANSWERED = [  # the best chunk is the answer's
    ("标签可以分层级吗？", 0.866),
    ("怎么用自己的 CSS 修改界面样式？", 0.871),
    ("新建笔记时怎样套用预先写好的格式？", 0.876),
    ("怎么把笔记导出成 PDF？", 0.909),
]


def vector_score(question: str, cosine: float) -> float:
    """The score vector search gives a chunk at this e5 cosine."""
    return float(calibrate_cosine(E5Embedder().comparable(np.array([cosine]), question))[0])


@pytest.mark.parametrize(("question", "cosine"), OFF_TOPIC)
def test_a_chinese_question_nothing_answers_gets_no_result(question: str, cosine: float) -> None:
    assert vector_score(question, cosine) < MIN_SCORE
    cos = E5Embedder().comparable(np.array([cosine, cosine - 0.01]), question)
    scores, _ = hybrid_scores(cos, np.zeros(2), np.zeros(2), share=1.0)
    assert scores.max() < MIN_SCORE  # hybrid, no word of the question in any note


@pytest.mark.parametrize(("question", "cosine"), ANSWERED)
def test_a_chinese_questions_answer_keeps_its_score(question: str, cosine: float) -> None:
    assert vector_score(question, cosine) > 2 * MIN_SCORE


def test_english_questions_read_the_map_as_before() -> None:
    cosines = np.linspace(0.7, 0.95, 26)
    for question in ("how do I file my taxes in Germany", "Wo landen eingefügte Bilder?"):
        got = E5Embedder().comparable(cosines, question)
        assert np.array_equal(got, np.interp(cosines, *COSINE_MAP)), question


def test_han_share_counts_han_characters_among_letters() -> None:
    assert han_share("怎么把笔记导出成 PDF？") == pytest.approx(8 / 11)
    assert han_share("ノートを PDF にするには？") == 0.0  # kana and Latin letters
    assert han_share("毎日日付のノートを作る") == pytest.approx(5 / 11)  # kanji among kana
    assert han_share("how do I file my taxes") == han_share("？！") == 0.0


def test_on_a_chinese_vault_e5_answers_chinese_questions_and_not_unrelated_ones(
    tmp_path: Path,
) -> None:
    """The real model end to end (~10 s; its build is cached): the 12 Chinese notes, opened as
    every front end opens a vault (VaultEmbedder, `auto` choosing e5), so the map is the one
    search reads there (it once read it from a bare E5Embedder only)."""
    vault = write_notes_in(tmp_path / "vault", "zh")
    settings = Settings.for_vault(vault)
    embedder = VaultEmbedder(settings)
    kb = KnowledgeBase.open(settings, embedder, approximate=False)
    try:
        kb.indexer.run()
        assert embedder.choice is not None and embedder.choice.model == "e5"

        def titles(query: str) -> list[str]:
            found = kb.call("kb_search", {"query": query, "top_k": 5})["results"]
            return [r["title"] for r in found]

        # before: up to 10 notes each, scored 0.2-0.35; the one at 0.835 scores 0.097 now,
        # too near 0.15 for another CPU's int8 rounding: left to the test above
        for question, cosine in OFF_TOPIC:
            if cosine < 0.835:
                assert titles(question) == [], question
        assert titles("标签可以分层级吗？")[:1] == ["标签"]
        assert titles("怎么把笔记导出成 PDF？")[:1] == ["导出 PDF"]
    finally:
        kb.close()
