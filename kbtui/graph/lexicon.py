"""The word lists extraction reads (kbtui/graph/lexicon.json), loaded once at import.

They are data, not code: edit the JSON (each entry's `note` says what it is for). A `set` is
for membership tests, a `list` keeps its order (earlier entries win), `map` gives the cue words
that type a name, `cues` the (phrase, relationship type, inverted) triples.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

_DATA: dict[str, Any] = json.loads(
    files("kbtui.graph").joinpath("lexicon.json").read_text(encoding="utf-8")
)


def _set(name: str) -> frozenset[str]:
    return frozenset(_DATA[name]["words"])


def _list(name: str) -> tuple[str, ...]:
    return tuple(_DATA[name]["words"])


TECHNOLOGIES = _list("TECHNOLOGIES")
AMBIGUOUS_NAMES = _set("AMBIGUOUS_NAMES")
ORGANIZATIONS = _list("ORGANIZATIONS")
ORG_SUFFIXES = _set("ORG_SUFFIXES")
ORG_OF_HEADS = _set("ORG_OF_HEADS")
LOCATIONS = _list("LOCATIONS")
FIRST_NAMES = _set("FIRST_NAMES")
GENERIC_CAPS = _set("GENERIC_CAPS")
TITLES = _set("TITLES")
NAME_PARTICLES = _set("NAME_PARTICLES")
MONTHS_DAYS = _set("MONTHS_DAYS")
ABBREVIATIONS = _set("ABBREVIATIONS")
DETERMINERS = _set("DETERMINERS")
PRONOUNS = _set("PRONOUNS")
PREPOSITIONS = _set("PREPOSITIONS")
CONJUNCTIONS = _set("CONJUNCTIONS")
AUXILIARIES = _set("AUXILIARIES")
ADVERBS = _set("ADVERBS")
CLAUSE_OPENERS = _set("CLAUSE_OPENERS")
RELATIVE_PRONOUNS = _set("RELATIVE_PRONOUNS")
ROLE_NOUNS = _set("ROLE_NOUNS")
PART_NOUNS = _set("PART_NOUNS")
WORK_HEADS = _set("WORK_HEADS")
PRODUCT_HEADS = _set("PRODUCT_HEADS")
TECH_HEADS = _set("TECH_HEADS")
ADDON_HEADS = _set("ADDON_HEADS")
DROPPED_HEADS = _set("DROPPED_HEADS")
DOCUMENT_HEADS = _set("DOCUMENT_HEADS")
STANDARD_PREFIXES = _set("STANDARD_PREFIXES")
CONCEPT_CUES = _list("CONCEPT_CUES")
WEAK_CONCEPT_CUES = _set("WEAK_CONCEPT_CUES")
TYPING_CUES: dict[str, tuple[str, ...]] = {
    kind: tuple(words) for kind, words in _DATA["TYPING_CUES"]["words"].items()
}
RELATION_CUES: list[tuple[str, str, bool]] = [
    (phrase, rel, bool(inverted)) for phrase, rel, inverted in _DATA["RELATION_CUES"]["words"]
]
PERSON_VERBS = _set("PERSON_VERBS")
STRONG_TECH_CUES = _set("STRONG_TECH_CUES")
STRONG_ORG_CUES = _set("STRONG_ORG_CUES")
MEMBERSHIP_PREPOSITIONS = _set("MEMBERSHIP_PREPOSITIONS")
