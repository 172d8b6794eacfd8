"""Text -> BM25 terms, shared by indexing and querying so both sides always agree.

Case-folded (ß = ss), NFKC, accents folded (café = cafe), English stop words dropped,
Snowball-stemmed; `snake_case` splits into words; Chinese and Japanese (no spaces) become
overlapping character bigrams, and so does Korean: its words carry their particles and
endings (노트를, 노트에 are both "note"), and the bigrams of a word's stem still match
(bench/multilingual_keywords.py: Korean questions found first 7 -> 8 of 12; 10 with the
bigrams no note holds left out of the best score, kbtui.search.keyword_index). Terms are stored
as signed 64-bit hashes: no term dictionary to keep in sync.

Changing what this module produces changes the index: bump TOKENIZER_VERSION, and the next
indexing pass re-tokenises every note (kbtui.indexing.indexer.index_version).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from functools import lru_cache

from py_rust_stemmers import SnowballStemmer

TOKENIZER_VERSION = "3"  # 2: casefold (ß = ss), the "s" of possessives dropped; 3: Hangul bigrams

_WORD_RE = re.compile(r"[^\W_]+")
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (Chinese; Japanese kanji)
_CJK = f"\u3040-\u30ff{_HAN}\uac00-\ud7af"  # with kana and Hangul syllables
_CJK_RE = re.compile(f"([{_CJK}]+)")
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "s",  # café's -> café, s
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "t",  # don't -> don, t
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


@lru_cache(maxsize=1)
def _stemmer() -> SnowballStemmer:
    return SnowballStemmer("english")


def tokenize(text: str) -> list[str]:
    """The terms of a text, in order (duplicates kept: term frequency matters)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words: list[str] = []
    for run in _WORD_RE.findall(text):
        if run.isascii():  # the common case, no CJK inside
            term = _term(run)
            if term:
                words.append(term)
            continue
        for i, part in enumerate(_CJK_RE.split(run)):
            if not part:
                continue
            if i % 2 == 1:  # a CJK segment
                words.extend(
                    [part] if len(part) == 1 else [part[j : j + 2] for j in range(len(part) - 1)]
                )
                continue
            term = _term(part)
            if term:
                words.append(term)
    return words


@lru_cache(maxsize=1 << 18)
def _term(word: str) -> str:
    """Folded, stemmed form of one lower-case word; "" for a stop word.

    Cached: a vault repeats a few thousand words endlessly, and stemming and hashing them
    one by one was most of the keyword-side indexing time.
    """
    folded = _fold(word)
    if folded in STOP_WORDS:
        return ""
    if folded.isascii() and folded.isalpha():
        return str(_stemmer().stem_word(folded))
    return folded


@lru_cache(maxsize=1 << 18)
def term_id(term: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(term.encode(), digest_size=8).digest(), "little", signed=True
    )


def term_counts(text: str) -> tuple[Counter[int], int]:
    """{term id: frequency} and the text's length in terms."""
    terms = tokenize(text)
    return Counter(term_id(t) for t in terms), len(terms)


def bigram_terms(text: str) -> frozenset[int]:
    """The ids of the text's CJK bigrams (the terms `tokenize` makes of a run of two or more
    ideographs, kana or Hangul syllables)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return frozenset(
        term_id(run[j : j + 2]) for run in _CJK_RE.findall(folded) for j in range(len(run) - 1)
    )


def query_terms(text: str) -> list[int]:
    """Distinct term ids of a query, in first-seen order."""
    return list(dict.fromkeys(term_id(t) for t in tokenize(text)))


def _fold(word: str) -> str:
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", folded) or word  # NFC: Hangul syllables, not jamo


_IDEOGRAPH_RE = re.compile(f"[{_CJK}]")


def ideographs(text: str) -> int:
    """How many CJK ideographs, kana or Hangul syllables the text holds."""
    return len(_IDEOGRAPH_RE.findall(text))


def searchable(query: str, min_chars: int = 3) -> bool:
    """Long enough to search: `min_chars` characters, or two ideographs (退款 is a word)."""
    text = query.strip()
    return len(text) >= min_chars or ideographs(text) >= 2


def latin_share(query: str) -> float:
    """The share of the query's letters and digits in Latin script (0..1; 1 for no letters).

    The embedding model (English MiniLM) reads Latin-script text only: every Chinese text
    embeds near every other, so a Chinese question scores unrelated Chinese notes at cosine
    0.6-0.87. Search weighs the vector signal by this share.
    """
    letters = [c for c in unicodedata.normalize("NFKC", query) if c.isalnum()]
    if not letters:
        return 1.0
    return sum(1 for c in letters if _latin(c)) / len(letters)


def han_share(query: str) -> float:
    """The share of the query's letters and digits that are Han characters (0..1): Chinese
    text, the kanji of Japanese."""
    letters = [c for c in unicodedata.normalize("NFKC", query) if c.isalnum()]
    return sum(1 for c in letters if _HAN_RE.match(c)) / len(letters) if letters else 0.0


_HAN_RE = re.compile(f"[{_HAN}]")


@lru_cache(maxsize=4096)
def _latin(char: str) -> bool:
    return char.isascii() or unicodedata.name(char, "").startswith("LATIN")


def readable_share(query: str, model_id: str) -> float:
    """How much of the query the embedding model reads: all of it for the multilingual one
    (multilingual-e5-small: its id starts so, kbtui.embed_e5), the Latin-script share for
    English MiniLM."""
    return 1.0 if model_id.startswith("multilingual") else latin_share(query)
