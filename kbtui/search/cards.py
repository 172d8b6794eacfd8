"""Knowledge cards (summary + takeaways) for a note, computed locally: no LLM, no network.

What the author wrote in frontmatter wins (`summary`/`description`, `takeaways`/`key_points`);
only the missing parts are extracted. Extraction is LexRank: the note's prose is split into
sentences, sentences are linked by TF-IDF cosine over kbtui's BM25 terms (stems, so "syncs"
meets "sync"), and PageRank finds the sentences the rest of the note keeps talking about. A
prior favours early, complete (punctuated) sentences and those sharing words with the title: a
mild lead bias, because notes usually say what they are about first.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from kbtui.tokenize import tokenize

SUMMARY_CHARS = 300
TAKEAWAY_CHARS = 200
MAX_SENTENCES = 300  # LexRank is O(n²): cap the work for huge notes
MAX_INPUT_CHARS = 100_000
MIN_WORDS = 4  # shorter fragments ("Decisions", "[[maya_okafor]]") say nothing alone
DAMPING = 0.85
DUPLICATE_JACCARD = 0.6  # stem-set overlap above which two sentences say the same thing

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE = re.compile(r"^\s*\|")
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX/-]\]\s+)?")
_QUOTE = re.compile(r"^\s*(?:>\s?)+(?:\[![^\]]*\][+-]?\s*)?")
# Every pattern is linear: no `[^\]]*` that can run to the end of a long line from each "[".
_EMBED = re.compile(r"!\[\[[^\[\]]*\]\]|!\[[^\[\]]*\]\([^()]*\)")
_WIKILINK = re.compile(r"\[\[([^\[\]|#]*)(?:#([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]")
_URL = re.compile(r"<?(?:https?://|www\.)[^\s>)\]]+>?")
_HTML = re.compile(r"<!--[^<>]*-->|</?[A-Za-z][^<>]*>")
_TAG = re.compile(r"(?<![\w#&/])#[^\W\d_][\w/-]*")
_FOOTNOTE = re.compile(r"\[\^[^\[\]]*\]")
_MDLINK = re.compile(r"\[([^\[\]]*)\]\([^()]*\)")
_CODE_SPAN = re.compile(r"(`+)([^`]+)\1")
_EMPHASIS = re.compile(r"\*\*|__|~~|`")
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")
_MARKED = re.compile("\ue002[^\ue003]*\ue003?")  # link labels are marked while cleaning
_MARKS = re.compile("[\ue002\ue003]")
_SINGLE_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_]+?)(?<=\S)\1(?![\w*])")
_SPACES = re.compile(r"\s+")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[^\W\d_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CJK_END = re.compile(r"(?<=[。！？])(?![」』）”])\s*|(?<=[。！？][」』）”])\s*")
_LATIN_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?][\"'”’)\]]))\s+(?=[^\sa-z])")
_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")
_ABBREVIATIONS = frozenset(
    ["e.g.", "i.e.", "etc.", "vs.", "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "no.", "fig."]
)
_TRIM = " \t-–—:;,*•·|"
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)」』]*$")


def knowledge_card(
    frontmatter: Mapping[str, Any], body: str, title: str = "", max_takeaways: int = 3
) -> dict[str, Any]:
    """{"summary", "takeaways", "source"}: frontmatter parts verbatim, the rest extracted.

    `source` is "frontmatter" when every non-empty part came from the frontmatter, "extracted"
    when none did, else "mixed". `max_takeaways` caps frontmatter takeaways too.
    """
    fm_summary = _fm_text(frontmatter.get("summary")) or _fm_text(frontmatter.get("description"))
    fm_takeaways = _fm_list(frontmatter.get("takeaways")) or _fm_list(frontmatter.get("key_points"))
    summary, takeaways = fm_summary, fm_takeaways[: max(0, max_takeaways)]
    if not summary or not takeaways:
        got_summary, got_takeaways = _pick(_sentences(body, title), title, summary, max_takeaways)
        summary, takeaways = summary or got_summary, takeaways or got_takeaways
    extracted = (summary and not fm_summary) or (takeaways and not fm_takeaways)
    from_fm = bool(fm_summary or fm_takeaways)
    source = "mixed" if from_fm and extracted else "frontmatter" if from_fm else "extracted"
    return {"summary": summary, "takeaways": takeaways, "source": source}


def extract_sentences(markdown: str, title: str = "") -> list[str]:
    """The note's prose as plain sentences, in order; headings, code and fragments dropped."""
    return [sentence for sentence, _ in _sentences(markdown, title)]


def _sentences(markdown: str, title: str) -> list[tuple[str, float]]:
    """(sentence, share of its characters that were link labels), for at most MAX_SENTENCES."""
    title_key = _SPACES.sub(" ", title).strip().casefold()
    out: list[tuple[str, float]] = []
    for block in _blocks(markdown[:MAX_INPUT_CHARS]):
        if not _has_prose(block):
            continue
        for marked in _split_sentences(_clean(block)):
            linked = sum(len(m) - 1 for m in _MARKED.findall(marked))
            sentence = _MARKS.sub("", marked).strip(_TRIM)
            if _informative(sentence) and sentence.casefold() != title_key:
                out.append((sentence, min(1.0, linked / max(1, len(sentence)))))
                if len(out) >= MAX_SENTENCES:
                    return out
    return out


def _pick(
    found: list[tuple[str, float]], title: str, known: str, limit: int
) -> tuple[str, list[str]]:
    """Summary (best 1-2 sentences, unless `known`) and takeaways (next best distinct ones), both
    in document order."""
    if not found:
        return "", []
    sentences = [sentence for sentence, _ in found]
    terms = [tokenize(s) for s in sentences]
    # The prior: early, complete (punctuated), on the title's words, not mostly link labels.
    # In a short note centrality alone is noise (two list items sharing "watch" outrank the
    # definition), so the prior weighs in twice: in LexRank's random jump and on its result.
    title_terms = set(tokenize(title))
    prior = 1.0 / np.sqrt(1.0 + np.arange(len(found)) / 4.0)
    prior *= [2.0 if _SENTENCE_END.search(s) else 1.0 for s in sentences]
    prior *= [1.3 if title_terms & set(t) else 1.0 for t in terms]
    prior *= [1.0 - 0.6 * linked for _, linked in found]
    scores = _lexrank(terms, prior) * prior
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    seen: list[set[str]] = [set(tokenize(known))] if known else []
    summary_idx: list[int] = []
    if not known:
        best = order[0]
        summary_idx.append(best)
        seen.append(set(terms[best]))
        for j in order[1:2]:
            fits = len(sentences[best]) + 1 + len(sentences[j]) <= SUMMARY_CHARS
            prose = all(_SENTENCE_END.search(sentences[i]) for i in (best, j))  # no list items
            good = scores[j] >= 0.5 * scores[best] and not _duplicate(set(terms[j]), seen)
            if prose and len(sentences[best]) < 150 and fits and good:
                summary_idx.append(j)
                seen.append(set(terms[j]))
    chosen: list[int] = []
    for i in order:
        if len(chosen) >= limit:
            break
        if i in summary_idx or _duplicate(set(terms[i]), seen):
            continue
        chosen.append(i)
        seen.append(set(terms[i]))
    parts = [sentences[i] for i in sorted(summary_idx)]
    cjk = bool(parts) and parts[0][-1] in "。！？」』"  # CJK sentences run on without spaces
    summary = _clip(("" if cjk else " ").join(parts), SUMMARY_CHARS)
    return summary, [_clip(sentences[i], TAKEAWAY_CHARS) for i in sorted(chosen)]


def _lexrank(terms: list[list[str]], prior: np.ndarray) -> np.ndarray:
    """Continuous LexRank (PageRank over sentence similarity), random jumps weighted by `prior`."""
    n = len(terms)
    postings: dict[str, list[tuple[int, float]]] = {}
    for i, sentence_terms in enumerate(terms):
        for term, count in Counter(sentence_terms).items():
            postings.setdefault(term, []).append((i, 1.0 + math.log(count)))
    squares = [0.0] * n
    shared: list[tuple[list[int], list[float]]] = []
    for plist in postings.values():
        idf = math.log((1.0 + n) / (1.0 + len(plist))) + 1.0
        weights = [tf * idf for _, tf in plist]
        for (i, _), w in zip(plist, weights, strict=True):
            squares[i] += w * w
        if len(plist) > 1:  # only shared terms link sentences
            shared.append(([i for i, _ in plist], weights))
    norms = np.sqrt(np.array(squares))
    norms[norms == 0] = 1.0
    # Sparse cosine by postings, no BLAS: multithreaded BLAS on tiny matrices is slow when
    # other processes keep the cores busy (128 ms instead of 3 ms, measured).
    similarity = np.zeros((n, n))
    for rows, weights in shared:
        idx = np.array(rows)
        unit = np.array(weights) / norms[idx]
        similarity[np.ix_(idx, idx)] += np.multiply.outer(unit, unit)
    np.fill_diagonal(similarity, 0.0)
    jump = prior / prior.sum()
    out_weight = similarity.sum(axis=1)
    dangling = out_weight <= 0
    transition = similarity / np.where(dangling, 1.0, out_weight)[:, None]
    transition[dangling] = jump  # a sentence that shares nothing jumps like the random surfer
    scores: np.ndarray = jump.copy()
    for _ in range(200):
        updated = (1 - DAMPING) * jump + DAMPING * (transition * scores[:, None]).sum(axis=0)
        converged = float(np.abs(updated - scores).sum()) < 1e-8
        scores = updated
        if converged:
            break
    return scores


def _duplicate(candidate: set[str], seen: list[set[str]]) -> bool:
    """Near-duplicate by stem overlap: a takeaway must add something the card lacks."""
    for other in seen:
        union = candidate | other
        if union and len(candidate & other) / len(union) >= DUPLICATE_JACCARD:
            return True
    return False


def _blocks(markdown: str) -> list[str]:
    """Paragraphs (soft-wrapped lines joined) and list items; code, headings, tables dropped."""
    blocks: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(" ".join(para))
            para.clear()

    fence: str | None = None
    for raw in markdown.splitlines():
        if fence is not None:
            if raw.lstrip().startswith(fence):
                fence = None
            continue
        opened = _FENCE.match(raw)
        if opened:
            flush()
            fence = opened.group(1)
        elif _SETEXT.match(raw) and para:
            para.pop()  # the line above an underline is a heading
            flush()
        elif not raw.strip() or _HEADING.match(raw) or _RULE.match(raw) or _TABLE.match(raw):
            flush()
        else:
            line = _QUOTE.sub("", raw, count=1)
            item = _LIST.match(line)
            if item:
                flush()
                line = line[item.end() :]
            para.append(line.strip())
    flush()
    return blocks


def _has_prose(block: str) -> bool:
    """False for blocks that are only links ("[[a]] · [[b]]", "Logged in [[x]]")."""
    residue = _MDLINK.sub(" ", _WIKILINK.sub(" ", _URL.sub(" ", _EMBED.sub(" ", block))))
    return len(_LATIN_WORD.findall(residue)) + len(_CJK_CHAR.findall(residue)) / 2 >= 2


def _clean(block: str) -> str:
    """Markdown block -> plain text; inline code is kept literally (it is prose, not syntax)."""
    spans: list[str] = []

    def stash(match: re.Match[str]) -> str:
        spans.append(match.group(2).strip())
        return f"\ue000{len(spans) - 1}\ue001"

    text = _CODE_SPAN.sub(stash, block)
    text = _EMBED.sub(" ", text)
    text = _WIKILINK.sub(_wikilink_label, text)
    text = _MDLINK.sub("\ue002\\1\ue003", text)
    text = _HTML.sub(" ", _URL.sub(" ", text))
    # Not kbtui.vault.plain.plain_text: its link pattern is quadratic on a long line with many
    # unmatched "[" (11 s for 90 kB of "[a "); this does the same job in linear time.
    text = _SINGLE_EMPHASIS.sub(r"\2", _EMPHASIS.sub("", text))
    text = _FOOTNOTE.sub("", _TAG.sub("", text))
    text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)
    return _SPACES.sub(" ", text).strip()


def _wikilink_label(match: re.Match[str]) -> str:
    target, heading, label = match.group(1), match.group(2), match.group(3)
    text = label.strip() if label and label.strip() else (target or heading or "").replace("_", " ")
    return f"\ue002{text.strip()}\ue003"


def _split_sentences(text: str) -> list[str]:
    pieces: list[str] = []
    for part in _CJK_END.split(text):
        for sentence in _LATIN_END.split(part):
            last = pieces[-1].rsplit(" ", 1)[-1].lower() if pieces else ""
            if last in _ABBREVIATIONS or (pieces and _INITIAL.search(pieces[-1])):
                pieces[-1] = f"{pieces[-1]} {sentence}"
            elif sentence.strip():
                pieces.append(sentence.strip())
    return pieces


def _informative(sentence: str) -> bool:
    """Long enough to stand alone (a CJK character counts half a word); not a bare date."""
    cjk = len(_CJK_CHAR.findall(sentence))
    words = len(_LATIN_WORD.findall(sentence))
    return (cjk > 0 or len(sentence) >= 15) and words + cjk / 2 >= MIN_WORDS


def _clip(text: str, limit: int) -> str:
    """At most `limit` chars, cut on a word boundary (CJK: anywhere) and marked with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(_TRIM + ".,") + "…"


def _fm_text(value: Any) -> str:
    return " ".join(_fm_list(value))


def _fm_list(value: Any) -> list[str]:
    """Frontmatter strings (or numbers), whitespace collapsed; anything else ignored."""
    items = value if isinstance(value, list | tuple) else [value]
    texts = [str(v) for v in items if isinstance(v, str | int | float) and not isinstance(v, bool)]
    return [t for t in (_SPACES.sub(" ", t).strip() for t in texts) if t]
