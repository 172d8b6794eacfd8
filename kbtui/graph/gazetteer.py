"""The vault's known entities (`Gazetteer`), matched in text exactly or fuzzily."""

from __future__ import annotations

import gc
import re
from collections import defaultdict
from collections.abc import Iterable

from rapidfuzz import fuzz, process

from kbtui.graph import lexicon as lx
from kbtui.graph.candidates import _FUZZY, _GAZ, _Cand, _cap_runs, _mention, _select
from kbtui.graph.model import KnownEntity, Mention
from kbtui.graph.text import _STOP, _TOKEN_RE, _clean, _fold, _Phrases, _Tok, _tokenize, key_of

# Minimum fuzz.ratio (0-100) between folded names for a near-miss to count as a known entity.
# One wrong letter in a 14-letter name scores ~93 ("Andrei Klodius"/"Andrei Clodius"); a
# different short name scores less ("Jonas"/"Jonah" 80). Only names of >= FUZZY_MIN_CHARS
# with equal digits and word counts are compared, and only within a block: the same first or
# last word (several words) or the same first or last 3 letters (one word).
FUZZY_THRESHOLD = 88.0
FUZZY_MIN_CHARS = 5
_MAX_BLOCK = 5000  # bigger blocks are very common words; their pairs also meet in another block


class Gazetteer:
    """The vault's known entities, found in text by name or alias.

    Exact matching is case- and accent-insensitive on whole tokens ("Rust" never matches in
    "trust"; short or ambiguous one-word names like "go" need a capital): one dict lookup per
    token and length. Near-misses of capitalised names ("Andrei Klodius") are scored with
    rapidfuzz against their blocks only (see FUZZY_THRESHOLD). A name beats an alias of the
    same spelling, an earlier name a later one; an alias of several entities ("Dan") is
    ambiguous and matches none of them.
    """

    def __init__(self, entities: Iterable[KnownEntity]) -> None:
        paused = gc.isenabled()
        gc.disable()  # ~1/3 faster: the build makes only acyclic tuples, strings and lists
        try:
            self._build(list(entities))
        finally:
            if paused:
                gc.enable()

    def _build(self, entities: list[KnownEntity]) -> None:
        self.entities = entities
        self._exact: _Phrases[int] = _Phrases()
        self._strings: list[str] = []  # folded names and aliases of FUZZY_MIN_CHARS or more
        self._owner: list[int] = []  # entity index per string, -1 for an ambiguous alias
        self._blocks: defaultdict[str, list[int]] = defaultdict(list)
        exact, longest, blocks = self._exact.values, self._exact.longest, self._blocks
        strings, owners, words = self._strings, self._owner, _TOKEN_RE.findall
        alias_at: dict[tuple[str, ...], int] = {}  # alias key -> its string index (or -1)
        for alias_pass in (False, True):
            for idx, ent in enumerate(self.entities):
                for name in ent.aliases if alias_pass else (ent.name,):
                    key = tuple(words(_fold(name)))
                    owner = exact.get(key)
                    if owner is not None:  # a name wins; an alias of two entities is dropped
                        if owner != idx and key in alias_at:
                            del exact[key]
                            if alias_at[key] >= 0:
                                owners[alias_at[key]] = -1
                        continue
                    if not key or key in alias_at or (len(key) == 1 and key[0] in _STOP):
                        continue
                    exact[key] = idx
                    if longest.get(key[0], 0) < len(key):
                        longest[key[0]] = len(key)
                    joined = " ".join(key)
                    fuzzy = len(joined) >= FUZZY_MIN_CHARS
                    if alias_pass:
                        alias_at[key] = len(strings) if fuzzy else -1
                    if fuzzy:
                        for block in _blocks_of(key):
                            blocks[block].append(len(strings))
                        strings.append(joined)
                        owners.append(idx)

    def __len__(self) -> int:
        return len(self.entities)

    def lookup(self, name: str) -> KnownEntity | None:
        """The entity with exactly this name or alias (case- and accent-insensitive)."""
        idx = self._exact.values.get(key_of(name))
        return None if idx is None else self.entities[idx]

    def fuzzy(self, name: str) -> tuple[KnownEntity, float] | None:
        """The closest entity scoring FUZZY_THRESHOLD or more, and its score (0-100)."""
        key = key_of(name)
        joined = " ".join(key)
        if len(joined) < FUZZY_MIN_CHARS:
            return None
        digits = re.sub(r"\D", "", joined)
        choices = {}
        for block in _blocks_of(key):
            ids = self._blocks.get(block, [])
            for i in ids if len(ids) <= _MAX_BLOCK else ():
                text = self._strings[i]
                if self._owner[i] < 0 or text.count(" ") != joined.count(" "):
                    continue
                if re.sub(r"\D", "", text) == digits:
                    choices[i] = text
        best = process.extractOne(joined, choices, scorer=fuzz.ratio, score_cutoff=FUZZY_THRESHOLD)
        return None if best is None else (self.entities[self._owner[best[2]]], float(best[1]))

    def find(self, text: str) -> list[Mention]:
        """Known entities mentioned in `text` (exact and fuzzy), longest first, no overlaps."""
        toks = _tokenize(_clean(text))
        return [_mention(c) for c in _select(self._candidates(toks, 0, len(toks)), len(toks))]

    def _candidates(self, toks: list[_Tok], s: int, e: int) -> list[_Cand]:
        lows, out = [t.low for t in toks], []
        covered = [False] * len(toks)
        for i in range(s, e):
            hit = self._exact.match(lows, i, e)
            if hit is None:
                continue
            n, ent = hit[0], self.entities[hit[1]]
            if n == 1 and not toks[i].cap and (lows[i] in lx.AMBIGUOUS_NAMES or len(lows[i]) < 4):
                continue  # "react", "go", "api" in lower case are words, not the entity
            span = (i, i + n, toks[i].start, toks[i + n - 1].end)
            out.append(_Cand(*span, ent.name, ent.type, 0.95, _GAZ, ent.entity_id))
            covered[i : i + n] = [True] * n
        for a, b in _cap_runs(toks, s, e):
            for n in range(min(4, b - a), 0, -1):
                for i in range(a, b - n + 1):
                    if all(covered[i : i + n]) or (n == 1 and toks[i].first):
                        continue
                    found = self.fuzzy(" ".join(t.text for t in toks[i : i + n]))
                    if found is not None:
                        ent, conf = found[0], round(found[1] / 100 * 0.9, 3)
                        span = (i, i + n, toks[i].start, toks[i + n - 1].end)
                        out.append(_Cand(*span, ent.name, ent.type, conf, _FUZZY, ent.entity_id))
        return out


def _blocks_of(key: tuple[str, ...]) -> tuple[str, ...]:
    if len(key) > 1:
        return ("F" + key[0], "L" + key[-1])
    return ("P" + key[0][:3], "S" + key[0][-3:])
