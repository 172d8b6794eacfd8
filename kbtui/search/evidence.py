"""What counts as evidence for a result, and the note plain BM25 singles out.

A result needs evidence of its own: a keyword hit (the chunk or its note holds one of the
query's terms) or a vector similarity above COS_FLOOR (search.service). The per-query
relative fusion ranks candidates against each other, so without this rule an off-topic
question returned notes whose scores were both 0, scaled up by the query's one stray hit
(kepano: "how do I file my taxes in Germany" gave Journal, Recipe Template, Places).
On the 66 questions of bench/real_questions.jsonl the answering note's best cosine was
0.301 at the lowest; 24 off-topic questions (bench/real_offtopic.jsonl) peaked at 0.264
over kepano and the redis subset: the floor 0.30 keeps every answer and drops every
off-topic vector match.

The BM25 leader: a long question with one rare word of a note ("old story that predicted
notifications overload") gives that note little evidence either way (one word of five, a
cosine near the floor) and it fell under MIN_SCORE, while plain BM25 over whole notes ranks
it first. When one note leads the note-level BM25 clearly (LEAD times the next note's, or
the only note with a hit), it is kept in the results whatever its score. A near tie is no
lead: "quantum computing blockchain NFTs" shares "computing" with three notes of
vault_example at 3.1 / 2.9 / 2.8, and the spec wants no results for it.
"""

from __future__ import annotations

import numpy as np

LEAD = 1.5


def evident(vector: np.ndarray, keyword: np.ndarray) -> np.ndarray:
    """Mask of candidates with evidence of their own (calibrated vector or keyword > 0)."""
    return (vector > 0) | (keyword > 0)


def bm25_leader(note_scores: np.ndarray) -> int | None:
    """The note ordinal whose whole-note BM25 leads clearly, else None."""
    if not len(note_scores):
        return None
    if len(note_scores) == 1:
        return 0 if note_scores[0] > 0 else None
    first, second = np.argpartition(-note_scores, 1)[:2]
    top, runner = float(note_scores[first]), float(note_scores[second])
    if top <= 0 or top < LEAD * runner:
        return None
    return int(first)
