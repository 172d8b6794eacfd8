"""Topic clusters of notes: spherical k-means over embeddings, named by class-based TF-IDF.

No LLM: a cluster's name is its most distinctive readable words (c-TF-IDF as in BERTopic), so
"Watch · Firmware · Battery" rather than a generated title. Everything is numpy and
deterministic for a seed, and notes are taken in id order, so the same vault gives the same
cluster ids whatever order it was indexed in. Between full rebuilds
new notes join their nearest centroid (`assign`); `needs_rebuild` says when that has drifted.

Naming input (`docs`, one text per note): title, tags, headings and a sample of body text.
Titles matter most; the caller weights them by repeating them (kbtui repeats the title 3x).
Counts are sublinear per note, so one long note cannot name its cluster alone.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kbtui.tokenize import STOP_WORDS

MAX_K = 60
NAME_TERMS = 3
DESCRIPTION_TERMS = 5
TOP_TERMS = 10
REBUILD_SHARE = 0.2
SHARE_POWER = 0.5
INIT_SAMPLE = 4096
TOLERANCE = 0.001

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD_RE = re.compile(
    rf"(?P<kanji>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
    rf"|(?P<kana>[\u30a0-\u30ff]+)|(?P<hira>[\u3040-\u309f]+)"
    rf"|(?P<word>[^\W\d_{_CJK}]+(?:-[^\W\d_{_CJK}]+)*)"
)
# Words too common in notes to say what a group of notes is about, plus the commonest French,
# German and Spanish function words (vaults are multilingual; accented words stay readable).
_NOTE_STOP_WORDS = frozenset(
    (  # noqa: SIM905 (as a list literal: 120 lines)
        "also like one two three get got use used using new see via per yes let may might must "
        "much many well still yet even every another around without within upon onto etc make "
        "made need needs want wants back way thing things something lot lots really don doesn "
        "didn isn won can cannot http https www com org html png jpg pdf note notes todo done "
        "first last next day days week time today tomorrow yesterday "
        "les des une est pour dans avec que qui sur pas par aux ces son ses sans "
        "der die das und mit den von für ist nicht ein eine dem auf sich auch "
        "los las del por con para una que como más"
    ).split()
)


def choose_k(n_notes: int) -> int:
    """round(sqrt(n/2)), clamped to [2, MAX_K] for n >= 4; 1 below that (0 for no notes).

    sqrt(n/2) is the classic rule of thumb: 10 notes -> 2, 64 -> 6, 1000 -> 22, 20000 -> 60
    (capped: more than ~60 topics is a list nobody reads).
    """
    if n_notes < 4:
        return min(max(n_notes, 0), 1)
    return max(2, min(MAX_K, round(math.sqrt(n_notes / 2))))


def kmeans(
    vectors: np.ndarray, k: int, seed: int = 0, iters: int = 25
) -> tuple[np.ndarray, np.ndarray]:
    """Spherical k-means (cosine), k-means++ init: (unit centroids k×d, labels n).

    Stops after `iters` rounds or once < 0.1% of notes change cluster (so a label may rarely
    differ from its nearest returned centroid). Deterministic for a seed. Empty clusters are
    re-seeded with the worst-fitting note, so every returned cluster has members; clusters come
    ordered by size (largest first, ties by first member) so labels are stable for one input.
    """
    x = _unit(np.asarray(vectors, dtype=np.float32))
    n = x.shape[0]
    if n == 0:
        return np.zeros((0, x.shape[1]), np.float32), np.zeros(0, np.int64)
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    # k-means++ on a sample: seeding needs the spread of the data, not every point (0.4 s -> 30 ms
    # for 20k notes).
    sample = x if n <= INIT_SAMPLE else x[np.sort(rng.choice(n, INIT_SAMPLE, replace=False))]
    centroids = _plus_plus(sample, k, rng)
    labels = np.full(n, -1, dtype=np.int64)
    for _ in range(max(1, iters)):
        sims = x @ centroids.T
        new = sims.argmax(axis=1)
        _fill_empty(new, sims[np.arange(n), new], k)
        centroids = _centroids(x, new, k)
        moved = int(np.count_nonzero(new != labels))
        labels = new
        if moved <= TOLERANCE * n:  # converged (or as good as: < 0.1% of notes still move)
            break
    return _by_size(centroids, labels)


def assign(vectors: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest centroid and its cosine for each vector: cheap placement of new notes."""
    x = _unit(np.asarray(vectors, dtype=np.float32))
    if x.shape[0] == 0 or centroids.shape[0] == 0:
        return np.zeros(x.shape[0], np.int64), np.zeros(x.shape[0], np.float32)
    sims = x @ np.asarray(centroids, dtype=np.float32).T
    labels = sims.argmax(axis=1).astype(np.int64)
    return labels, sims[np.arange(x.shape[0]), labels].astype(np.float32)


def name_clusters(
    labels: Sequence[int] | np.ndarray, docs: Sequence[str], k: int
) -> list[tuple[str, str, list[str]]]:
    """(name, description, top terms) per cluster, from c-TF-IDF over readable words.

    c-TF-IDF: a cluster's notes form one class document; a word scores tf(word, class) *
    log(1 + A / f(word)), A the mean word count per class and f the word's count over all
    classes, so words every cluster uses ("project", "team") sink and words one cluster owns rise.
    The score is further multiplied by sqrt(tf / f), the share of the word's use that falls in
    this cluster: plain c-TF-IDF still lets a shared word used in every note beat a cluster's own
    words when these vary from note to note.
    """
    per_class: list[defaultdict[str, float]] = [defaultdict(float) for _ in range(k)]
    sizes = [0] * k
    for label, doc in zip(labels, docs, strict=True):
        sizes[int(label)] += 1
        for word, count in Counter(surface_words(doc)).items():
            per_class[int(label)][word] += 1.0 + math.log(count)  # sublinear per note
    merged = _merge_plurals(per_class)
    totals: defaultdict[str, float] = defaultdict(float)
    for counts in merged:
        for word, weight in counts.items():
            totals[word] += weight
    mean_words = sum(totals.values()) / max(1, k)
    out: list[tuple[str, str, list[str]]] = []
    for c, counts in enumerate(merged):
        ranked = sorted(counts, key=lambda w: (-_score(counts[w], totals[w], mean_words), w))
        terms = ranked[:TOP_TERMS]
        name = _unique_name(terms, {name for name, _, _ in out}) or f"Cluster {c}"
        about = f" about {_and_list(terms[:DESCRIPTION_TERMS])}" if terms else ""
        out.append((name, f"{sizes[c]} note{'' if sizes[c] == 1 else 's'}{about}", terms))
    return out


def _score(tf: float, total: float, mean_words: float) -> float:
    """c-TF-IDF times sqrt(the cluster's share of the word's use)."""
    return tf * math.log(1 + mean_words / total) * math.pow(tf / total, SHARE_POWER)


def surface_words(text: str) -> list[str]:
    """Readable words for naming: lower-case, ≥ 3 letters (hyphenated compounds kept whole),
    accents kept, stop words dropped. Not stems: these are shown to people.

    Japanese/Chinese have no spaces: kanji runs of 2-4 and katakana runs of 2+ count as words
    (hiragana is mostly grammar); longer kanji runs give their bigrams.
    """
    words: list[str] = []
    for m in _WORD_RE.finditer(unicodedata.normalize("NFKC", text).lower()):
        run = m.group(0)
        if m.lastgroup == "word":
            short = len(run) < (2 if "\uac00" <= run[0] <= "\ud7af" else 3)  # Hangul: 2 is a word
            if not short and run not in STOP_WORDS and run not in _NOTE_STOP_WORDS:
                words.append(run)
        elif m.lastgroup == "kana" and len(run) >= 2:
            words.append(run)
        elif m.lastgroup == "kanji" and len(run) >= 2:
            words.extend([run] if len(run) <= 4 else [run[i : i + 2] for i in range(len(run) - 1)])
    return words


@dataclass(frozen=True, eq=False)
class ClusterModel:
    """A clustering of the vault: centroids, each note's cluster and each cluster's label."""

    centroids: np.ndarray  # k×d, unit rows; row i is "cluster-<i>", largest first
    labels: Mapping[str, int]  # entity id -> cluster index
    names: tuple[str, ...]
    descriptions: tuple[str, ...]
    terms: tuple[tuple[str, ...], ...]
    sizes: tuple[int, ...]  # notes per cluster at build time

    @property
    def k(self) -> int:
        return len(self.names)

    @staticmethod
    def cluster_id(index: int) -> str:
        return f"cluster-{index}"

    def info(self, index: int) -> dict[str, Any]:
        """get_chunk's `cluster` object: {"cluster_id": [id], "cluster_name", "description"}."""
        return {
            "cluster_id": [self.cluster_id(index)],
            "cluster_name": self.names[index],
            "description": self.descriptions[index],
        }

    def lookup(self, entity_id: str, vector: np.ndarray | None = None) -> dict[str, Any] | None:
        """Cluster info of a note: its own cluster, else (a newer note) the nearest centroid."""
        if entity_id in self.labels:
            return self.info(self.labels[entity_id])
        if vector is None or self.k == 0:
            return None
        labels, _ = assign(np.asarray(vector, dtype=np.float32).reshape(1, -1), self.centroids)
        return self.info(int(labels[0]))


def build_clusters(
    entity_ids: list[str], vectors: np.ndarray, docs: list[str], seed: int = 0
) -> ClusterModel:
    """Cluster the vault: k from choose_k, kmeans, c-TF-IDF names; ids "cluster-<n>" by size.

    Notes are clustered in entity id order, whatever order they come in: k-means++ draws
    seeds by row, so the callers' order (the index's, which follows file times: a fresh clone
    of the same vault gave 9 to 48 notes in one cluster) would otherwise pick the clusters.
    """
    if not len(entity_ids) == len(docs) == len(vectors):
        raise ValueError("entity_ids, vectors and docs must have the same length")
    order = sorted(range(len(entity_ids)), key=entity_ids.__getitem__)
    ids = [entity_ids[i] for i in order]
    rows = np.asarray(vectors)[np.asarray(order, dtype=np.int64)]
    centroids, labels = kmeans(rows, choose_k(len(ids)), seed=seed)
    named = name_clusters(labels, [docs[i] for i in order], centroids.shape[0])
    return ClusterModel(
        centroids=centroids,
        labels={eid: int(label) for eid, label in zip(ids, labels, strict=True)},
        names=tuple(name for name, _, _ in named),
        descriptions=tuple(desc for _, desc, _ in named),
        terms=tuple(tuple(terms) for _, _, terms in named),
        sizes=tuple(int(s) for s in np.bincount(labels, minlength=centroids.shape[0])),
    )


def needs_rebuild(n_at_build: int, changed_since: int, n_now: int) -> bool:
    """Rebuild when > 20% of the notes at build time changed, were added or removed since, or
    when the vault's size now calls for another k. Otherwise `assign` keeps up cheaply.

    `changed_since` counts notes added, modified or deleted since the build.
    """
    if choose_k(n_now) != choose_k(n_at_build):
        return True
    drift = max(changed_since, abs(n_now - n_at_build))
    return drift > REBUILD_SHARE * max(n_at_build, 1)


def _unit(x: np.ndarray) -> np.ndarray:
    if x.ndim != 2:
        x = x.reshape(len(x), -1)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: np.ndarray = x / np.where(norms > 0, norms, 1.0)
    return out.astype(np.float32, copy=False)


def _plus_plus(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++: each next seed drawn with probability ∝ its squared distance to the seeds."""
    n = x.shape[0]
    chosen = [int(rng.integers(n))]
    dist = np.maximum(2.0 - 2.0 * (x @ x[chosen[0]]), 0.0).astype(np.float64)
    for _ in range(1, k):
        total = dist.sum()
        if total > 1e-12:  # inverse-CDF draw: rng.choice(p=...) re-validates p, 30x slower
            pick = min(int(np.searchsorted(np.cumsum(dist), rng.random() * total)), n - 1)
        else:
            pick = int(rng.integers(n))
        chosen.append(pick)
        dist = np.minimum(dist, np.maximum(2.0 - 2.0 * (x @ x[pick]), 0.0))
    return x[chosen].copy()


def _fill_empty(labels: np.ndarray, fit: np.ndarray, k: int) -> None:
    """Give each empty cluster the worst-fitting note of a cluster that can spare one."""
    counts = np.bincount(labels, minlength=k)
    empty = [int(j) for j in np.flatnonzero(counts == 0)]
    if not empty:
        return
    for i in np.argsort(fit, kind="stable"):
        if not empty:
            return
        if counts[labels[i]] > 1:
            counts[labels[i]] -= 1
            labels[i] = empty.pop(0)
            counts[labels[i]] += 1


def _centroids(x: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Unit mean of each cluster's members; sums by sorted segments (a one-hot matmul took 300
    ms for 20k×384, k=60, this takes 40)."""
    counts = np.bincount(labels, minlength=k)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    sums = np.zeros((k, x.shape[1]), dtype=np.float32)
    filled = counts > 0
    sums[filled] = np.add.reduceat(x[np.argsort(labels, kind="stable")], starts[filled], axis=0)
    return _unit(sums)


def _by_size(centroids: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Renumber clusters largest first (ties: earliest first member), dropping empty ones."""
    k = centroids.shape[0]
    counts = np.bincount(labels, minlength=k)
    first = np.full(k, labels.size, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(labels.size))
    keep = sorted((c for c in range(k) if counts[c] > 0), key=lambda c: (-counts[c], first[c]))
    remap = np.full(k, -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    return centroids[keep], remap[labels]


def _merge_plurals(per_class: list[defaultdict[str, float]]) -> list[defaultdict[str, float]]:
    """Count "gestures" as "gesture" when both occur: one topic, one word."""
    vocab = {w for counts in per_class for w in counts}
    alias = {w: w[:-1] for w in vocab if w.endswith("s") and w[:-1] in vocab}
    merged: list[defaultdict[str, float]] = [defaultdict(float) for _ in per_class]
    for counts, out in zip(per_class, merged, strict=True):
        for w, c in counts.items():
            out[alias.get(w, w)] += c
    return merged


def _unique_name(terms: list[str], used: set[str]) -> str:
    """Top terms title-cased, joined with " · "; varied with later terms if already taken."""
    if not terms:
        return ""
    head = terms[: NAME_TERMS - 1]
    for last in [*terms[NAME_TERMS - 1 :], ""]:
        name = " · ".join(w[:1].upper() + w[1:] for w in [*head, last] if w)
        if name not in used:
            return name
    return ""


def _and_list(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
