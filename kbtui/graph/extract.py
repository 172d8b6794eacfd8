"""Rule-based extraction of entities and relationships from text (kg_extract_from_text).

No model, no network: a pipeline of small steps.

1. `_clean` blanks markdown syntax (front matter, link targets, tags, code) without moving any
   character, so mention offsets point into the caller's text.
2. `_tokenize` / `_sentences` split words ("Node.js", "C++", "Sam" + "'s") and sentences (not
   after "Dr." or an initial; a bullet or a blank line starts one).
3. `_candidates` proposes mentions: the vault's known entities (`Gazetteer`, exact then fuzzy),
   lexicons (technologies, organisations, places), patterns ("the X migration", "Acme Corp",
   "Dr. X", first names, "RFC 7519", CamelCase), names typed by a cue ("joined X" is an
   organisation, "X said" a person), and discussed topics ("Discussed API design") as concepts.
4. `_select` keeps the longest candidates (known entities win ties), lets a project or topic
   keep a technology named inside it ("TensorFlow migration" and "TensorFlow"), and gives
   unknown names listed with a person or technology that type ("Ken, Sara and Ivo").
5. `_relations` reads cue phrases between the mentions of one sentence ("uses", "was built
   by", "from"): the subject is the clause's first mention (or the one before "which/who"),
   the objects are the next mention and those listed with it; "he/she/it/the team" stand for
   the most recent person or project. Types are checked per relationship. Co-occurrence alone
   is never a relationship, except people joined by "and"/"with" (RELATED_TO, low confidence).

The steps live in `text` (1-2, and the phrase tables), `gazetteer`, `candidates` and
`mentions` (3-4), and `relations` (5); `model` holds the public types re-exported here.
"""

from __future__ import annotations

from kbtui.graph.candidates import _mention, _select
from kbtui.graph.gazetteer import FUZZY_MIN_CHARS, FUZZY_THRESHOLD, Gazetteer
from kbtui.graph.mentions import _candidates, _listed
from kbtui.graph.model import (
    ENTITY_TYPES,
    RELATIONSHIP_TYPES,
    ExtractedRelation,
    Extraction,
    KnownEntity,
    Mention,
)
from kbtui.graph.relations import _Arg, _arguments, _relations, _Sentence
from kbtui.graph.text import _clean, _sentences, _tokenize, fold, key_of

__all__ = [
    "ENTITY_TYPES",
    "FUZZY_MIN_CHARS",
    "FUZZY_THRESHOLD",
    "RELATIONSHIP_TYPES",
    "ExtractedRelation",
    "Extraction",
    "Gazetteer",
    "KnownEntity",
    "Mention",
    "extract",
    "fold",
    "key_of",
]


def extract(text: str, gazetteer: Gazetteer | None = None) -> Extraction:
    """Entities and relationships stated in `text` (plain text or markdown).

    Known entities (from `gazetteer`) keep their id, type and canonical name; other names are
    proposed with a confidence saying how they were found (lexicon 0.85, patterns 0.6-0.85,
    cue-typed guesses 0.45-0.5). Relationships name their ends by the mentions' names.
    """
    raw = _clean(text)
    toks = _tokenize(raw)
    mentions: dict[tuple[str, str], Mention] = {}
    relations: dict[tuple[str, str, str], ExtractedRelation] = {}
    recent: dict[str, _Arg] = {}
    for s, e in _sentences(raw, toks):
        chosen = _listed(raw, toks, s, e, _select(_candidates(raw, toks, s, e, gazetteer), e))
        for c in chosen:
            mentions.setdefault((fold(c.name), c.type), _mention(c))
        sent = _Sentence(toks, s, e, _arguments(toks, s, e, chosen, recent))
        evidence = " ".join(text[toks[s].start : toks[e - 1].end].split())[:300]
        for r in _relations(sent, evidence):
            ends = sorted((fold(r.source), fold(r.target)))
            if r.type != "RELATED_TO":
                ends = [fold(r.source), fold(r.target)]
            key = (ends[0], r.type, ends[1])
            if key not in relations or relations[key].confidence < r.confidence:
                relations[key] = r
    return Extraction(tuple(mentions.values()), tuple(relations.values()))
