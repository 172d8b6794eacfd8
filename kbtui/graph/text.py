"""Text for the extractor: markdown blanked in place (`_clean`), folding, tokens,
sentences, and the folded phrase tables built from `kbtui.graph.lexicon`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

from kbtui.graph import lexicon as lx

# -- text, tokens, sentences -----------------------------------------------------------------

_TOKEN_RE = re.compile(r"\.?\w+(?:[.\-/]\w+|['’](?![sS]\b)\w+)*(?:\+\+|#)?|['’][sS]\b|[^\w\s]")
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
_LIST_RE = re.compile(r"[ \t]*(?:[-*+>#|]|\d+[.)]\s)")
_FRONTMATTER_RE = re.compile(r"\A---\r?\n.*?\n---[ \t]*\r?\n", re.S)
_FENCE_RE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_WIKILINK_RE = re.compile(r"\[\[([^\]|#]*)((?:#[^\]|]*)?)(?:\|([^\]]*))?\]\]")
_MDLINK_RE = re.compile(r"(!?\[)([^\]]*)(\]\([^)]*\))")
_NOISE_RE = re.compile(r"https?://\S+|(?<![\w&])#[\w/-]+|\*\*|__|`|^#{1,6}[ \t]|\[[ xX]\]", re.M)


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _clean(text: str) -> str:
    """Markdown syntax to spaces, same length: [[a_b|Label]] keeps Label, [[a_b]] reads "a b"."""

    def wikilink(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            return _blank(m.group()[: m.start(3) - m.start()]) + m.group(3) + "  "
        return "  " + m.group(1).replace("_", " ") + _blank(m.group(2)) + "  "

    text = _FRONTMATTER_RE.sub(lambda m: _blank(m.group()), text)
    text = _FENCE_RE.sub(lambda m: _blank(m.group()), text)
    text = _WIKILINK_RE.sub(wikilink, text)
    text = _MDLINK_RE.sub(lambda m: _blank(m.group(1)) + m.group(2) + _blank(m.group(3)), text)
    return _NOISE_RE.sub(lambda m: _blank(m.group()), text)


@lru_cache(maxsize=1 << 16)
def fold(word: str) -> str:
    """Lower-case, accents removed ("Zürich" = "zurich"), curly apostrophes straightened."""
    return _fold(word)


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text.replace("’", "'"))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def key_of(name: str) -> tuple[str, ...]:
    """A name as the folded token tuple every lookup table uses."""
    return tuple(_TOKEN_RE.findall(_fold(name)))


@dataclass(slots=True)
class _Tok:
    text: str
    low: str  # folded
    start: int
    end: int
    cap: bool
    first: bool = False  # first word of its sentence: its capital letter proves nothing


def _tokenize(text: str) -> list[_Tok]:
    return [
        _Tok(m.group(), fold(m.group()), m.start(), m.end(), m.group().lstrip(".")[:1].isupper())
        for m in _TOKEN_RE.finditer(text)
    ]


def _sentences(raw: str, toks: list[_Tok]) -> list[tuple[int, int]]:
    """Token ranges of sentences; marks each one's first word."""
    spans, begin = [], 0
    for i, tok in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        cut = nxt is None
        if nxt is not None and tok.text in {".", "!", "?"}:
            prev = toks[i - 1] if i else tok
            initial = len(prev.text) == 1 and prev.text.isupper()
            abbrev = prev.end == tok.start and (prev.low in lx.ABBREVIATIONS or initial)
            cut = not abbrev and (nxt.cap or not nxt.text[0].isalnum())
        if not cut and nxt is not None and "\n" in raw[tok.end : nxt.start]:
            line = raw.rfind("\n", tok.end, nxt.start) + 1
            cut = raw.count("\n", tok.end, nxt.start) > 1 or tok.text in {".", "!", "?", ":", ";"}
            cut = cut or bool(_LIST_RE.match(raw, line))
        if cut:
            spans.append((begin, i + 1))
            begin = i + 1
    for s, e in spans:
        words = [t for t in toks[s:e] if t.text[0].isalnum()]
        if words:
            words[0].first = True
    return spans


# -- lookup tables ---------------------------------------------------------------------------


V = TypeVar("V")


class _Phrases(Generic[V]):
    """Folded token tuples -> value, with the longest phrase per first token."""

    def __init__(self, pairs: Iterable[tuple[str, V]] = ()) -> None:
        self.values: dict[tuple[str, ...], V] = {}
        self.longest: dict[str, int] = {}
        for phrase, value in pairs:  # later pairs win
            self.add(key_of(phrase), value)

    def add(self, key: tuple[str, ...], value: V) -> None:
        if key:
            self.values[key] = value
            self.longest[key[0]] = max(self.longest.get(key[0], 0), len(key))

    def match(self, lows: list[str], i: int, end: int) -> tuple[int, V] | None:
        """The longest phrase starting at token i and ending by `end`: (length, value)."""
        for n in range(min(self.longest.get(lows[i], 0), end - i), 0, -1):
            value = self.values.get(tuple(lows[i : i + n]))
            if value is not None:
                return n, value
        return None


_LEXICON = _Phrases(  # (display name, type); an organisation beats a place of the same name
    [(n, (n, "technology")) for n in lx.TECHNOLOGIES]
    + [(n, (n, "location")) for n in lx.LOCATIONS]
    + [(n, (n, "organization")) for n in lx.ORGANIZATIONS]
)
_CUES = _Phrases((p, (rel, inverted)) for p, rel, inverted in lx.RELATION_CUES)
_TYPING = _Phrases((p, (kind, p)) for kind, ps in lx.TYPING_CUES.items() for p in ps)
_TOPICS = _Phrases((p, p) for p in lx.CONCEPT_CUES)
_FIRST_NAMES = frozenset(fold(n) for n in lx.FIRST_NAMES)


def is_first_name(word: str) -> bool:
    """A given name from the lexicon ("Maya"), in any case or accent."""
    return fold(word) in _FIRST_NAMES


_CUE_WORDS = frozenset(k[0] for k in _CUES.values) | frozenset(k[0] for k in _TOPICS.values)
_FUNCTION = lx.PREPOSITIONS | lx.CONJUNCTIONS | lx.AUXILIARIES | lx.PRONOUNS | lx.CLAUSE_OPENERS
_FUNCTION |= lx.RELATIVE_PRONOUNS | {"how", "what", "why", "where", "that", "there", "here"}
_STOP = _FUNCTION | lx.DETERMINERS | lx.ADVERBS | lx.MONTHS_DAYS
_NAMED_AFTER = lx.DROPPED_HEADS | lx.TECH_HEADS | lx.ADDON_HEADS  # heads left out of the name
_HEADS = lx.WORK_HEADS | lx.DOCUMENT_HEADS | _NAMED_AFTER
_SURNOT = _HEADS | lx.ORG_SUFFIXES  # "Sarah Labs" is a company, "Maria Project" no surname
_CAMEL_RE = re.compile(
    r"(?!(?:Mc|Mac|O')[A-Z])(?:.*[a-z][A-Z]|[A-Z]{2,}(?!s$)[a-z]|.+\.(?:js|py|rs)$)"
)
_NUMBER_RE = re.compile(r"\d[\d.:-]*")


def _is_lexicon_word(low: str) -> bool:
    return (low,) in _LEXICON.values
