"""Mention candidates proposed by lexicons, patterns and cue words (`_candidates`), and
unknown names typed by the names listed with them (`_listed`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from kbtui.graph import lexicon as lx
from kbtui.graph.candidates import (
    _CUE,
    _FUZZY,
    _LEX,
    _PATTERN,
    _PERSON,
    _SHAPE,
    _SUFFIX,
    _TOPIC,
    _Cand,
    _cand,
    _cap_runs,
    _name_word,
)
from kbtui.graph.gazetteer import Gazetteer
from kbtui.graph.text import (
    _CAMEL_RE,
    _CUE_WORDS,
    _FIRST_NAMES,
    _HEADS,
    _LEXICON,
    _NAMED_AFTER,
    _NUMBER_RE,
    _STOP,
    _SURNOT,
    _TOPICS,
    _TYPING,
    _is_lexicon_word,
    _Tok,
    fold,
)

_Gen = Callable[[str, list[_Tok], list[str], int, int], list[_Cand]]


def _lexicon_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """Well-known technologies, organisations and places; ambiguous words need a capital,
    and at a sentence's start a verb (or a version number) after them: "Go to", "Rust is"."""
    out = []
    for i in range(s, e):
        hit = _LEXICON.match(lows, i, e)
        if hit is None:
            continue
        n, (display, kind) = hit
        if n == 1 and (lows[i] in lx.AMBIGUOUS_NAMES or len(lows[i]) == 1):
            nxt = lows[i + 1] if i + 1 < e else "."
            if not toks[i].cap or nxt in {"&", "-"}:
                continue
            verbish = nxt in lx.AUXILIARIES | _CUE_WORDS | {",", "and", "or"}
            if toks[i].first and not (verbish or _NUMBER_RE.fullmatch(nxt)):
                continue
            if len(lows[i]) == 1 and lows[max(i - 1, s)] not in {"in", "and", "or", ","}:
                continue  # "C", "R": only in "written in C", "Python and R"
        out.append(_cand(raw, toks, (i, i + n), (i, i + n), display, kind, 0.85, _LEX))
    return out


def _head_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """Named work: "the TensorFlow migration project", "the Tidepool app", "Project Kite",
    "the Atlas report", "RFC 7519". Product and document names need a capital letter; work
    nouns (migration, rewrite...) also accept lower-case names after "the" ("billing rewrite")."""
    out = []
    for i in range(s, e):
        low = lows[i]
        if toks[i].text in {"Project", "Operation"} and i + 1 < e and _name_word(toks[i + 1]):
            j = i + 1
            while j < e and j - i < 4 and _name_word(toks[j]):
                j += 1
            out.append(_cand(raw, toks, (i, j), (i + 1, j), "", "project", 0.7, _PATTERN))
        if low in lx.STANDARD_PREFIXES and toks[i].text.isupper() and i + 1 < e:
            if _NUMBER_RE.fullmatch(toks[i + 1].text):
                out.append(_cand(raw, toks, (i, i + 2), (i, i + 2), "", "document", 0.8, _PATTERN))
            continue
        if low not in _HEADS or (i + 1 < e and lows[i + 1] in _HEADS - lx.DOCUMENT_HEADS):
            continue  # "migration project": the outer head decides
        j = i
        while j > s and i - j < 3 and toks[j - 1].text[0].isalnum():
            if toks[j - 1].low in _STOP or toks[j - 1].low in _CUE_WORDS:
                break
            j -= 1
        capped = [t for t in toks[j:i] if t.cap and (not t.first or _is_lexicon_word(t.low))]
        bounded = j > s and (lows[j - 1] in lx.DETERMINERS or lows[j - 1] in {"'s", "on"})
        if not capped and not (bounded and low in lx.WORK_HEADS):
            continue
        while capped and not toks[j].cap:
            j += 1  # "a small Rust service": the name starts at its first capital
        name_end = i if low in _NAMED_AFTER else i + 1
        if name_end <= j or all(w in _HEADS for w in lows[j:name_end]):
            continue
        if low not in lx.WORK_HEADS and tuple(lows[j:i]) in _LEXICON.values:
            continue  # "the Figma plugin", "the React app": a technology as a modifier
        kind = "document" if low in lx.DOCUMENT_HEADS else "project"
        kind = "technology" if low in lx.TECH_HEADS | lx.ADDON_HEADS else kind
        end = i if low in lx.ADDON_HEADS else i + 1  # "the Pelican plugin" is not Pelican
        conf = 0.75 if capped else 0.6
        out.append(_cand(raw, toks, (j, end), (j, name_end), "", kind, conf, _PATTERN))
    return out


def _org_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """Capitalised words ending in a company suffix ("Pebblefield Labs", "Acme Corp"), or
    "University of Toronto"."""
    out = []
    for i in range(s, e):
        if lows[i] not in lx.ORG_SUFFIXES or not toks[i].cap:
            continue
        j = i
        while j > s and i - j < 3 and (toks[j - 1].cap or toks[j - 1].text == "&"):
            if toks[j - 1].low in _STOP or toks[j - 1].low in _CUE_WORDS:
                break
            j -= 1
        k = i + 1
        if lows[i] in lx.ORG_OF_HEADS and k + 1 < e and lows[k] == "of" and toks[k + 1].cap:
            k += 2
            while k < e and toks[k].cap and k - i < 5:
                k += 1
        if j < i or k > i + 1:
            out.append(_cand(raw, toks, (j, k), (j, k), "", "organization", 0.75, _SUFFIX))
    return out


def _person_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """A title or a known first name and the capitalised surnames after it ("Dr. Ana Costa",
    "Guido van Rossum"); or unknown capitalised words before a verb only people do ("Helena
    Kowalski founded", "Sunita moved")."""
    out = []
    for a, b in _cap_runs(toks, s, e):
        after_preposition = a > s and lows[a - 1] in lx.PREPOSITIONS
        if b < e and lows[b] in lx.PERSON_VERBS and b - a <= 3 and not after_preposition:
            out.append(_cand(raw, toks, (a, b), (a, b), "", "person", 0.5, _SHAPE))
    for i in range(s, e):
        titled = lows[i] in lx.TITLES and toks[i].cap
        if not titled and not (toks[i].cap and lows[i] in _FIRST_NAMES):
            continue
        if toks[i].first and lows[i] in _STOP:
            continue  # "Can Lantern share ...?", "Will Atlas ...?": a verb, not Can or Will
        start = i + 1 + (titled and i + 1 < e and toks[i + 1].text == ".") if titled else i
        k = start if titled else i + 1
        while k < e and k - start < 4:
            if _name_word(toks[k]) and not _is_lexicon_word(lows[k]) and lows[k] not in _SURNOT:
                k += 1
            elif lows[k] in lx.NAME_PARTICLES and k + 1 < e and _name_word(toks[k + 1]):
                k += 2
            else:
                break
        if k == start:
            continue
        if k == start + 1 and not titled:
            nxt = lows[k] if k < e else "."
            if lows[i] in lx.MONTHS_DAYS or (toks[i].first and nxt in lx.DETERMINERS | lx.PRONOUNS):
                continue  # "May", "Will the migration finish?", "Mark the ticket as done"
        conf = 0.85 if titled or k - start > 1 else 0.7
        out.append(_cand(raw, toks, (i, k), (start, k), "", "person", conf, _PERSON))
    return out


def _cue_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """Unknown capitalised names typed by the words before them: "joined X", "uses X", "met
    X", "CTO of X". An acronym is an organisation, not a person ("maintained by the CNCF");
    a technology after "joined" is the company ("joined Figma")."""
    out = []
    for i in range(s, e):
        hit = _TYPING.match(lows, i, e)
        if hit is None and lows[i] == "of" and i > s and lows[i - 1] in lx.ROLE_NOUNS:
            hit = (1, ("organization", "of"))
        if hit is None:
            continue
        n, (kind, cue) = hit
        k = i + n + (i + n < e and lows[i + n] in {"the", "a", "an"})
        known = _LEXICON.match(lows, k, e) if k < e else None
        if known is not None:  # "joined Figma" is the company, "uses SAP" the product
            m, (_, known_kind) = known
            strong = cue in lx.STRONG_ORG_CUES | lx.STRONG_TECH_CUES
            if strong and {kind, known_kind} == {"organization", "technology"}:
                out.append(_cand(raw, toks, (k, k + m), (k, k + m), "", kind, 0.6, _PATTERN))
            continue
        j = k
        while (
            j < e and j - k < 3 and (_name_word(toks[j]) or (kind == "technology" and toks[j].cap))
        ):
            j += 1
        nxt = lows[j] if j < e else "."
        noun = nxt.isalpha() and nxt not in _STOP | _CUE_WORDS | lx.PERSON_VERBS
        if j == k or len(toks[k].text) < 2 or (noun and not nxt.endswith("ed")):
            continue  # "at the Lagos AI summit": the names qualify a noun
        if kind == "person" and (
            toks[k].text.isupper() or any(w in lx.ORG_SUFFIXES for w in lows[k:j])
        ):
            kind = "organization"  # "by the CNCF", "by Studio Mono"
        out.append(_cand(raw, toks, (k, j), (k, j), "", kind, 0.5, _CUE))
    return out


def _shape_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """CamelCase or .js/.py/.rs words are software: "OLMo", "PyTorch", "three.js"."""
    return [
        _cand(raw, toks, (i, i + 1), (i, i + 1), "", "technology", 0.55, _SHAPE)
        for i in range(s, e)
        if len(toks[i].text) > 2 and _CAMEL_RE.match(toks[i].text)
    ]


def _topic_cands(raw: str, toks: list[_Tok], lows: list[str], s: int, e: int) -> list[_Cand]:
    """The noun phrase a note is about: "Discussed API design with Bob" -> API design. After a
    weak cue ("about") it needs two words: "about an hour" is no topic."""
    out = []
    for i in range(s, e):
        hit = _TOPICS.match(lows, i, e)
        if hit is None:
            continue
        k = i + hit[0]
        while k < e and lows[k] in lx.DETERMINERS:
            k += 1
        j = k
        while j < e and j - k < 4 and toks[j].text[0].isalnum() and lows[j] not in _STOP:
            if lows[j] in _CUE_WORDS or (toks[j].cap and lows[j] in _FIRST_NAMES):
                break
            j += 1
        weak = hit[1] in lx.WEAK_CONCEPT_CUES
        if j > k and not toks[k].text[0].isdigit() and (j - k > 1 or not weak):
            out.append(_cand(raw, toks, (k, j), (k, j), "", "concept", 0.5, _TOPIC))
    return out


_GENERATORS: tuple[_Gen, ...] = (
    _lexicon_cands, _head_cands, _org_cands, _person_cands, _cue_cands, _shape_cands, _topic_cands,
)  # fmt: skip


def _candidates(raw: str, toks: list[_Tok], s: int, e: int, gaz: Gazetteer | None) -> list[_Cand]:
    lows = [t.low for t in toks]
    cands = gaz._candidates(toks, s, e) if gaz is not None else []
    for generate in _GENERATORS:
        cands.extend(generate(raw, toks, lows, s, e))
    if gaz is not None:  # a guessed name that is a known entity takes its identity
        for c in cands:
            if c.rank > _FUZZY and (known := gaz.lookup(c.name)) is not None:
                c.name, c.type, c.entity_id, c.conf = known.name, known.type, known.entity_id, 0.9
    return cands


def _listed(raw: str, toks: list[_Tok], s: int, e: int, chosen: list[_Cand]) -> list[_Cand]:
    """Names listed with a person or technology share its type: "Ken, Sara and Ivo" (Ivo is no
    known first name), "Hassan and Julia" (a person, not the language)."""
    taken = {k for c in chosen for k in range(c.i, c.j)}
    outer = [c for c in chosen if not c.inner]
    for a, b in pairwise(outer):
        if all(t.low in {",", "and", "or", "&"} for t in toks[a.j : b.i]) and a.j < b.i:
            for x, y in ((a, b), (b, a)):
                if x.type == "person" and y.type == "technology" and fold(y.name) in _FIRST_NAMES:
                    y.type = "person"
    queue, added = list(outer), []
    for c in queue:
        if c.type not in {"person", "technology"}:
            continue
        k = c.j
        while k < e and toks[k].low in {",", "and", "or", "&"}:
            k += 1
        j = k
        while j < e and j - k < 3 and j not in taken and _name_word(toks[j]):
            if c.type == "person" and (toks[j].text.isupper() or toks[j].low in lx.ROLE_NOUNS):
                break  # "Emma Schultz, CTO of Lumio"
            j += 1
        if k > c.j and j > k and not _is_lexicon_word(toks[k].low):
            added.append(_cand(raw, toks, (k, j), (k, j), "", c.type, 0.45, _CUE))
            queue.append(added[-1])
            taken.update(range(k, j))
    return sorted(chosen + added, key=lambda c: (c.i, c.inner))
