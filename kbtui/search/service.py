"""Hybrid search: exact vector search in RAM plus BM25 from the store, fused per chunk.

Scores are calibrated to 0..1 so they mean the same across queries:
- vector: cosine mapped linearly from [COS_FLOOR, COS_CEIL] to [0, 1] (on vault_example,
  off-topic queries peak at cosine 0.29 and on-topic ones reach 0.45-0.75);
- keyword: BM25 divided by the best score the query could reach (every query term present,
  saturated), so 1.0 means "all the query's words, prominently";
- hybrid: 1 - (1 - v)(1 - b(k)) with b(k) = w k / (1 + (w - 1) k), w = KEYWORD_WEIGHT:
  either signal alone can carry a result, both together rank higher. b lifts the low keyword
  scores long queries get (a query's best BM25 rarely nears the maximum k is divided by) yet
  reaches 1 only at k = 1, so strong matches do not tie at 1.0 as a clipped w*k made them.
  The old rule was 1 - (1 - v)(1 - 0.6 k). On SciFact's training queries (bench/retrieval.py)
  w = 2 ranked best (nDCG@10 0.828), w = 1.5 nearly as well (0.825); 1.5 keeps a query that
  shares one stray word with a note (k ~ 0.1, e.g. the spec's junk-query example) under
  MIN_SCORE, where 2 let it through. Results under MIN_SCORE are dropped, so junk queries
  return nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any, Literal

import numpy as np

from kbtui.embed import Embedder
from kbtui.models import ChunkHit, SearchFilters, SearchResult
from kbtui.search import breadth
from kbtui.search.candidates import candidates
from kbtui.search.copies import group_copies
from kbtui.search.embeds import add_embedded
from kbtui.search.evidence import bm25_leader, evident
from kbtui.search.keyword_index import KeywordIndex, KeywordScores, row_mask
from kbtui.search.listed import fold_lists
from kbtui.search.snippets import make_snippet
from kbtui.search.vector_index import AnnIndex, VectorIndex
from kbtui.store import Store
from kbtui.tokenize import bigram_terms, query_terms, readable_share
from kbtui.vault.attachments.pdf import page_place
from kbtui.vault.versions import label

Mode = Literal["hybrid", "vector", "keyword"]
QUERY_VECTORS = 64  # queries embedded ahead of their search, at most
COS_FLOOR = 0.30
COS_KNEE = 0.75  # cosine 0.75 maps to 0.90; 1.0 to 1.0 (it was clipped to 1.0 at 0.75)
KNEE_SCORE = 0.90
KEYWORD_WEIGHT = 1.5
DENSE_WEIGHT = 0.6  # the vector side's share of the per-query relative fusion
DENSE_LO = 0.0  # cosine counted as "no similarity" when cosines are scaled per query
RELATIVE_WEIGHT = 2.0  # ranking key: absolute evidence + this x the relative fusion
CHUNK_SHARE = 0.25  # the keyword side of the relative fusion: chunk BM25 vs its note's BM25
MIN_SCORE = 0.15
COPY_SLACK = 6  # notes looked at per result asked for: a page in five version trees folds


def calibrate_cosine(cos: np.ndarray) -> np.ndarray:
    """Cosine -> 0..1: 0 up to COS_FLOOR, linear to KNEE_SCORE at COS_KNEE, then on to 1.0."""
    return np.asarray(np.interp(cos, [COS_FLOOR, COS_KNEE, 1.0], [0.0, KNEE_SCORE, 1.0]))


def fuse(vector: np.ndarray, keyword: np.ndarray) -> np.ndarray:
    """Absolute evidence of a chunk, comparable across queries (see the module docstring)."""
    boosted = KEYWORD_WEIGHT * keyword / (1.0 + (KEYWORD_WEIGHT - 1.0) * keyword)
    return 1.0 - (1.0 - vector) * (1.0 - boosted)


def relative(
    cos: np.ndarray, bm25: np.ndarray, dense: float, note_bm25: np.ndarray | None = None
) -> np.ndarray:
    """Per-query fusion in 0..1: each signal divided by this query's best, then mixed.

    The keyword side is mostly the chunk's note's BM25 (its chunks' words together): on
    SciFact's training queries whole-note BM25 alone ranks 0.699 against a chunk's 0.675,
    and the mix lifts hybrid nDCG@10 0.744 -> 0.753 (bench/retrieval.py)."""
    top_cos = float(cos.max(initial=DENSE_LO))
    span = max(top_cos - DENSE_LO, 1e-9)
    v = np.clip((cos - DENSE_LO) / span, 0.0, 1.0)
    k = _by_best(bm25)
    if note_bm25 is not None:
        k = CHUNK_SHARE * k + (1.0 - CHUNK_SHARE) * _by_best(note_bm25)
    return dense * v + (1.0 - dense) * k


def _by_best(scores: np.ndarray) -> np.ndarray:
    top = float(scores.max(initial=0.0))
    return scores / top if top > 0 else scores


def hybrid_scores(
    cos: np.ndarray,
    bm25: np.ndarray,
    keyword: np.ndarray,
    share: float,
    note_bm25: np.ndarray | None = None,
    broad: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(scores, vector scores) of a query's candidate chunks, for hybrid mode.

    Ranked by absolute evidence plus RELATIVE_WEIGHT x the per-query relative fusion, and
    scaled so the first result scores the query's best absolute evidence: scores stay
    comparable across queries at the top, and a query with no real evidence keeps every
    result under MIN_SCORE. `share` is how much of the query the model can read
    (readable_share): 0 for a Chinese question to MiniLM, whose cosines are noise there, so
    keywords rank it; 1 to the multilingual model. `broad`: each candidate's note breadth
    (search/breadth.py) from the ranking key before it.
    """
    vector = calibrate_cosine(cos) * share
    evidence = fuse(vector, keyword)
    key = evidence + RELATIVE_WEIGHT * relative(cos, bm25, DENSE_WEIGHT * share, note_bm25)
    if broad is not None and share:  # a broad note's one section yields to the page about it
        key = key - breadth.NOTE_WEIGHT * share * broad(key)
    top = float(key.max(initial=0.0))
    if top <= 0:
        return np.zeros_like(key), vector
    return float(evidence.max()) * key / top, vector


class SearchService:
    """The search half of the query layer; TUI, CLI and MCP all call `search()`."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        ann: AnnIndex | None = None,
        ann_min: int = 150_000,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self._ann = ann
        self._ann_min = ann_min
        self._vectors: VectorIndex | None = None
        self._keywords: KeywordIndex | None = None
        self._filter_cache: dict[tuple[SearchFilters, int], np.ndarray] = {}
        self._beside: ThreadPoolExecutor | None = None  # BM25 while the query is embedded
        self._query_vectors: dict[str, np.ndarray] = {}  # warm_query's, taken by embed_query

    @property
    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            self._vectors = VectorIndex(self.store, self._ann, self._ann_min)
        return self._vectors

    def close(self) -> None:
        if self._beside is not None:
            self._beside.shutdown()
        if self._vectors is not None:
            self._vectors.close()
        elif self._ann is not None:
            self._ann.close()

    @property
    def keywords(self) -> KeywordIndex:
        if self._keywords is None:
            self._keywords = KeywordIndex(self.store)
        return self._keywords

    def allowed(self, filters: SearchFilters) -> np.ndarray | None:
        """Sorted cids that pass the filters (None: no filter), cached per index generation."""
        if filters == SearchFilters():
            return None
        key = (filters, self.store.generation)
        if key not in self._filter_cache:
            if len(self._filter_cache) > 32:
                self._filter_cache.clear()
            self._filter_cache[key] = self.store.filtered_cids(filters)
        return self._filter_cache[key]

    def embed_query(self, query: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        ready = self._query_vectors.get(query)  # warm_query's, embedded before the lock
        if ready is not None:
            return ready
        return np.asarray(self.embedder.embed_query([query])[0], dtype=np.float32)

    def warm_query(self, query: str) -> None:
        """Embed `query` now, for the search that follows: the runtime calls it before it takes
        the store lock, so the model (ONNX, no interpreter lock) runs beside other calls
        rather than ahead of them in the queue (issue 33). Uses no store."""
        if self.embedder is None or query in self._query_vectors:
            return
        vector = np.asarray(self.embedder.embed_query([query])[0], dtype=np.float32)
        if len(self._query_vectors) >= QUERY_VECTORS:
            self._query_vectors.clear()  # warmed queries whose search never came
        self._query_vectors[query] = vector

    def search_chunks(
        self,
        query: str,
        k: int = 10,
        filters: SearchFilters | None = None,
        mode: Mode = "hybrid",
        min_score: float = MIN_SCORE,
        notes: int | None = None,
        leader: list[str] | None = None,
    ) -> list[ChunkHit]:
        """Top-k chunks, best first; with `notes`, stop once that many notes have a chunk.

        The note whole-note BM25 ranks clearly first is always among them (evidence.py);
        its entity id is appended to `leader` when given."""
        allowed = self.allowed(filters or SearchFilters())
        if allowed is not None and not len(allowed):
            return []
        pool = max(50, k * 2)
        terms, bigrams = query_terms(query), bigram_terms(query)
        keyword_hits = None
        if mode == "hybrid" and self.embedder is not None:
            # BM25 runs on a second thread while the query is embedded and scored (both
            # release the GIL): -3 ms of ~20 at 100k chunks. Both indexes catch up with the
            # store first, here, so the other thread never touches the DuckDB connection.
            self.keywords.sync()
            self.vectors.sync()
            if self._beside is None:
                self._beside = ThreadPoolExecutor(1, thread_name_prefix="kbtui-bm25")
            keyword_hits = self._beside.submit(self.keywords.score, terms, pool, allowed, bigrams)
        qvec = self.embed_query(query) if mode != "keyword" else None
        vec_hits = self.vectors.search(qvec, pool, allowed) if qvec is not None else []
        found: KeywordScores | None = None
        if mode != "vector":
            found = (
                keyword_hits.result()
                if keyword_hits is not None
                else self.keywords.score(terms, pool, allowed, bigrams)
            )
        lead = self._leader(found, allowed) if mode != "vector" else set()
        similar = None
        if qvec is not None and mode == "hybrid":  # keyword-only candidates' cosines
            similar = partial(self.vectors.similarities, qvec)
        kw_top = found.top if found is not None else np.zeros((0, 3))
        cids, cos, raw, kw = candidates(vec_hits, kw_top, lead, similar)  # candidates.py
        comparable = getattr(self.embedder, "comparable", None)  # e5's scale -> MiniLM's
        cos = comparable(cos, query) if comparable is not None else cos
        chunk_kw, note_bm25 = kw, None
        if found is not None and found.note_best > 0:
            # the keyword evidence (shown and used): the chunk's or its note's, the larger
            note_bm25 = found.notes(cids)
            kw = np.maximum(kw, note_bm25 / found.note_best)
        if mode == "keyword":
            v, score = np.zeros(len(cids)), kw
        elif mode == "vector":
            v = calibrate_cosine(cos)
            score = v
        else:
            share = readable_share(query, str(getattr(self.embedder, "model_id", "")))
            broad = None
            if found is not None and qvec is not None and breadth.NOTE_WEIGHT:
                alive = self.keywords.alive
                broad = partial(breadth.breadth, found, alive, self.vectors, qvec, cids)
            score, v = hybrid_scores(cos, raw, kw, share, note_bm25, broad)
        shown = evident(v, kw)
        at = np.flatnonzero((score >= min_score) & shown)
        # equal scores (a note's chunks share its note-level keyword score): the chunk with
        # more of the query's words first, so the snippet shows where they are
        order = at[np.lexsort((np.asarray(cids, dtype=np.int64)[at], -chunk_kw[at], -score[at]))]
        out: list[ChunkHit] = []
        seen: set[str] = set()
        for i in order.tolist():
            hit = self._hit(cids[i], score[i], v[i], kw[i])
            if hit is None:
                continue
            seen.add(hit.entity_id)
            out.append(hit)
            if len(out) >= k or (notes is not None and len(seen) >= notes):
                break
        led = [i for i, c in enumerate(cids) if c in lead and shown[i]]
        if not led:
            return out
        best = max(led, key=lambda i: (score[i], chunk_kw[i], -cids[i]))
        hit = self._hit(cids[best], score[best], v[best], kw[best])
        if hit is not None and leader is not None:
            leader.append(hit.entity_id)
        if any(h.cid in lead for h in out):
            return out
        return _with_leader(out, hit, k, notes)

    def _hit(self, cid: int, score: float, vector: float, keyword: float) -> ChunkHit | None:
        where = self.keywords.locate(cid)
        if where is None:
            return None
        return ChunkHit(
            cid=cid,
            chunk_id=f"{where[0]}_chunk_{where[1]}",
            entity_id=where[0],
            score=round(float(score), 4),
            vector_score=round(float(vector), 4),
            keyword_score=round(float(keyword), 4),
        )

    def _leader(self, found: KeywordScores | None, allowed: np.ndarray | None) -> set[int]:
        """The chunk ids of the note whole-note BM25 ranks clearly first (evidence.py),
        added to the candidates (their note-level keyword score is filled in later)."""
        if found is None or found.note_best <= 0:
            return set()
        ordinal = bm25_leader(found.note_scores)
        if ordinal is None:
            return set()
        cids = self.keywords.note_cids(ordinal)
        if allowed is not None:
            cids = cids[row_mask(cids, allowed)]
        return set(cids.tolist())

    def snippet(self, chunk: dict[str, Any], query: str) -> str:
        """The chunk's snippet; for a chunk with no readable text (hidden whole inside a long
        `%%` comment, or only badges: found by its title), the note's first a reader sees."""
        text = make_snippet(chunk["shown"], query)
        if text:
            return text
        for other in self.store.note_chunks(chunk["entity_id"]):
            text = make_snippet(other["shown"], query)
            if text:
                return text
        return ""

    def search(
        self,
        query: str,
        top_k: int = 10,
        filters: SearchFilters | None = None,
        mode: Mode = "hybrid",
    ) -> list[SearchResult]:
        """Note-level results: the best chunk of each matching note, best first."""
        # more notes than asked for: copies of one page fold into one result (copies.py)
        wanted = min(top_k * COPY_SLACK, top_k + 50)
        leader: list[str] = []
        chunk_hits = self.search_chunks(
            query, max(wanted * 10, 50), filters, mode, notes=wanted, leader=leader
        )
        best: dict[str, ChunkHit] = {}
        for hit in chunk_hits:
            best.setdefault(hit.entity_id, hit)
        hits = list(best.values())
        details = self.store.chunk_details([h.cid for h in hits])
        hits, listed = fold_lists(self.store, hits, details, query)  # listed.py
        hits, embedded = add_embedded(self.store, hits, details, query)  # embeds.py
        rows = [
            (details[h.cid]["title"], details[h.cid]["path"], details[h.cid]["shown"]) for h in hits
        ]
        groups = group_copies(rows)
        scores = [max(hits[i].score for i in members) for members in groups]
        at = next(
            (g for g, m in enumerate(groups) if any(hits[i].entity_id in leader for i in m)), 0
        )
        if at >= top_k:  # the BM25 leader stays in, in place of the last result
            groups = [*groups[: top_k - 1], groups[at]]
            scores = [
                *scores[: top_k - 1],
                min(scores[at], scores[top_k - 2] if top_k > 1 else 1.0),
            ]
        results = []
        for members, score in zip(groups[:top_k], scores, strict=False):
            hit, d = hits[members[0]], details[hits[members[0]].cid]
            metadata = {
                "file_path": d["path"],
                "chunk_index": d["chunk_index"],
                "chunk_id": d["chunk_id"],
                "entity_id": hit.entity_id,
                "heading": d["heading"],
                "vector_score": hit.vector_score,
                "keyword_score": hit.keyword_score,
                **page_place(d["path"], d["heading"]),  # a PDF's page and link
            }
            if hit.entity_id in listed:
                metadata["listed_in"] = listed[hit.entity_id]
            if hit.entity_id in embedded:
                metadata["embedded_in"] = embedded[hit.entity_id]
            if len(members) > 1:
                others = [rows[i][1] for i in members[1:]]
                metadata["also_in"] = [label(p, d["path"]) for p in others]
                metadata["copies"] = others
            results.append(
                SearchResult(
                    id=hit.entity_id,
                    type=d["type"],
                    title=d["title"],
                    snippet=self.snippet(d, query),
                    score=score,
                    metadata=metadata,
                )
            )
        return results


def _with_leader(
    out: list[ChunkHit], leader: ChunkHit | None, k: int, notes: int | None
) -> list[ChunkHit]:
    """`out` with the BM25 leader's chunk in it: last, in place of the last note if full,
    its score no higher than the result before it (results stay in descending order)."""
    if leader is None:
        return out
    full = len(out) >= k or (notes is not None and len({h.entity_id for h in out}) >= notes)
    if full and out:
        last = out[-1].entity_id
        out = [h for h in out if h.entity_id != last] if notes is not None else out[:-1]
    floor = out[-1].score if out else leader.score
    return [*out, replace(leader, score=max(min(leader.score, floor), 0.0))]
