"""How broad a note is for this question: how far its chunks' mean cosine falls under its best.

A note is ranked by its best chunk, so a broad note (a long reference page, an overview, a
changelog) whose one section reads like the question ties with the page about it, and on
real questions (bench/real_questions.py, issue 42 item 10) it often came first. The page
about the question is near it all through; the broad one only in that section. Length alone
is not the measure (a short hub page is broad too, and rules on length failed held out:
docs/search.md), nor the mean cosine by itself (it moves weight to the vector side:
SciFact's nDCG@10 fell 0.754 -> 0.750). Breadth is the gap between a note's best chunk
and the mean of all its chunks, times the log of their number (one chunk: no breadth), a
quarter of it counting at most 1; search takes NOTE_WEIGHT x it off the ranking key.
"""

from __future__ import annotations

import numpy as np

from kbtui.search.keyword_index import KeywordScores
from kbtui.search.vector_index import VectorIndex

NOTE_WEIGHT = 0.5  # train sets +1 / +3 at rank 1, SciFact 0.7537 -> 0.7540 (docs/search.md)
GAP_SCALE = 4.0
POOL = 50  # candidates (chunks) whose notes are measured


def breadth(
    found: KeywordScores,
    alive: np.ndarray,
    vectors: VectorIndex,
    query: np.ndarray,
    cids: list[int],
    key: np.ndarray,
) -> np.ndarray:
    """The breadth in 0..1 of the notes of the POOL candidates `key` ranks first (0 for the
    rest, and where the keyword index does not know the note).

    Reads the cosine of every chunk of those notes, gathered from the vector matrix: for all
    ~1,200 candidates' notes that took ~4 ms of a 100k-chunk search; with the first 50 the
    search costs ~1 ms more (docs/search.md), and 30, 50 or 100 rank the question sets
    alike: a note further down has too little to gain from the others' penalty."""
    known_cids, ordinals = found.note_of_cids, found.note_of_rows
    n = min(len(known_cids), len(ordinals), len(alive))
    out = np.zeros(len(cids))
    if not n or not cids:
        return out
    known_cids, ordinals, alive = known_cids[:n], ordinals[:n], alive[:n]
    pool = np.argsort(-key, kind="stable")[:POOL]
    wanted = np.asarray(cids, dtype=np.int64)[pool]
    pos = np.minimum(np.searchsorted(known_cids, wanted), n - 1)
    known = known_cids[pos] == wanted
    size = int(ordinals.max(initial=0)) + 1
    picked = np.zeros(size, dtype=bool)
    picked[ordinals[pos[known]]] = True
    rows = np.flatnonzero(picked[ordinals] & alive)
    sims = vectors.rescore(query, known_cids[rows]).astype(np.float64)
    has = ~np.isnan(sims)
    notes, sims = ordinals[rows][has], sims[has]
    count = np.bincount(notes, minlength=size)
    mean = np.divide(
        np.bincount(notes, weights=sims, minlength=size), count, out=np.zeros(size), where=count > 0
    )
    best = np.full(size, -1.0)
    np.maximum.at(best, notes, sims)
    gap = (best - mean) * np.log(np.maximum(count, 1)) / GAP_SCALE
    out[pool] = np.where(known, np.clip(gap[ordinals[pos]], 0.0, 1.0), 0.0)
    return out
