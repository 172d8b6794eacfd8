"""A long pass reads the newest notes first and embeds beside the text pass, so the notes a
person likely wants early have vectors before every note is read (issue 18, point 5); ids,
vectors and Ctrl-C behave as they did."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.indexing.embedding import PendingEmbeddings
from kbtui.indexing.indexer import Indexer
from kbtui.indexing.order import recent_first
from kbtui.indexing.texts import embed_text
from kbtui.models import FileState
from kbtui.store import Store
from tests.test_not_embedded import _Counting

BASE_NS = 1_700_000_000_000_000_000


def _note(vault: Path, rel: str, age: int, words: str = "") -> None:
    """A note `age` seconds older than the newest."""
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    body = words or " ".join(f"Sentence {k} is about the subject of {rel}." for k in range(40))
    path.write_text(f"# {rel}\n\n{body}\n")
    stamp = BASE_NS - age * 10**9
    os.utime(path, ns=(stamp, stamp))


def _vault(tmp_path: Path, notes: int = 80) -> Settings:
    """Notes whose path order is the reverse of their age order: note000 is the oldest."""
    vault = tmp_path / "vault"
    for i in range(notes):
        _note(vault, f"note{i:03d}.md", age=notes - i)
    return Settings.for_vault(vault)


def test_order_is_newest_first_with_same_named_notes_in_path_order() -> None:
    files = {
        "a.md": FileState("a.md", 1, 10),
        "b.md": FileState("b.md", 1, 30),
        "x/readme.md": FileState("x/readme.md", 1, 5),  # same slug as y/README.md
        "y/README.md": FileState("y/README.md", 1, 40),
        "c.md": FileState("c.md", 1, 30),
    }
    order = [s.path for s in recent_first(files)]
    # newest first: y/README (40), b and c (30, path order), a (10), x/readme (5); the two
    # readme notes could share an id, so the first place their group has goes to x/readme.
    assert order == ["x/readme.md", "b.md", "c.md", "a.md", "y/README.md"]


def test_same_named_notes_keep_the_id_path_order_gives(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _note(vault, "docs/a/readme.md", age=500)  # older, first in path order
    _note(vault, "docs/b/readme.md", age=1)  # newest
    for i in range(40):
        _note(vault, f"docs/n{i:02d}.md", age=100 + i)
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, None).run(embed=False)
        ids = dict(store.con.execute("SELECT path, entity_id FROM notes").fetchall())
    finally:
        store.close()
    assert ids["docs/a/readme.md"] == "doc:readme"
    assert ids["docs/b/readme.md"].startswith("doc:readme_")


def test_the_newest_notes_are_written_first(tmp_path: Path) -> None:
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    first: list[set[str]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "write" and not first:
            first.append({r[0] for r in store.con.execute("SELECT path FROM notes").fetchall()})

    try:
        Indexer(settings, store, None, progress=progress).run(embed=False)
    finally:
        store.close()
    assert first[0] == {f"note{i:03d}.md" for i in range(64, 80)}  # the 16 newest


def test_vectors_start_before_the_text_pass_ends(tmp_path: Path) -> None:
    """The text pass waits (in its progress hook) for a vector to be committed: that happens
    only if embedding runs beside it. The newest notes are embedded first."""
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    embedded = threading.Event()
    marks: list[tuple[str, int]] = []
    embedder = _Counting()

    def progress(phase: str, done: int, total: int) -> None:
        marks.append((phase, done))
        if phase == "embed" and done:
            embedded.set()
        if phase == "write" and done < total and len([m for m in marks if m[0] == "write"]) == 2:
            embedded.wait(30)

    try:
        report = Indexer(settings, store, embedder, progress=progress).run()
        assert store.count_pending() == 0
        assert report.chunks_embedded == store.stats()["embedded"] == len(embedder.texts)
    finally:
        store.close()
    last_write = max(n for n, m in enumerate(marks) if m[0] == "write")
    first_vector = min(n for n, m in enumerate(marks) if m[0] == "embed" and m[1])
    assert first_vector < last_write
    assert embedder.texts[0].startswith("note079 ")  # the newest note's chunks first


class _Failing(HashEmbedder):
    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("the model broke")


def test_an_error_while_embedding_beside_the_text_pass_reaches_the_caller(
    tmp_path: Path,
) -> None:
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    try:
        with pytest.raises(RuntimeError, match="the model broke"):
            Indexer(settings, store, _Failing()).run()
        assert not [t for t in threading.enumerate() if t.name == "kbtui-embed"]
    finally:
        store.close()


def test_ctrl_c_in_the_text_pass_stops_the_embedding_and_keeps_its_vectors(
    tmp_path: Path,
) -> None:
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    embedded = threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "embed" and done:
            embedded.set()
        if phase == "read" and done == 60:  # in the text pass, once vectors were committed
            assert embedded.wait(30)
            raise KeyboardInterrupt

    try:
        first = _Counting()
        with pytest.raises(KeyboardInterrupt):
            Indexer(settings, store, first, progress=progress).run()
        assert not [t for t in threading.enumerate() if t.name == "kbtui-embed"]
        kept, written = store.stats()["embedded"], store.note_count()
        assert 0 < kept == len(first.texts)  # all that was embedded was committed
        assert 0 < written < 80
        second = _Counting()
        report = Indexer(settings, store, second).run()
        assert report.changed == [] and len(report.new) == 80 - written  # none read again
        assert store.count_pending() == 0 and store.note_count() == 80
        assert report.chunks_embedded == len(second.texts) == store.stats()["embedded"] - kept
        assert not set(first.texts) & set(second.texts)
    finally:
        store.close()


def test_a_stop_mid_batch_commits_what_was_embedded(tmp_path: Path) -> None:
    settings = _vault(tmp_path, notes=20)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, None).run(embed=False)
        pending = store.count_pending()
        assert pending > 40
        run: list[PendingEmbeddings] = []

        class StopAfterTwoCalls(_Counting):
            def embed(self, texts: list[str]) -> np.ndarray:
                if len(self.texts) >= 16:
                    run[0].cancel()  # as the text pass's thread does on Ctrl-C
                return super().embed(texts)

        embedder = StopAfterTwoCalls()
        run.append(PendingEmbeddings(store, embedder, threading.RLock(), _quiet, embed_text))
        assert run[0].run() == len(embedder.texts) == 32  # two model calls of 16, committed
        assert store.stats()["embedded"] == 32
    finally:
        store.close()


def _quiet(phase: str, done: int, total: int) -> None:
    pass


def test_real_model_vectors_beside_the_text_pass_are_those_of_each_text_alone(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    settings = _vault(tmp_path, notes=40)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, real_embedder).run()
        rows = store.con.execute(
            "SELECT n.title, c.heading, coalesce(c.shown, c.content), c.embedding "
            "FROM chunks c JOIN notes n USING (entity_id) ORDER BY c.cid"
        ).fetchall()
    finally:
        store.close()
    assert len(rows) >= 40 and all(r[3] is not None for r in rows)
    for title, heading, shown, vector in rows[::7]:
        alone = real_embedder.embed([embed_text(title, heading, shown)])[0]
        assert np.array_equal(np.asarray(vector, dtype=np.float32), alone)


def test_the_plain_id_goes_to_the_page_outside_version_folders(tmp_path: Path) -> None:
    # path order puts docs/7.22/ and docs/7.4/ before docs/setup: the plain id went to 7.22
    vault = tmp_path / "vault"
    for folder, age in [("docs/7.22", 1), ("docs/7.4", 2), ("docs", 300), ("docs/8.0", 3)]:
        _note(vault, f"{folder}/add-node.md", age=age)
    _note(vault, "docs/7.4/remove-node.md", age=5)
    _note(vault, "docs/7.22/remove-node.md", age=6)
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, None).run(embed=False)
        ids = dict(store.con.execute("SELECT path, entity_id FROM notes").fetchall())
    finally:
        store.close()
    assert ids["docs/add-node.md"] == "doc:add_node"
    assert ids["docs/8.0/add-node.md"] != "doc:add_node"
    assert ids["docs/7.22/remove-node.md"] == "doc:remove_node"  # the newest version
    assert ids["docs/7.4/remove-node.md"].startswith("doc:remove_node_")
