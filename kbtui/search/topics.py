"""Topic clusters of the vault, kept in step with it (get_chunk's `cluster`).

A note's vector is the mean of its chunk vectors. The clustering (kbtui.search.clusters)
is computed on first use; after writes, the notes whose vectors were written are assigned to
their nearest centroid (found from the store's log of written vectors: a save costs its own
note, where re-assigning every note took 1-3 s per save at 43k chunks), and the clustering
is recomputed once enough of the vault changed (`needs_rebuild`), so names and groups follow
the vault without a rebuild per keystroke. A deleted note keeps its label until then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from kbtui.search.clusters import ClusterModel, assign, build_clusters, needs_rebuild
from kbtui.search.keyword_index import row_mask
from kbtui.search.service import SearchService


class TopicService:
    def __init__(
        self,
        search: SearchService,
        released: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        """`released` lets the store lock go while a clustering is computed (VaultParts):
        2 s on 1.5k notes under load, which every search waited for."""
        self.search = search
        self._released = released
        self.model: ClusterModel | None = None
        self._current: dict[str, int] = {}
        self._built_n = 0
        self._generation = -1
        self._lock = threading.Lock()
        self._log_at: tuple[int, int] | None = None  # (epoch, length) of the store's vector log
        self._changed: set[str] = set()  # notes assigned one by one since the clustering

    def cluster_of(self, entity_id: str) -> dict[str, Any] | None:
        """{"cluster_id": [...], "cluster_name", "description", "size"}, or None if the
        note has no vector yet."""
        self.sync()
        if self.model is None or entity_id not in self._current:
            return None
        index = self._current[entity_id]
        size = sum(1 for v in self._current.values() if v == index)
        return {**self.model.info(index), "size": size, "terms": list(self.model.terms[index])}

    def sync(self) -> None:
        store = self.search.store
        if self._generation == store.generation:
            return
        with self._released():  # never wait for _lock holding the store: its holder may
            self._lock.acquire()  # be waiting for the store (order: _lock, then the store)
        try:
            if self._generation == store.generation:
                return  # brought up to date while this thread waited
            generation = store.generation
            if not self._follow_log():
                self._sync_all()
            self._generation = generation
        finally:
            self._lock.release()

    def _follow_log(self) -> bool:
        """Assign the notes given vectors since the last sync; False when every note must be
        looked at (no clustering yet, vectors dropped, or enough changed to rebuild)."""
        store = self.search.store
        at, self._log_at = self._log_at, (store.vector_epoch, len(store.vector_log))
        if self.model is None or at is None or at[0] != store.vector_epoch:
            return False
        logged = set(store.vector_log[at[1] :])
        if not logged:
            return True
        vi, kw = self.search.vectors, self.search.keywords
        vi.sync()
        kw.sync()
        notes = sorted({where[0] for c in logged if (where := kw.locate(c)) is not None})
        changed = self._changed | set(notes)
        if needs_rebuild(self._built_n, len(changed), len(self._current | dict.fromkeys(notes))):
            return False
        placed, sums = [], []
        for entity_id in notes:
            cids = np.unique([c["cid"] for c in store.note_chunks(entity_id)]).astype(np.int64)
            rows = np.flatnonzero(row_mask(vi.cids, cids) & vi.alive)
            if len(rows):
                placed.append(entity_id)
                sums.append(vi.take(rows).sum(axis=0, dtype=np.float32))
        if placed:
            labels, _ = assign(np.asarray(sums, dtype=np.float32), self.model.centroids)
            self._current.update(zip(placed, labels.tolist(), strict=True))
        self._changed = changed
        return True

    def _sync_all(self) -> None:
        entity_ids, vectors = self.note_vectors()
        if not entity_ids:
            self.model, self._current = None, {}
        elif self.model is None:
            self._build(entity_ids, vectors)
        else:
            labels, _ = assign(vectors, self.model.centroids)
            current = dict(zip(entity_ids, labels.tolist(), strict=True))
            old = self.model.labels
            moved = {e for e, c in current.items() if old.get(e) != c} | (old.keys() - current)
            if needs_rebuild(self._built_n, len(moved), len(entity_ids)):
                self._build(entity_ids, vectors)
            else:
                self._current, self._changed = current, moved

    def _build(self, entity_ids: list[str], vectors: np.ndarray) -> None:
        docs = self.search.store.note_docs()
        texts = []
        for eid in entity_ids:
            title, tags, headings, opening = docs.get(eid, ("", "", "", ""))
            # Titles and tags say what a note is about; repeat them so they outweigh prose.
            texts.append(f"{title}. {title}. {title}. {tags} {tags} {headings} {opening}")
        with self._released():  # values read above only: searches and saves go on
            self.model = build_clusters(entity_ids, vectors, texts)
        self._current = dict(self.model.labels)
        self._built_n = len(entity_ids)
        self._changed = set()

    def note_vectors(self) -> tuple[list[str], np.ndarray]:
        """(entity ids, unit mean vector of each note's embedded chunks)."""
        vi, kw = self.search.vectors, self.search.keywords
        vi.sync()
        kw.sync()
        all_alive = vi.size == len(vi.alive)
        rows = np.flatnonzero(vi.alive)
        if not len(rows):
            return [], np.zeros((0, vi.base.shape[1]), dtype=np.float32)
        matrix = vi.matrix if all_alive else vi.take(rows)
        pos = np.searchsorted(kw.cids, vi.cids[rows])
        pos = np.minimum(pos, len(kw.cids) - 1)
        owners = [kw.entity(p) for p in pos.tolist()]
        # Chunks of one note have consecutive cids, so their rows form runs: sum each run.
        starts = [0] + [i for i in range(1, len(owners)) if owners[i] != owners[i - 1]]
        sums = np.add.reduceat(matrix, starts, axis=0, dtype=np.float32)  # float16 rows
        index: dict[str, int] = {}
        merged: list[np.ndarray] = []
        for start, total in zip(starts, sums, strict=True):
            eid = owners[start]
            if eid in index:
                merged[index[eid]] = merged[index[eid]] + total
            else:
                index[eid] = len(merged)
                merged.append(total)
        vectors = np.asarray(merged, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return list(index), vectors / np.maximum(norms, 1e-12)
