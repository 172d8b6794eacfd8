"""Vectors shaped like a real vault's, for benches at sizes the real model cannot embed in time.

SciFact's 5,183 abstracts are embedded once by the real model (cached under the bench's work
folder, ~3 min). Each synthetic vector mixes one abstract's vector with one of its 20 nearest
neighbours and adds noise inside the abstracts' 64 principal directions, then is normalised:
chunks of one topic crowd together as they do in a real vault, and real queries (SciFact's,
embedded by the real model) land among them. The hash embedder's vectors, by contrast, are
spread evenly over the sphere: the worst case for an HNSW graph and nothing like real text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from bench_common import SCIFACT

from kbtui.embed import FastEmbedder
from kbtui.models import EMBED_DIM
from kbtui.store import Store

BATCH = 20_000


def scifact_queries(limit: int = 400) -> list[str]:
    with (SCIFACT / "queries_train.jsonl").open() as f:
        return [json.loads(line)["text"] for line, _ in zip(f, range(limit), strict=False)]


def abstract_vectors(work: Path, embedder: FastEmbedder) -> np.ndarray:
    cached = work / "scifact_abstracts.npy"
    if cached.exists():
        return np.asarray(np.load(cached), dtype=np.float32)
    with (SCIFACT / "corpus.jsonl").open() as f:
        docs = [json.loads(line) for line in f]
    texts = [f"{d['title']}. {d['text']}"[:1000] for d in docs]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    np.save(cached, vectors)
    return vectors


def mixes(base: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """n unit vectors around the base vectors (see the module docstring)."""
    return np.concatenate([np.zeros((0, EMBED_DIM), np.float32), *mix_batches(base, n, seed=seed)])


def mix_batches(
    base: np.ndarray, n: int, batch: int = BATCH, seed: int = 0
) -> Iterator[np.ndarray]:
    """`mixes` a batch at a time (the same vectors for the same `batch`): at a million chunks,
    no 1.5 GB matrix of them all."""
    rng = np.random.default_rng(seed)
    sims = base @ base.T
    near = np.argsort(-sims, axis=1)[:, 1:21]
    centred = base - base.mean(axis=0)
    _, sing, comps = np.linalg.svd(centred, full_matrices=False)
    scale = sing[:64] / np.sqrt(len(base))
    for start in range(0, n, batch):
        m = min(batch, n - start)
        i = rng.integers(0, len(base), m)
        j = near[i, rng.integers(0, near.shape[1], m)]
        alpha = rng.uniform(0.5, 1.0, (m, 1))
        noise = (rng.standard_normal((m, 64)) * scale * 0.6) @ comps[:64]
        v = alpha * base[i] + (1 - alpha) * base[j] + noise
        yield np.asarray(v / np.linalg.norm(v, axis=1, keepdims=True), dtype=np.float32)


def replace_vectors(store: Store, base: np.ndarray) -> int:
    """Overwrite every stored vector with a mix; returns how many."""
    cids = store.embedded_cids().tolist()
    vectors = mixes(base, len(cids))
    for start in range(0, len(cids), BATCH):
        store.set_embeddings(cids[start : start + BATCH], vectors[start : start + BATCH])
    store.con.execute("CHECKPOINT")
    return len(cids)
