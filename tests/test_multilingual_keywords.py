"""Keyword search answers questions in languages without spaces between words (issue 43 item
3), on the multilingual set's notes (bench/multilingual_notes.jsonl, written for this project):
Korean words match whatever particle they carry, and a long Chinese or Korean question is not
sunk under the score floor by the bigrams its words make across their boundaries.
bench/multilingual_keywords.py measures all five languages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.tokenize import bigram_terms, query_terms

NOTES = Path(__file__).resolve().parent.parent / "bench" / "multilingual_notes.jsonl"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    vault = tmp_path_factory.mktemp("multilingual") / "vault"
    for line in NOTES.read_text(encoding="utf-8").splitlines():
        note = json.loads(line)
        if note["lang"] in ("zh", "ko", "en"):
            path = vault / note["lang"] / f"{note['title']}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {note['title']}\n\n{note['text']}\n", encoding="utf-8")
    opened = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder(), approximate=False)
    opened.indexer.run(embed=False)
    yield opened
    opened.close()


def top(kb: KnowledgeBase, question: str, k: int = 5) -> list[str]:
    found = kb.call("kb_search", {"query": question, "mode": "keyword", "top_k": k})
    return [r["metadata"]["file_path"] for r in found["results"]]


@pytest.mark.parametrize(
    ("question", "note"),
    [
        # the note says 이미지나 ... 저장될: whole words shared nothing with the question
        ("붙여 넣은 이미지는 어디에 저장되나요?", "ko/첨부 파일.md"),
        ("매일 날짜로 된 노트를 자동으로 만들려면?", "ko/일일 노트.md"),
        ("그래프의 점을 폴더별로 색칠할 수 있나요?", "ko/그래프 보기.md"),
    ],
)
def test_a_korean_question_finds_its_note_first(
    kb: KnowledgeBase, question: str, note: str
) -> None:
    assert top(kb, question)[:1] == [note]


def test_a_long_chinese_question_keeps_its_keyword_hits(kb: KnowledgeBase) -> None:
    """引用 and 笔记 are the note's words; 么查, 查看, 有哪 ... are in no note: counted in the
    best score the question could reach, they kept every hit under the floor (none shown)."""
    assert "zh/反向链接.md" in top(kb, "怎么查看有哪些笔记引用了我现在这篇？")


def test_an_english_question_is_scored_as_before(kb: KnowledgeBase) -> None:
    """No bigram in an English query: every term counts in its best score, as before."""
    terms = query_terms("notes for each day")
    assert bigram_terms("notes for each day") == frozenset()
    before = kb.search_service.keywords.score(terms, 10)
    assert before.hits == kb.search_service.keywords.score(terms, 10, None, frozenset()).hits
    assert top(kb, "notes for each day")[:1] == ["en/Daily notes.md"]
