"""A query's candidate chunks as arrays: the vector pool, the keyword pool and the BM25 leader's
chunks merged, each with its cosine, raw BM25 and normalised BM25.

Since search looks at 60 notes to fold copies (copies.py), each pool holds 1,200 chunks, and
merging them through dicts, value by value (three lookups a candidate), cost ~1.5 ms of a
100k-chunk search (issue 42 item 11); here the merge is a few array operations. The values
are the same Python floats the pools hold; candidates come in ascending cid order (search
orders them by score with the cid as the last key, so their order here changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

Similarities = Callable[[list[int]], dict[int, float]]


def candidates(
    vectors: list[tuple[int, float]],
    keywords: np.ndarray | list[tuple[int, float, float]],
    extra: Iterable[int] = (),
    similarities: Similarities | None = None,
) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """(cids, cosine, raw BM25, normalised BM25) of the union of the vector hits (cid,
    cosine), the keyword hits (rows of cid, raw, normalised) and `extra` cids (keyword scores 0);
    `similarities(cids)` gives the cosine of keyword-only candidates (hybrid search). A
    candidate with no cosine gets -1 (as NaN would), no keyword hit 0."""
    v = np.array(vectors, dtype=np.float64).reshape(-1, 2)
    k = np.array(keywords, dtype=np.float64).reshape(-1, 3)
    v_cids, k_cids = v[:, 0].astype(np.int64), k[:, 0].astype(np.int64)
    more = np.array(sorted(set(extra)), dtype=np.int64)
    more = more[~_within(more, np.sort(k_cids))]
    k_all = np.concatenate([k_cids, more])
    cids = np.sort(np.concatenate([v_cids, k_all]))
    cids = cids[np.concatenate([[True], cids[1:] != cids[:-1]])] if len(cids) else cids
    cos = np.full(len(cids), np.nan)
    cos[np.searchsorted(cids, v_cids)] = v[:, 1]
    if similarities is not None:
        missing = k_all[~_within(k_all, np.sort(v_cids))]
        found = similarities(missing.tolist())
        if found:
            got = np.fromiter(found.keys(), np.int64, len(found))
            cos[np.searchsorted(cids, got)] = np.fromiter(found.values(), np.float64, len(found))
    raw, norm = np.zeros(len(cids)), np.zeros(len(cids))
    at = np.searchsorted(cids, k_cids)
    raw[at], norm[at] = k[:, 1], k[:, 2]
    return cids.tolist(), np.nan_to_num(cos, nan=-1.0), raw, norm


def _within(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Mask of `values` found in `sorted_set` (ascending): np.isin's answer, by bisection
    (np.isin hashes, ~5x slower on a thousand values)."""
    if not len(sorted_set):
        return np.zeros(len(values), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return np.asarray(sorted_set[pos] == values)
