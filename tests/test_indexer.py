"""Indexing vault_example into a real DuckDB file (fake embedder: these test the bookkeeping)."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import INDEX_VERSION_KEY, Indexer, index_version
from kbtui.models import SearchFilters
from kbtui.search.service import SearchService
from kbtui.store import Store


def run(settings: Settings, store: Store, embedder: HashEmbedder, embed: bool = True):
    return Indexer(settings, store, embedder).run(embed=embed)


def chunk_ids(store: Store, entity_id: str) -> list[str]:
    rows = store.con.execute(
        "SELECT chunk_id FROM chunks WHERE entity_id = ? ORDER BY chunk_index", [entity_id]
    ).fetchall()
    return [r[0] for r in rows]


def test_first_index_reports_every_note_and_skips_broken_ones(settings, store, hash_embedder):
    report = run(settings, store, hash_embedder)
    md_files = [p for p in settings.vault.rglob("*.md") if ".obsidian" not in p.parts]
    skipped = {s.path: s.reason for s in report.skipped}
    assert skipped.keys() == {"_broken/binary.md"}
    assert "binary" in skipped["_broken/binary.md"]
    # Properties YAML refuses: indexed by its body and file name, as Obsidian shows it (issue 19).
    warnings = {w.path: w.reason for w in report.warnings}
    assert warnings["_broken/invalid_yaml.md"] == (
        "invalid YAML frontmatter, properties not read: line 5: did not find expected ',' or "
        "']' while parsing a flow sequence; indexed by its body and file name"
    )
    assert len(report.new) == len(md_files) - 1
    stats = store.stats()
    assert stats["notes"] == len(report.new)
    assert stats["embedded"] == stats["chunks"] == report.chunks_embedded > 100
    # decoded despite their encodings
    assert {"note:utf16_note", "note:cp1252_note", "note:crlf_bom"} <= set(
        r[0] for r in store.con.execute("SELECT entity_id FROM notes").fetchall()
    )
    assert chunk_ids(store, "person:andrei_clodius")[0] == "person:andrei_clodius_chunk_0"


def test_second_pass_on_unchanged_vault_reads_and_embeds_nothing(settings, store, hash_embedder):
    first = run(settings, store, hash_embedder)
    second = run(settings, store, hash_embedder)
    assert second.new == second.changed == second.deleted == []
    assert second.unchanged == len(first.new)
    assert second.chunks_embedded == 0


def test_touch_without_change_is_not_reparsed(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    path = settings.vault / "people/andrei_clodius.md"
    os.utime(path, ns=(1, 1))
    report = run(settings, store, hash_embedder)
    assert report.changed == [] and report.chunks_embedded == 0


def test_editing_one_note_reembeds_only_its_changed_chunks(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    path = settings.vault / "people/andrei_clodius.md"
    before = len(chunk_ids(store, "person:andrei_clodius"))
    path.write_text(path.read_text() + "\n## Later\n\nHe moved to Lisbon to surf.\n")
    report = run(settings, store, hash_embedder)
    assert report.changed == ["people/andrei_clodius.md"]
    after = len(chunk_ids(store, "person:andrei_clodius"))
    assert after >= before
    assert 1 <= report.chunks_embedded <= 2  # the new last chunk (and the one it was packed into)
    hits = SearchService(store, hash_embedder).search("Lisbon surf", 3, mode="keyword")
    assert hits[0].id == "person:andrei_clodius"


def test_keyword_search_sees_a_change_before_vectors_exist(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    (settings.vault / "inbox.md").write_text("# Zanzibar\n\nA trip to Zanzibar in June.\n")
    run(settings, store, hash_embedder, embed=False)
    assert store.count_pending() == 1
    hits = SearchService(store, hash_embedder).search("zanzibar trip", 3)
    assert hits[0].id == "note:inbox"


def test_deleting_a_note_removes_it_everywhere(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    (settings.vault / "tech/sqlite.md").unlink()
    report = run(settings, store, hash_embedder)
    assert report.deleted == ["tech/sqlite.md"]
    for table in ("notes", "chunks", "tags", "links"):
        n = store.con.execute(
            f"SELECT count(*) FROM {table} WHERE entity_id = 'technology:sqlite'"
        ).fetchone()
        assert n == (0,), table
    orphans = store.con.execute(
        "SELECT count(*) FROM postings WHERE cid NOT IN (SELECT cid FROM chunks)"
    ).fetchone()
    assert orphans == (0,)
    assert "technology:sqlite" not in {
        h.id for h in SearchService(store, hash_embedder).search("sqlite database", 10)
    }


def test_renaming_a_note_keeps_its_entity_and_vectors(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    created = store.con.execute(
        "SELECT created_at FROM notes WHERE entity_id = 'person:andrei_clodius'"
    ).fetchone()
    dest = settings.vault / "people/team/Andrei C.md"
    dest.parent.mkdir()
    shutil.move(settings.vault / "people/andrei_clodius.md", dest)
    report = run(settings, store, hash_embedder)
    assert report.renamed == [("people/andrei_clodius.md", "people/team/Andrei C.md")]
    assert report.deleted == [] and report.new == []
    assert report.chunks_embedded == 0
    row = store.con.execute(
        "SELECT path, created_at FROM notes WHERE entity_id = 'person:andrei_clodius'"
    ).fetchone()
    assert row == ("people/team/Andrei C.md", created[0])


def test_renaming_a_note_without_id_moves_its_state_to_the_new_id(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    shutil.move(settings.vault / "tech/Rust.md", settings.vault / "tech/Rust lang.md")
    report = run(settings, store, hash_embedder)
    assert report.renamed == [("tech/Rust.md", "tech/Rust lang.md")]
    ids = {r[0] for r in store.con.execute("SELECT entity_id FROM notes").fetchall()}
    assert "technology:rust_lang" in ids and "technology:rust" not in ids
    assert report.chunks_embedded == 0


def test_two_notes_with_one_id_are_both_indexed(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    text = (settings.vault / "tech/sqlite.md").read_text().replace("SQLite", "SQLite copy")
    (settings.vault / "tech/sqlite_copy.md").write_text(text)
    report = run(settings, store, hash_embedder)
    assert any("already used by tech/sqlite.md" in w.reason for w in report.warnings)
    ids = {r[0] for r in store.con.execute("SELECT entity_id FROM notes").fetchall()}
    assert "technology:sqlite" in ids
    assert any(i.startswith("technology:sqlite_") for i in ids)


def test_a_note_that_breaks_is_reported_and_dropped_then_returns(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    path = settings.vault / "tech/figma.md"
    good = path.read_bytes()
    path.write_bytes(b"binary\x00now\n")
    report = run(settings, store, hash_embedder)
    assert [s.path for s in report.skipped if s.path == "tech/figma.md"] == ["tech/figma.md"]
    assert chunk_ids(store, "technology:figma") == []
    path.write_bytes(good)
    report = run(settings, store, hash_embedder)
    assert report.new == ["tech/figma.md"] and chunk_ids(store, "technology:figma")


def test_a_note_whose_properties_break_keeps_its_body_then_its_properties(
    settings, store, hash_embedder
):
    """Before issue 19 such a note was dropped from the index; Obsidian keeps showing it."""
    run(settings, store, hash_embedder)
    path = settings.vault / "tech/figma.md"
    good = path.read_bytes()
    path.write_text("---\ntitle: [broken\n---\nDesign tool body.\n")
    report = run(settings, store, hash_embedder)
    assert "tech/figma.md" not in {s.path for s in report.skipped}
    assert [w.path for w in report.warnings if "properties not read: line 2" in w.reason] == [
        "tech/figma.md"
    ]
    assert report.changed == ["tech/figma.md"]
    note = store.note("technology:figma")
    assert note is not None and note["frontmatter"] == {} and note["title"] == "figma"
    path.write_bytes(good)
    report = run(settings, store, hash_embedder)
    assert report.changed == ["tech/figma.md"] and not report.warnings
    note = store.note("technology:figma")
    assert note is not None and note["frontmatter"]


def test_hidden_folders_index_folder_and_other_files_are_ignored(settings, store, hash_embedder):
    for rel in (".obsidian/x.md", ".trash/old.md", ".git/y.md", "a/.hidden.md", "notes.txt"):
        p = settings.vault / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("# should not be indexed\n")
    report = run(settings, store, hash_embedder)
    assert not [p for p in report.new if "hidden" in p or p.startswith(".") or p.endswith(".txt")]


def test_symlink_loop_and_unreadable_file_do_not_stop_indexing(settings, store, hash_embedder):
    (settings.vault / "loop").symlink_to(settings.vault, target_is_directory=True)
    locked = settings.vault / "locked.md"
    locked.write_text("secret")
    locked.chmod(0)
    report = run(settings, store, hash_embedder)
    if os.geteuid() != 0:  # root reads anything
        assert any(s.path == "locked.md" and "cannot read" in s.reason for s in report.skipped)
    assert len(report.new) > 50


def test_filters_by_type_tag_and_folder(settings, store, hash_embedder):
    run(settings, store, hash_embedder)
    svc = SearchService(store, hash_embedder)
    people = svc.search("design", 10, SearchFilters(type="person"))
    assert people and all(r.type == "person" for r in people)
    ml = svc.search("models", 10, SearchFilters(tag="ml"))
    tagged = {
        r[0]
        for r in store.con.execute(
            "SELECT entity_id FROM tags WHERE tag = 'ml' OR tag LIKE 'ml/%'"
        ).fetchall()
    }
    assert ml and {r.id for r in ml} <= tagged
    meetings = svc.search("watch", 10, SearchFilters(folder="meetings"))
    assert meetings and all(r.metadata["file_path"].startswith("meetings/2026/") for r in meetings)


def test_a_new_model_reembeds_everything(settings, store, hash_embedder):
    first = run(settings, store, hash_embedder)

    class OtherModel(HashEmbedder):
        model_id = "other-model"

    report = run(settings, store, OtherModel())
    assert report.chunks_embedded == first.chunks_embedded


def test_deleting_the_index_and_reindexing_gives_the_same_index(
    settings, hash_embedder, tmp_path: Path
):
    def snapshot(s: Store) -> list[tuple[object, ...]]:
        return s.con.execute(
            "SELECT chunk_id, content, content_hash, embedding FROM chunks ORDER BY chunk_id"
        ).fetchall()

    store = Store(settings.db_path)
    run(settings, store, hash_embedder)
    shutil.rmtree(settings.vault / "tech")  # churn before the comparison
    run(settings, store, hash_embedder)
    before = snapshot(store)
    store.close()
    fresh = Store(tmp_path / "fresh.duckdb")
    Indexer(settings, fresh, hash_embedder).run()
    assert snapshot(fresh) == before
    fresh.close()


def test_a_new_tokenizer_or_chunking_reindexes_text_but_reuses_vectors(
    settings, store, hash_embedder
):
    first = run(settings, store, hash_embedder)
    assert store.meta(INDEX_VERSION_KEY) == index_version(settings)
    postings = store.con.execute("SELECT count(*) FROM postings").fetchone()[0]
    store.set_meta(INDEX_VERSION_KEY, "tok0-from-an-older-kbtui")
    again = run(settings, store, hash_embedder)
    assert sorted(again.changed) == sorted(first.new) and again.chunks_embedded == 0
    assert store.con.execute("SELECT count(*) FROM postings").fetchone()[0] == postings
    assert store.meta(INDEX_VERSION_KEY) == index_version(settings)
    # New chunk settings re-cut every note; only chunk texts never seen before are embedded.
    wider = replace(settings, chunk_size=900, chunk_overlap=90)
    third = run(wider, store, hash_embedder)
    assert len(third.changed) == len(first.new)
    assert 0 < third.chunks_embedded < store.stats()["chunks"] + 1
    assert store.meta(INDEX_VERSION_KEY) == index_version(wider) != index_version(settings)
    assert run(wider, store, hash_embedder).changed == []


def test_the_rows_do_not_depend_on_the_write_batch(settings, store, hash_embedder, tmp_path: Path):
    """bench/bulk_index.py builds a million-chunk index with big write batches: it must hold
    what a normal pass writes (links resolved across batches, cids in path order)."""
    run(settings, store, hash_embedder)
    expected = store.snapshot()
    cids = store.con.execute("SELECT chunk_id, cid FROM chunks ORDER BY cid").fetchall()
    for batch in (3, 10_000):
        other = Store(tmp_path / f"batch{batch}.duckdb")
        Indexer(settings, other, hash_embedder, write_batch=batch).run()
        assert other.snapshot().differences(expected) == []
        assert other.con.execute("SELECT chunk_id, cid FROM chunks ORDER BY cid").fetchall() == cids
        other.close()
