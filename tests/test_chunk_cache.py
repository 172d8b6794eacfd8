"""The in-RAM chunk rows (kbtui/store/side/chunk_cache.py) always say what the chunks table says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.side.chunk_cache import ChunkCache, Texts
from tests.conftest import copy_vault


def table_rows(store: Store) -> dict[int, dict[str, Any]]:
    """Every chunk row straight from SQL, shaped like chunk_details."""
    rows = store.con.execute("""
        SELECT c.cid, c.chunk_id, c.entity_id, c.chunk_index, c.heading, c.content,
               coalesce(c.shown, c.content), c.start_pos, c.end_pos, n.type, n.title, n.path,
               n.folder
        FROM chunks c JOIN notes n USING (entity_id)""").fetchall()
    keys = [
        "cid",
        "chunk_id",
        "entity_id",
        "chunk_index",
        "heading",
        "content",
        "shown",
        "start_pos",
        "end_pos",
        "type",
        "title",
        "path",
        "folder",
    ]
    return {r[0]: dict(zip(keys, r, strict=True)) for r in rows}


def check_matches_table(store: Store) -> dict[int, dict[str, Any]]:
    want = table_rows(store)
    assert store.chunk_details(list(want)) == want
    for entity_id in {r["entity_id"] for r in want.values()}:
        mine = [r for r in want.values() if r["entity_id"] == entity_id]
        got = store.note_chunks(entity_id)
        assert got == sorted(mine, key=lambda r: r["chunk_index"])
    return want


def test_cache_follows_edits_renames_and_deletes(settings: Settings, store: Store) -> None:
    index = Indexer(settings, store, HashEmbedder())
    index.run()
    before = check_matches_table(store)
    note = settings.vault / "people/amara_nwosu.md"
    note.write_text(note.read_text() + "\n\n## Later\n\nA paragraph about the edit, ünïcödé.\n")
    (settings.vault / "tech/zephyr_rtos.md").unlink()
    moved = settings.vault / "projects/renamed.md"
    (settings.vault / "projects/vector_watch_project.md").rename(moved)
    index.run()
    after = check_matches_table(store)
    gone = set(before) - set(after)
    assert gone and store.chunk_details(sorted(gone)) == {}
    assert any("ünïcödé" in r["content"] for r in after.values())
    assert store.note_chunks("technology:zephyr_rtos") == []
    assert store.chunk_details([10**9]) == {}


def sql_note(store: Store, entity_id: str) -> tuple[Any, ...] | None:
    row = store.con.execute(
        "SELECT title, frontmatter::VARCHAR, aliases FROM notes WHERE entity_id = ?", [entity_id]
    ).fetchone()
    tags = store.con.execute(
        "SELECT tag FROM tags WHERE entity_id = ? ORDER BY tag", [entity_id]
    ).fetchall()
    return None if row is None else (*row, [t[0] for t in tags])


def test_note_rows_follow_tags_titles_and_emptied_bodies(settings: Settings, store: Store) -> None:
    index = Indexer(settings, store, HashEmbedder())
    index.run()
    ids = [r[0] for r in store.con.execute("SELECT entity_id FROM notes").fetchall()]
    for entity_id in ids:
        note = store.note(entity_id)
        assert note is not None
        title, frontmatter, aliases, tags = sql_note(store, entity_id) or ()
        assert (note["title"], note["frontmatter"], note["aliases"], note["tags"]) == (
            title,
            json.loads(frontmatter),
            aliases,
            tags,
        )
    path = settings.vault / "people/amara_nwosu.md"
    path.write_text("---\ntitle: Amara N.\ntags: [fresh, alpha]\n---\n")  # no body at all
    index.run()
    note = store.note("person:amara_nwosu")
    assert note is not None and note["title"] == "Amara N." and note["tags"] == ["alpha", "fresh"]
    chunks = store.note_chunks("person:amara_nwosu")  # its properties are its one chunk
    assert [c["content"] for c in chunks] == ["title: Amara N.\ntags: fresh, alpha"]
    assert store.notes_meta(["person:amara_nwosu"])["person:amara_nwosu"]["title"] == "Amara N."
    path.write_text("---\nseen: true\n---\n")  # nothing to show: no chunk at all
    index.run()
    note = store.note("person:amara_nwosu")
    assert note is not None and note["tags"] == [] and note["frontmatter"] == {"seen": True}
    assert store.note_chunks("person:amara_nwosu") == []
    meta = store.notes_meta(["person:amara_nwosu"])["person:amara_nwosu"]
    assert meta["title"] == note["title"]
    path.write_text("---\ntitle: Amara again\n---\nBody text is back.\n")
    index.run()
    note = store.note("person:amara_nwosu")
    assert note is not None and note["title"] == "Amara again" and note["tags"] == []
    assert [c["content"] for c in store.note_chunks("person:amara_nwosu")] == ["Body text is back."]


def test_reopened_store_reads_the_same(settings: Settings, store: Store) -> None:
    Indexer(settings, store, HashEmbedder()).run()
    want = check_matches_table(store)
    store.close()
    again = Store(settings.db_path)
    try:
        assert again.chunk_details(list(want)) == want
    finally:
        again.close()


def fake_rows(cids: list[int], entity: str) -> dict[str, np.ndarray]:
    return {
        "cid": np.array(cids),
        "entity_id": np.array([entity] * len(cids), dtype=object),
        "chunk_index": np.arange(len(cids)),
        "start_pos": np.zeros(len(cids)),
        "end_pos": np.ones(len(cids)),
        "heading": np.array([f"h{c}" for c in cids], dtype=object),
        "content": np.array([f"text {c} ✓" for c in cids], dtype=object),
        "shown": np.array([""] * len(cids), dtype=object),
    }


def test_compaction_and_out_of_order_cids_keep_rows_right() -> None:
    cache = ChunkCache()
    table = np.arange(1, 2001)
    added, lost = cache.missing(table)
    assert np.array_equal(added, table) and lost == set()
    cache.add(fake_rows(added.tolist(), "n:a"))
    note = ("n:a", "a.md", "note", "a", "A", "", "{}", [], None, None, 500, 50, ["t"])
    cache.set_notes({"n:a"}, {"n:a": note})
    table = table[1500:]  # three quarters die: the arrays are compacted
    added, lost = cache.missing(table)
    assert not len(added) and lost == {"n:a"} and len(cache.cids) == 500
    assert cache.details([1501, 2000, 3])[2000]["content"] == "text 2000 ✓"
    assert cache.details([2000])[2000]["title"] == "A"
    assert 3 not in cache.details([3])
    cache.set_notes({"n:a"}, {})  # the note went away: so do its rows
    assert cache.details([2000]) == {}
    older = np.concatenate([[7], table])  # a cid below the newest: start over
    assert np.array_equal(cache.missing(older)[0], older) and len(cache.cids) == 0


def test_texts_round_trip() -> None:
    words = ["", "plain", "ünïcödé ✓", "line\nbreak"]
    texts = Texts(words)
    texts.extend(["more"])
    assert [texts[i] for i in range(len(texts))] == [*words, "more"]
    assert [texts.take(np.array([4, 2]))[i] for i in range(2)] == ["more", "ünïcödé ✓"]


def test_mapped_texts_round_trip_and_leave_no_file(tmp_path: Path) -> None:
    """The text buffers beside the index: same strings back, no named file, freed on close."""
    words = ["", "plain", "ünïcödé ✓", "line\nbreak", "x" * 10_000]
    texts = Texts(words, tmp_path)
    texts.extend(["more", ""])
    assert [texts[i] for i in range(len(texts))] == [*words, "more", ""]
    taken = texts.take(np.array([5, 2]))
    assert [taken[0], taken[1]] == ["more", "ünïcödé ✓"]
    assert list(tmp_path.iterdir()) == []  # unlinked at creation: a crash leaves nothing
    texts.close()
    taken.close()


def test_store_reads_text_from_mapped_buffers(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    before = set(settings.index_dir.iterdir())
    cache = store._chunks()
    assert cache.texts["content"].folder == settings.index_dir
    assert table_rows(store) == store.chunk_details(list(table_rows(store)))
    assert set(settings.index_dir.iterdir()) - before == {settings.index_dir / "chunks.arrays"}
    store.close()  # the temporary buffers have no name; the side file is chunk_side.py's
