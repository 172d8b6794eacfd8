"""The same vault gives the same clusters whatever order its notes were indexed in.

The index reads notes newest first, so a fresh clone (file times in checkout order) or a note
edited and put back changes the order of the note vectors; the Cluster panel of one note said
43, 44 or 48 notes across test runs of one vault while k-means took that order as given.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import Embedder, FastEmbedder, HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.clusters import build_clusters
from kbtui.store import Store
from tests.conftest import VAULT_EXAMPLE, copy_indexed, copy_vault
from tests.test_clusters import _docs, _groups

Clusters = dict[str, tuple[str, str]]


def _stamp(vault: Path, seed: int) -> None:
    """File times as a checkout might leave them: every file written in a shuffled order."""
    files = sorted(p for p in vault.rglob("*") if p.is_file())
    random.Random(seed).shuffle(files)
    for n, path in enumerate(files):
        at = 1_700_000_000_000_000_000 + n * 1_000_000
        os.utime(path, ns=(at, at))


def _index(vault: Path, embedder: Embedder) -> None:
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, embedder).run()
    finally:
        store.close()


def _clusters(vault: Path, embedder: Embedder) -> tuple[list[str], Clusters]:
    """(the index's order of notes, each note's cluster name and description) of a fresh open."""
    kb = KnowledgeBase.open(Settings.for_vault(vault), embedder, approximate=False)
    try:
        ids, _ = kb.topics.note_vectors()
        found = {eid: kb.topics.cluster_of(eid) for eid in ids}
    finally:
        kb.close()
    return ids, {e: (c["cluster_name"], c["description"]) for e, c in found.items() if c}


def test_build_clusters_ignores_the_order_notes_come_in() -> None:
    x, truth, _ = _groups((14, 11, 9), noise=6.0)  # groups that overlap: order-sensitive
    ids, docs = [f"note:{i:02d}" for i in range(len(truth))], _docs(truth)
    first = build_clusters(ids, x, docs)
    for seed in range(4):
        perm = np.random.default_rng(seed).permutation(len(ids))
        again = build_clusters([ids[i] for i in perm], x[perm], [docs[i] for i in perm])
        assert dict(again.labels) == dict(first.labels)
        assert (again.names, again.descriptions, again.sizes) == (
            first.names,
            first.descriptions,
            first.sizes,
        )
        assert np.array_equal(again.centroids, first.centroids)


@pytest.mark.parametrize("change", ["file_times", "edit_and_revert"])
def test_same_vault_same_clusters_in_any_index_order(tmp_path: Path, change: str) -> None:
    embedder = HashEmbedder()
    plain = copy_vault(tmp_path / "plain")
    _index(plain, embedder)
    other = copy_vault(tmp_path / "other")
    if change == "file_times":
        _stamp(other, seed=1)
        _index(other, embedder)
    else:  # a note edited and saved back as it was: its chunks are written again, last
        _index(other, embedder)
        note = other / "projects" / "atlas_sync.md"
        text = note.read_text(encoding="utf-8")
        for body in (text + "\nA line for a moment.\n", text):
            note.write_text(body, encoding="utf-8")
            _index(other, embedder)
    order_a, clusters_a = _clusters(plain, embedder)
    order_b, clusters_b = _clusters(other, embedder)
    assert sorted(order_a) == sorted(order_b) and order_a != order_b  # same notes, other order
    assert len(clusters_a) == len(order_a) >= 60
    assert clusters_b == clusters_a


def test_real_model_same_clusters_in_another_index_order(
    tmp_path: Path, indexed_example: Settings, real_embedder: FastEmbedder
) -> None:
    """With the real model too: the vectors of a note may come in other batches."""
    other = copy_vault(tmp_path / "other", VAULT_EXAMPLE)
    _stamp(other, seed=2)
    _index(other, real_embedder)
    order_a, clusters_a = _clusters(
        copy_indexed(indexed_example.vault, tmp_path / "plain"), real_embedder
    )
    order_b, clusters_b = _clusters(other, real_embedder)
    assert sorted(order_a) == sorted(order_b) and order_a != order_b
    assert len(clusters_a) == len(order_a) >= 60
    assert clusters_b == clusters_a
