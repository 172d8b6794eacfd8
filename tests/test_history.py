"""The notes' history (kbtui.store.history): what the indexer sees becomes a version only when
it differs from the newest; a group of notes goes in one transaction; bytes are stored once;
numbers per path stay stable; pruning keeps each existing note's newest version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kbtui.store.history import History


def test_observe_records_a_group_where_it_differs_from_the_newest(tmp_path: Path) -> None:
    history = History(tmp_path)
    assert history.observe([("a.md", b"one"), ("b.md", b"two")]) == 2
    history.record("b.md", None, "cli", "delete")
    added = history.observe([("a.md", b"one"), ("b.md", b"two"), ("c.md", b"one")])
    assert added == 2  # a unchanged; b back after its deletion; c new (same bytes as a)
    assert [(v.version, v.operation) for v in history.versions("b.md")] == [
        (3, "edited outside kbtui"),
        (2, "delete"),
        (1, "seen"),
    ]
    assert history.versions("c.md")[0].operation == "seen"
    history.observe_deleted(["a.md", "nowhere.md"])
    assert history.newest("a.md") is not None and history.newest("a.md").hash is None  # type: ignore[union-attr]
    assert history.versions("nowhere.md") == []
    con = sqlite3.connect(tmp_path / "history.sqlite")
    assert con.execute("SELECT count(*) FROM blobs").fetchone() == (2,)  # b"one" once
    con.close()
    history.close()


def test_record_many_numbers_each_path_in_order(tmp_path: Path) -> None:
    history = History(tmp_path)
    made = history.record_many(
        [("n.md", b"v1", "cli", "create", 1, 0), ("n.md", b"v2", "cli", "append", 1, 0)]
    )
    assert [v.version for v in made] == [1, 2]
    assert history.data(history.version("n.md", 2).hash or "") == b"v2"  # type: ignore[union-attr]
    history.close()


def test_prune_keeps_the_newest_of_an_existing_note(tmp_path: Path) -> None:
    history = History(tmp_path, keep_days=7)
    history.record("n.md", b"old", "cli", "create", when=0.0)
    history.record("n.md", b"new", "cli", "append", when=10.0)
    history.record("gone.md", b"x", "cli", "create", when=0.0)
    history.record("gone.md", None, "cli", "delete", when=5.0)
    assert history.prune(now=30 * 86400.0) == 3
    assert [v.version for v in history.versions("n.md")] == [2]
    assert history.versions("gone.md") == []
    assert history.data(history.versions("n.md")[0].hash or "") == b"new"
    history.close()
