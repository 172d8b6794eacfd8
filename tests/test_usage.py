"""Deferred usage writes: what a caller reads never depends on whether uses were written yet,
and what is written equals the learning rule applied use by use."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def rule(uses: list[tuple[float, float]]) -> float:
    q = 0.5
    for reward, alpha in uses:
        q += alpha * (reward - q)
    return q


def test_pending_uses_read_the_same_before_and_after_the_write(settings: Settings) -> None:
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    uses = [(1.0, 0.3), (0.2, 0.1), (1.0, 0.3), (1.0, 0.5)]
    for reward, alpha in uses:
        store.record_usage(["concept:crdt", "person:maya_okafor"], reward, alpha, count=True)
    store.record_usage(["concept:crdt"], 1.0, 0.3, count=False)
    expected = rule([*uses, (1.0, 0.3)])
    before = store.entity_rows(["concept:crdt", "person:maya_okafor"])
    assert before["concept:crdt"]["q_value"] == pytest.approx(expected)
    assert before["concept:crdt"]["access_count"] == 4
    assert before["person:maya_okafor"]["q_value"] == pytest.approx(rule(uses))
    store.flush_usage()
    store.record_usage(["concept:crdt"], 0.0, 0.5, count=True)  # on top of a written row
    store.close()

    reopened = Store(Path(settings.db_path))
    after = reopened.entity_rows(["concept:crdt", "person:maya_okafor"])
    assert after["concept:crdt"]["q_value"] == pytest.approx(rule([*uses, (1.0, 0.3), (0, 0.5)]))
    assert after["concept:crdt"]["access_count"] == 5
    assert after["concept:crdt"]["last_accessed"] is not None
    assert after["person:maya_okafor"]["access_count"] == 4
    # Maya ends at 0.86 (the only Q-value above the 0.5 every unused entity has)
    assert reopened.top_entity_ids("q_value", 1, "vault", "vault") == ["person:maya_okafor"]
    reopened.close()
