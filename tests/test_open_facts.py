"""The open's facts (which chunks have a vector, where the waiting ones start) recorded by a
clean close (kbtui/store/vectors/open_facts.py): the next open reads no vector for them, and they
are always what a read of the vector column gives. Real DuckDB files, the real indexer."""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.search.keyword_index import KeywordIndex
from kbtui.search.service import SearchService
from kbtui.store import Store
from kbtui.store.file.clean_close import facts_path, stamp_path
from kbtui.store.vectors.embeddings import EmbeddingWrites


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """One entry per read of the vector column (None: all of it; else from that cid on)."""
    seen: list[int | None] = []
    real = EmbeddingWrites._vector_flags

    def counted(self: EmbeddingWrites, since: int | None = None) -> tuple[np.ndarray, ...]:
        seen.append(since)
        return real(self, since)

    monkeypatch.setattr(EmbeddingWrites, "_vector_flags", counted)
    return seen


def as_read(store: Store) -> tuple[list[int], int]:
    """(embedded ids, first waiting id or next id) as a read of the whole column gives."""
    cids, has, waiting = EmbeddingWrites._vector_flags(store)
    first = int(cids[waiting].min()) if waiting.any() else store.next_cid
    return sorted(cids[has].tolist()), first


def check_open(path: Path, reads: list[int | None], expect_read: bool) -> None:
    """Open, compare what the open knows with a read of the column, close."""
    before = len(reads)
    store = Store(path)
    try:
        full = [s for s in reads[before:] if s is None]
        assert len(full) == int(expect_read)
        embedded, first_waiting = as_read(store)
        at_open = store.embedded_at_open()
        assert at_open is not None and at_open.tolist() == embedded
        assert store._pending_from <= first_waiting  # a floor: nothing waits under it
        assert (
            store.count_pending()
            == store.stats()["chunks"] - len(embedded) - store.stats()["not_embedded"]
        )
    finally:
        store.close()


def test_a_session_of_writes_records_what_a_read_gives(
    settings: Settings, reads: list[int | None]
) -> None:
    """Keyword-only first (every chunk waits), then vectors for those older chunks, a note
    edited, one deleted, one added: each next open uses the record and agrees with a read."""
    path = settings.db_path
    store = Store(path)
    Indexer(settings, store, None).run()  # no model: chunks wait for vectors
    store.close()
    assert facts_path(path).exists() and stamp_path(path).exists()
    check_open(path, reads, expect_read=False)

    store = Store(path)
    assert not facts_path(path).exists()  # gone while open for writing, like the stamp
    Indexer(settings, store, HashEmbedder()).run()  # vectors for the chunks of the open
    notes = sorted(settings.vault.rglob("*.md"))
    notes[0].write_text(notes[0].read_text() + "\n\nEdited: battery sensor notes.\n")
    notes[1].unlink()
    (settings.vault / "added.md").write_text("# Added\n\nA new note about gestures.\n")
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    check_open(path, reads, expect_read=False)

    check_open(path, reads, expect_read=False)  # a session without writes records again


def test_no_record_when_vectors_were_dropped_or_the_file_changed(
    settings: Settings, reads: list[int | None], tmp_path: Path
) -> None:
    path = settings.db_path
    store = Store(path)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    kept = tmp_path / "facts-of-an-earlier-close"
    shutil.copyfile(facts_path(path), kept)

    store = Store(path)
    store.reset_embeddings_for_model("another-model")  # every vector dropped
    store.close()
    assert stamp_path(path).exists() and not facts_path(path).exists()
    check_open(path, reads, expect_read=True)

    shutil.copyfile(kept, facts_path(path))  # the record of another state of the file
    check_open(path, reads, expect_read=True)
    assert facts_path(path).exists()  # that open's close recorded its own
    check_open(path, reads, expect_read=False)


def test_a_reader_uses_the_record_and_leaves_it(
    settings: Settings, reads: list[int | None]
) -> None:
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    before = len(reads)
    reader = Store(settings.db_path, read_only=True)
    try:
        assert not [s for s in reads[before:] if s is None]
        assert reader.embedded_at_open() is not None and reader.count_embedded() > 0
    finally:
        reader.close()
    assert facts_path(settings.db_path).exists()
    check_open(settings.db_path, reads, expect_read=False)


def test_side_files_checked_once_are_not_read_again_until_they_change(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean close notes the side files whose checksum was read (side.arrays.SideChecks):
    the next open maps them without reading every byte again (1M chunks: 1.6 GB from a cold
    disk). A file changed after the close (written in place: another mtime) is read in full
    again, found damaged and rebuilt, and the answers are a fresh build's."""
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    queried(store)  # writes and reads back the three side files
    store.close()
    checksums: list[int] = []
    real = zlib.crc32

    def counted(data: Any, value: int = 0) -> int:
        checksums.append(len(data))
        return real(data, value)

    monkeypatch.setattr(zlib, "crc32", counted)
    record = facts_path(settings.db_path).stat().st_size
    store = Store(settings.db_path)
    first = queried(store)
    assert 0 < sum(checksums) < record  # the record's own; the three side files vouched for
    store.close()
    path = settings.index_dir / "keywords.arrays"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x55
    path.write_bytes(bytes(data))  # same size and inode, another mtime
    store = Store(settings.db_path)
    try:
        assert queried(store) == first
        assert sum(checksums) >= len(data) // 2  # that file was read in full (and rewritten)
        assert KeywordIndex(store, side_files=False).search([1, 2, 3], 5) == (
            KeywordIndex(store).search([1, 2, 3], 5)
        )
    finally:
        store.close()


def queried(store: Store) -> list[Any]:
    """Searches and chunk reads through the side files (keywords, vectors, chunk texts)."""
    service = SearchService(store, HashEmbedder())
    hits = service.search_chunks("battery sensor watch", 10)
    return [(h.cid, h.score) for h in hits] + [store.chunk_details([h.cid for h in hits])]
