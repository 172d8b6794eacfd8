"""Topic clusters: spherical k-means recovers groups; c-TF-IDF names say what each group is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbtui.embed import HashEmbedder
from kbtui.search.clusters import (
    assign,
    build_clusters,
    choose_k,
    kmeans,
    name_clusters,
    needs_rebuild,
    surface_words,
)
from kbtui.vault.decode import DecodeError, decode_note
from kbtui.vault.parse import NoteError, parse_note
from kbtui.vault.plain import plain_text

VAULT_EXAMPLE = Path(__file__).resolve().parent.parent / "vault_example"
DIM = 384
VOCAB = {
    "watch": "watch firmware battery sensor strap gesture wrist",
    "garden": "tomato compost seedling greenhouse mulch watering harvest",
    "finance": "invoice budget ledger payroll expense quarterly audit",
}
SHARED = "project meeting team update status review notes"


def _groups(sizes: tuple[int, ...], seed: int = 7, noise: float = 0.25) -> tuple[np.ndarray, ...]:
    """Unit vectors scattered around random centres: (vectors, true group, centres)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    x = centres[truth] + noise * rng.normal(size=(len(truth), DIM)).astype(np.float32) / 8
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32), truth, centres


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def _docs(truth: np.ndarray) -> list[str]:
    topics = list(VOCAB)
    rng = np.random.default_rng(3)
    docs = []
    for i, t in enumerate(truth):
        words = VOCAB[topics[t]].split()
        picked = rng.choice(words, size=4, replace=False)
        docs.append(f"{' '.join(picked)} {SHARED} {SHARED} note {i}")
    return docs


@pytest.mark.parametrize(("n", "k"), [(0, 0), (1, 1), (3, 1), (4, 2), (10, 2), (64, 6)])
def test_choose_k_small_vaults(n: int, k: int) -> None:
    assert choose_k(n) == k


def test_choose_k_grows_like_sqrt_and_is_capped() -> None:
    assert choose_k(1000) == 22
    assert choose_k(20000) == 60
    assert choose_k(1_000_000) == 60


def test_well_separated_groups_are_recovered_exactly() -> None:
    x, truth, _ = _groups((30, 20, 10))
    centroids, labels = kmeans(x, 3, seed=0)
    assert centroids.shape == (3, DIM)
    assert np.allclose(np.linalg.norm(centroids, axis=1), 1.0, atol=1e-5)
    assert _same_partition(labels, truth)
    assert np.bincount(labels).tolist() == [30, 20, 10]  # numbered by size


def test_kmeans_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    c1, l1 = kmeans(x, 8, seed=5)
    c2, l2 = kmeans(x, 8, seed=5)
    assert np.array_equal(l1, l2) and np.array_equal(c1, c2)


def test_no_empty_clusters_even_with_duplicates_or_k_above_n() -> None:
    x, _, _ = _groups((5, 5))
    duplicated = np.vstack([x[:1]] * 6 + [x[5:7]])
    for vectors, k in ((duplicated, 5), (x, 50), (x[:3], 3)):
        centroids, labels = kmeans(vectors, k, seed=1)
        assert len(labels) == len(vectors)
        assert np.bincount(labels).min() >= 1
        assert labels.max() + 1 == centroids.shape[0] <= min(k, len(vectors))


def test_empty_input() -> None:
    centroids, labels = kmeans(np.zeros((0, DIM), np.float32), 3)
    assert centroids.shape == (0, DIM) and labels.shape == (0,)
    model = build_clusters([], np.zeros((0, DIM), np.float32), [])
    assert model.k == 0 and model.lookup("x", np.ones(DIM, np.float32)) is None


def test_assign_puts_a_new_note_with_its_group() -> None:
    x, truth, centres = _groups((30, 20, 10))
    centroids, labels = kmeans(x, 3, seed=0)
    rng = np.random.default_rng(11)
    for group in range(3):
        near = centres[group] + 0.02 * rng.normal(size=DIM).astype(np.float32)
        got, sims = assign(near[None, :], centroids)
        assert got[0] == labels[truth == group][0]
        assert sims[0] > 0.9


def test_names_come_from_each_groups_distinctive_words() -> None:
    x, truth, _ = _groups((30, 20, 10))
    _, labels = kmeans(x, 3, seed=0)
    docs = _docs(truth)
    named = name_clusters(labels, docs, 3)
    shared = set(SHARED.split())
    for cluster, (name, description, terms) in enumerate(named):
        topic = list(VOCAB)[truth[labels == cluster][0]]
        own = set(VOCAB[topic].split())
        assert set(terms[:5]) <= own, (name, terms)
        assert not shared & {w.lower() for w in name.split(" · ")}
        assert name.count(" · ") == 2 and name == name.strip()
        assert description.startswith(f"{np.sum(labels == cluster)} notes about ")
    assert len({name for name, _, _ in named}) == 3


def test_surface_words_are_readable_not_stems() -> None:
    words = surface_words("Café des idées: the Watches' FIRMWARE 2026 東京のデザイン会議 ok")
    assert words == ["café", "idées", "watches", "firmware", "東京", "デザイン", "会議"]


def test_build_clusters_ids_by_size_and_lookup() -> None:
    x, truth, centres = _groups((4, 10, 7))  # 21 notes: choose_k gives 3
    ids = [f"note:{i}" for i in range(len(truth))]
    model = build_clusters(ids, x, _docs(truth), seed=0)
    assert model.k == 3 and model.sizes == (10, 7, 4)
    assert model.labels["note:5"] == 0  # in the 10-note group: the largest is cluster-0
    info = model.lookup("note:5")
    assert info is not None and info["cluster_id"] == ["cluster-0"]
    assert info["cluster_name"] == model.names[0] and "10 notes" in info["description"]
    new = model.lookup("note:new", centres[2])  # the 7-note group
    assert new is not None and new["cluster_id"] == ["cluster-1"]
    assert model.lookup("note:unknown") is None
    again = build_clusters(ids, x, _docs(truth), seed=0)
    assert again.labels == model.labels and again.names == model.names


def test_needs_rebuild_policy() -> None:
    assert not needs_rebuild(1000, 0, 1000)
    assert not needs_rebuild(1000, 150, 1000)  # 15% changed: assign() keeps up
    assert needs_rebuild(1000, 250, 1000)  # > 20% changed
    assert needs_rebuild(1000, 0, 1300)  # notes added without being counted as changes
    assert needs_rebuild(64, 16, 80)  # 16 new notes: 25% of 64
    assert not needs_rebuild(64, 1, 65)
    assert choose_k(84) == 6 and choose_k(85) == 7
    assert needs_rebuild(84, 1, 85)  # one note more, but the vault now calls for another k
    assert needs_rebuild(0, 0, 10)
    assert not needs_rebuild(0, 0, 0)


def test_real_vault_names_are_non_empty_and_distinct() -> None:
    ids: list[str] = []
    docs: list[str] = []
    for path in sorted(VAULT_EXAMPLE.rglob("*.md")):
        rel = path.relative_to(VAULT_EXAMPLE).as_posix()
        try:
            note = parse_note(rel, decode_note(path.read_bytes())[0])
        except (DecodeError, NoteError):
            continue
        headings = " ".join(heading for _, heading in note.sections)
        sample = plain_text(note.body)[:1000]
        docs.append(" ".join([note.title] * 3 + list(note.tags) + [headings, sample]))
        ids.append(note.entity_id)
    model = build_clusters(ids, HashEmbedder().embed(docs), docs)
    assert len(ids) >= 50 and model.k == choose_k(len(ids))
    assert all(name.strip() for name in model.names)
    assert len(set(model.names)) == model.k
    assert all(desc and terms for desc, terms in zip(model.descriptions, model.terms, strict=True))
    assert set(model.labels) == set(ids) and sum(model.sizes) == len(ids)
