"""Possible duplicate entities by name/alias similarity (kg_find_duplicates), without all pairs.

Similarity of two entities is the best over (name|alias of A) x (name|alias of B) of
`fuzz.ratio / 100` on `normalise`d strings, as written or with their words sorted ("Clodius,
Andrei" = "Andrei Clodius"). `fuzz.ratio` won a labelled comparison (tests/test_duplicates.py)
against token_sort_ratio, token_set_ratio, WRatio and partial_ratio: the subset scorers call
"Java"/"JavaScript" and "Apple"/"Apple Music" 90-100% similar, and scorers on spaced words
miss "React"/"React.js". Rules ratio alone gets wrong:

* a name is as similar as its least similar word ("Mark Smith"/"Mary Smith": 89% -> 75%);
* "A. Clodius" vs "Andrei Clodius" (initials, same last word) scores `INITIALS_SIMILARITY`;
* differing strings must carry the same numbers ("2026-03-14"/"2026-03-15", "Windows 10"/
  "Windows 11") and be at least `MIN_FUZZY_LEN` long ("Go"/"Jo").

Blocking instead of n^2: a string joins a few blocks (same compact form; same sorted words;
its first 3, last 3 and first 2 + last 2 letters; each longer word and word pair), and only
pairs sharing a block are scored; one typo cannot break all of them. Blocks too large to
compare within are split on a longer key ("son" -> "rson", "lson"), or skipped for words.
Measured: blocking loses no planted duplicate; against scoring every pair of 2000 synthetic
entities it finds >= 95% at 0.8, all at 0.9, missing look-alikes that differ at both ends
("Deepcrest Cyber Materials"/"Cedarcrest Materials"). 100k entities take a few seconds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

MIN_FUZZY_LEN = 4  # below this one edit is already 25-50%: "Go"/"Jo", "Vue"/"Vye"
INITIALS_SIMILARITY = 0.9  # "A. Clodius" is probably, not certainly, "Andrei Clodius"
SMALL_BLOCK = 8  # blocks up to this size pair every member; larger ones go through cdist
MAX_BLOCK = 200  # larger blocks are split: their n^2 would dominate the run time
GATED_WORDS = 6  # names of 2..6 words are checked word by word (see _weakest_word)
_START_WIDTH = (3, 3, 2)  # first 3, last 3, first 2 + last 2 letters
_MAX_WIDTH = 16  # a block still too large with 16-letter keys is skipped
_LEADING = frozenset({"the", "dr", "prof", "mr", "mrs"})
_TRAILING = frozenset(
    {"inc", "incorporated", "ltd", "limited", "llc", "corp", "corporation", "co", "company"}
    | {"gmbh", "plc", "ag", "sa", "project", "jr", "sr", "phd"}
)
_WORD = re.compile(r"[^\W_]+")
_DIGITS = re.compile(r"\d+")

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Candidate:
    """An entity as duplicate detection sees it: id, type and the strings it goes by."""

    entity_id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class DuplicatePair:
    """Two entities that may be one; `matched` are the original strings that met."""

    entity1: str
    entity2: str
    similarity: float
    matched: tuple[str, str]


def words(name: str) -> list[str]:
    """The comparable words of a name: accents folded (NFKD, marks dropped), casefolded, split
    on anything not a letter or digit ('.', '-', '_', spaces, quotes...), with a leading "the"
    or title ("Dr.", "Prof.") and trailing company/project/person suffixes ("Inc.", "GmbH",
    "project", "Jr.", "PhD") dropped while a word remains, since "Acme Inc." and "Acme" name
    the same organisation."""
    if name.isascii():  # the common case, ~5x cheaper
        folded = name.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", name)
        folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    found = _WORD.findall(folded)
    while len(found) > 1 and found[0] in _LEADING:
        found.pop(0)
    while len(found) > 1 and found[-1] in _TRAILING:
        found.pop()
    return found


def normalise(name: str) -> str:
    """The match key of a name: `words` joined without separators, so "React.js", "ReactJS"
    and "react_js" all become "reactjs", "Jose Alvarez" meets "José Álvarez" and
    "Acme, Inc." meets "ACME". Equal keys are similarity 1.0."""
    return "".join(words(name))


def find_duplicates(
    entities: Sequence[Candidate],
    threshold: float = 0.8,
    same_type_only: bool = False,
    limit: int | None = None,
) -> list[DuplicatePair]:
    """Entity pairs whose best name/alias similarity is >= threshold (0..1), best first, each
    unordered pair once with entity1 the one listed first; deterministic for a given input.
    Only pairs sharing a block are scored, so below ~0.7 it is not exhaustive."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be within 0..1, got {threshold}")
    ids: dict[str, int] = {}
    merged: list[Candidate] = []
    owners: list[list[tuple[int, str]]] = []  # per distinct string: (entity index, as written)
    forms: list[list[str]] = []
    strings: dict[str, int] = {}
    for cand in entities:
        if cand.entity_id in ids:  # same id twice: one entity, pooled names
            ei = ids[cand.entity_id]
        else:
            ei = ids[cand.entity_id] = len(merged)
            merged.append(cand)
        for raw in (cand.name, *cand.aliases):
            toks = words(raw)
            if not toks:
                continue
            si = strings.setdefault(" ".join(toks), len(forms))
            if si == len(forms):
                forms.append(toks)
                owners.append([])
            if not owners[si] or owners[si][-1][0] != ei:  # a repeat would only pair itself
                owners[si].append((ei, raw))
    # The very same normalised string on several entities pairs them at 1.0.
    scores = [(-sim, a, b) for sim, a, b in _score_strings(forms, threshold)]
    scores.extend((-1.0, si, si) for si, own in enumerate(owners) if len(own) > 1)
    scores.sort()
    best: dict[tuple[int, int], tuple[float, str, str]] = {}
    for neg, a, b in scores:  # best first, so the first time a pair is seen is its score
        for ea, ra in owners[a]:
            for eb, rb in owners[b]:
                if ea != eb:
                    key, pair = ((ea, eb), (ra, rb)) if ea < eb else ((eb, ea), (rb, ra))
                    if key not in best:
                        best[key] = (-neg, *pair)
    ranked = sorted(
        (-sim, i, j, ra, rb)
        for (i, j), (sim, ra, rb) in best.items()
        if not same_type_only or merged[i].type == merged[j].type
    )
    out = [
        DuplicatePair(merged[i].entity_id, merged[j].entity_id, -neg, (ra, rb))
        for neg, i, j, ra, rb in ranked
    ]
    return out if limit is None else out[: max(limit, 0)]


def _score_strings(forms: list[list[str]], threshold: float) -> list[tuple[float, int, int]]:
    """(similarity, i, j) for distinct normalised strings i < j that reach the threshold."""
    n = len(forms)
    if n < 2:
        return []
    compact = ["".join(t) for t in forms]
    ordered = ["".join(sorted(t)) for t in forms]
    # Numbers must agree, leading zeros aside: "2026-03-14" carries "#2026.3.14".
    digits = [
        [] if c.isalpha() else _DIGITS.findall(" ".join(forms[i])) for i, c in enumerate(compact)
    ]
    numbers = ["#" + ".".join(str(int(d)) for d in ds) if ds else "" for ds in digits]
    cutoff = max(threshold * 100 - 1e-3, 0.0)  # ratio is float32: 80.0 may be 79.99999
    lo, hi = _candidates(forms, compact, ordered, numbers, cutoff)
    found: dict[tuple[int, int], float] = {}
    if len(lo):
        c_arr, o_arr = np.asarray(compact, dtype=object), np.asarray(ordered, dtype=object)
        written = process.cpdist(c_arr[lo], c_arr[hi], score_cutoff=cutoff, workers=-1)
        by_sort = np.zeros_like(written)  # only differs from `written` if word order does
        shuffled = np.fromiter((o != c for o, c in zip(ordered, compact, strict=True)), bool, n)
        pick = np.flatnonzero(shuffled[lo] | shuffled[hi])
        by_sort[pick] = process.cpdist(
            o_arr[lo[pick]], o_arr[hi[pick]], score_cutoff=cutoff, workers=-1
        )
        near = np.flatnonzero(np.maximum(written, by_sort) >= cutoff)
        lo, hi = lo[near], hi[near]
        sims = np.maximum(
            _weakest_word(forms, lo, hi, written[near].astype(np.float64), False),
            _weakest_word(forms, lo, hi, by_sort[near].astype(np.float64), True),
        )
        for k in np.flatnonzero(sims >= cutoff).tolist():
            found[(int(lo[k]), int(hi[k]))] = float(sims[k]) / 100.0
    initials = set(_initial_pairs(forms)) if threshold <= INITIALS_SIMILARITY else set()
    for pair in initials:
        found[pair] = max(found.get(pair, 0.0), INITIALS_SIMILARITY)
    return [
        (round(sim, 6), a, b)
        for (a, b), sim in found.items()
        if compact[a] == compact[b]
        or (
            numbers[a] == numbers[b]
            and (min(len(compact[a]), len(compact[b])) >= MIN_FUZZY_LEN or (a, b) in initials)
        )
    ]


def _candidates(
    forms: list[list[str]],
    compact: list[str],
    ordered: list[str],
    numbers: list[str],
    cutoff: float,
) -> tuple[IntArray, IntArray]:
    """Unique (i < j) string pairs sharing a block. Exact blocks (same compact form or same
    sorted words) pair every member. Fuzzy blocks (numbers part of every key) of up to
    SMALL_BLOCK pair every member, larger ones only the pairs `cdist` finds within the cutoff;
    past MAX_BLOCK, letter blocks are split on a key one letter longer, word blocks dropped."""
    every = np.arange(len(forms), dtype=np.int64)
    multi = every[np.fromiter((len(t) > 1 for t in forms), bool, len(forms))]
    pairs = [
        _all_pairs(*_blocks(compact, every), None),
        _all_pairs(*_blocks([ordered[i] for i in multi.tolist()], multi), None),
    ]
    fuzzy = every[np.fromiter((len(c) >= MIN_FUZZY_LEN for c in compact), bool, len(forms))]
    work = [(fam, width, fuzzy) for fam, width in enumerate(_START_WIDTH)]
    work.append((3, _MAX_WIDTH, np.intersect1d(fuzzy, multi)))
    while work:
        fam, width, members = work.pop()
        ids = members.tolist()
        if fam == 0:
            keys = [compact[i][:width] + numbers[i] for i in ids]
        elif fam == 1:
            keys = [compact[i][-width:] + numbers[i] for i in ids]
        elif fam == 2:
            keys = [compact[i][:width] + compact[i][-width:] + numbers[i] for i in ids]
        else:  # shared words and word pairs: names that differ at both ends
            keys, owner = [], []
            for i in ids:
                ws = sorted({t for t in forms[i] if len(t) > 2})
                ws += [f"{a} {b}" for a, b in combinations(ws, 2)] if len(ws) <= GATED_WORDS else []
                keys += [k + numbers[i] for k in ws]
                owner += [i] * len(ws)
            members = np.asarray(owner, dtype=np.int64)
        grouped, starts, sizes = _blocks(keys, members)
        pairs.append(_all_pairs(grouped, starts, sizes, SMALL_BLOCK))
        for blk in np.flatnonzero((sizes > SMALL_BLOCK) & (sizes <= MAX_BLOCK)).tolist():
            block = grouped[starts[blk] : starts[blk] + sizes[blk]]
            texts = [compact[i] for i in block.tolist()]
            hits = process.cdist(texts, texts, score_cutoff=cutoff, dtype=np.uint8, workers=1)
            r, c = np.nonzero(np.triu(hits, 1))
            pairs.append((block[r], block[c]))
        over = np.flatnonzero(sizes > MAX_BLOCK)
        if len(over) and width < _MAX_WIDTH:
            rest = np.concatenate([grouped[starts[b] : starts[b] + sizes[b]] for b in over])
            work.append((fam, width + 1, rest))
    lo = np.concatenate([p[0] for p in pairs])
    hi = np.concatenate([p[1] for p in pairs])
    code = np.sort(np.minimum(lo, hi) * len(forms) + np.maximum(lo, hi))
    code = code[np.r_[True, code[1:] != code[:-1]]] if len(code) else code
    return code // len(forms), code % len(forms)


def _blocks(keys: list[str], members: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Members grouped by key: (members in block order, block starts, block sizes)."""
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), np.int64, len(keys))
    sizes = np.bincount(codes, minlength=len(ids)).astype(np.int64)
    return members[np.argsort(codes, kind="stable")], np.cumsum(sizes) - sizes, sizes


def _all_pairs(
    grouped: IntArray, starts: IntArray, sizes: IntArray, largest: int | None
) -> tuple[IntArray, IntArray]:
    """Every pair within each block of at most `largest` members, built with numpy: each
    member is paired with the one 1, 2, ... places later in its block."""
    owner = np.repeat(np.arange(len(sizes)), sizes)
    after = sizes[owner] - (np.arange(len(grouped)) - starts[owner]) - 1
    if largest is not None:
        after[sizes[owner] > largest] = 0
    firsts, seconds = [], []
    active = np.flatnonzero(after >= 1)
    step = 1
    while len(active):
        firsts.append(grouped[active])
        seconds.append(grouped[active + step])
        step += 1
        active = active[after[active] >= step]
    if not firsts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def _weakest_word(
    forms: list[list[str]], lo: IntArray, hi: IntArray, whole: FloatArray, by_sorted: bool
) -> FloatArray:
    """A name is as similar as its least similar word: "Mark Smith"/"Mary Smith" is 89% as one
    string but 75% on the word that tells them apart. Only for equal word counts of 2 to
    GATED_WORDS, so "React JS"/"React" and "Vector Watch"/"VectorWatch" keep the whole score."""
    counts = np.fromiter((len(t) for t in forms), np.int64, len(forms))
    same = (counts[lo] == counts[hi]) & (counts[lo] >= 2) & (counts[lo] <= GATED_WORDS)
    same &= whole > 0
    rows = np.sort(np.concatenate((lo[same], hi[same])))
    rows = rows[np.r_[True, rows[1:] != rows[:-1]]] if len(rows) else rows
    lists = [sorted(forms[i]) if by_sorted else forms[i] for i in rows.tolist()]
    at_lo, at_hi = np.searchsorted(rows, lo), np.searchsorted(rows, hi)
    out = whole.copy()
    for p in range(GATED_WORDS):
        pick = np.flatnonzero(same & (counts[lo] > p))
        if not len(pick):
            break
        word = np.asarray([t[p] if len(t) > p else "" for t in lists], dtype=object)
        a, b = word[at_lo[pick]], word[at_hi[pick]]
        out[pick] = np.minimum(out[pick], process.cpdist(a, b, scorer=fuzz.ratio, workers=-1))
    return out


def _initial_pairs(forms: list[list[str]]) -> list[tuple[int, int]]:
    """Pairs like "a clodius" / "andrei clodius": all words but the last are initials on one
    side, the same initials and the same last word (>= 2 letters) on the other."""
    short: dict[str, list[int]] = {}
    for si, toks in enumerate(forms):
        initials = len(toks) > 1 and len(toks[0]) == 1 and len(toks[-1]) > 1  # cheap test first
        if initials and all(len(t) == 1 for t in toks[1:-1]):
            short.setdefault(" ".join(toks), []).append(si)
    lasts = {key.rsplit(" ", 1)[1] for key in short}
    pairs: list[tuple[int, int]] = []
    for si, toks in enumerate(forms):
        if len(toks) > 1 and toks[-1] in lasts and any(len(t) > 1 for t in toks[:-1]):
            key = " ".join(t[0] for t in toks[:-1]) + " " + toks[-1]
            pairs.extend((min(a, si), max(a, si)) for a in short.get(key, ()))
    return pairs
