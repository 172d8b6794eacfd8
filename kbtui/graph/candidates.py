"""Mention candidates (`_Cand`) and their ranks, shared by the gazetteer and the pattern
generators in `kbtui.graph.mentions`; `_select` keeps the longest, non-overlapping ones."""

from __future__ import annotations

from dataclasses import dataclass

from kbtui.graph import lexicon as lx
from kbtui.graph.model import Mention
from kbtui.graph.text import _STOP, _WORD_RE, _Tok


def _name_word(tok: _Tok, first_ok: bool = False) -> bool:
    """A capitalised word that could be part of a name."""
    return (
        tok.cap and (first_ok or not tok.first) and tok.low not in _STOP
        and tok.low not in lx.GENERIC_CAPS and bool(_WORD_RE.fullmatch(tok.text))
    )  # fmt: skip


def _cap_runs(toks: list[_Tok], s: int, e: int) -> list[tuple[int, int]]:
    """Runs of capitalised words (name particles inside): where unknown names hide."""
    runs, i = [], s
    while i < e:
        j = i
        while j < e and (
            _name_word(toks[j], first_ok=True)
            or (j > i and toks[j].low in lx.NAME_PARTICLES and j + 1 < e and toks[j + 1].cap)
        ):
            j += 1
        if j > i:
            runs.append((i, j))
        i = max(j, i + 1)
    return runs


# Ranks break ties between candidates of equal length: known entities first, topics last.
_GAZ, _FUZZY, _PATTERN, _SUFFIX, _LEX, _PERSON, _CUE, _SHAPE, _TOPIC = range(9)


@dataclass(slots=True)
class _Cand:
    i: int  # token span [i, j) occupied ("the Tidepool app" occupies "Tidepool app")
    j: int
    start: int  # character span of the name itself ("Tidepool")
    end: int
    name: str
    type: str
    conf: float
    rank: int
    entity_id: str | None = None
    inner: bool = False  # nested in a longer mention: an entity, never a relation's argument


def _cand(
    raw: str, toks: list[_Tok], span: tuple[int, int], named: tuple[int, int], name: str,
    kind: str, conf: float, rank: int,
) -> _Cand:  # fmt: skip
    """A candidate occupying tokens `span`, named `name` or else by tokens `named` as written."""
    start, end = toks[named[0]].start, toks[named[1] - 1].end
    return _Cand(*span, start, end, name or " ".join(raw[start:end].split()), kind, conf, rank)


def _select(cands: list[_Cand], n_tokens: int) -> list[_Cand]:
    """Longest first, then by rank. A technology (or known entity) may nest in a project,
    document or topic. Returns the chosen candidates in text order."""
    taken: list[_Cand | None] = [None] * n_tokens
    chosen: list[_Cand] = []
    for c in sorted(cands, key=lambda c: (c.i - c.j, c.rank, c.i)):
        outer = taken[c.i]
        if all(t is None for t in taken[c.i : c.j]):
            taken[c.i : c.j] = [c] * (c.j - c.i)
            chosen.append(c)
        elif (
            outer is not None and c.j <= outer.j and c.name != outer.name
            and outer.type in {"project", "document", "concept"}
            and (c.type == "technology" or c.rank <= _FUZZY)
            and not any(o.inner and o.i < c.j and c.i < o.j for o in chosen)
        ):  # fmt: skip
            c.inner = True
            chosen.append(c)
    return sorted(chosen, key=lambda c: (c.i, c.inner))


def _mention(c: _Cand) -> Mention:
    return Mention(c.name, c.type, c.start, c.end, c.conf, c.entity_id)
