"""The index file itself: migrations, a second process, a damaged file."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store, StoreError, StoreLockedError, db
from kbtui.store.db import SCHEMA_VERSION, memory_limit
from kbtui.store.file import pool
from kbtui.store.file.clean_close import forget
from tests.conftest import insert_chunks


def test_new_file_gets_the_current_schema_and_reopens(tmp_path: Path) -> None:
    store = Store(tmp_path / "i.duckdb")
    assert store.meta("schema_version") == str(SCHEMA_VERSION)
    store.close()
    again = Store(tmp_path / "i.duckdb")  # migrations do not run twice
    assert again.stats()["notes"] == 0
    again.close()


def test_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    store = Store(tmp_path / "i.duckdb")
    store.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    store.close()
    with pytest.raises(StoreError, match="newer kbtui"):
        Store(tmp_path / "i.duckdb")


def test_index_held_by_another_process_gives_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "i.duckdb"
    Store(db).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('ok', flush=True); "
            "time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ok"
        with pytest.raises(StoreLockedError, match="open in another kbtui process"):
            Store(db)
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    Store(db).close()  # usable again once the holder is gone


def test_garbage_file_is_set_aside_and_a_fresh_index_made(tmp_path: Path) -> None:
    db = tmp_path / "i.duckdb"
    garbage = b"this is not a database" * 1000
    db.write_bytes(garbage)
    with pytest.raises(StoreError, match=r"damaged"):
        Store(db, read_only=True)  # a reader never moves the file
    store = Store(db)
    assert store.note_count() == 0 and store.recovered is not None
    assert "moved to i.duckdb.corrupt-" in store.recovered and "rebuilt" in store.recovered
    store.close()
    (kept,) = tmp_path.glob("i.duckdb.corrupt-*")
    assert kept.read_bytes() == garbage


def test_buffer_pool_is_capped_at_connect_by_the_index_size(tmp_path: Path) -> None:
    """DuckDB keeps up to 80% of RAM of pages it read unless capped; the cap is set once at
    open, from the chunks the file holds (room for the HNSW graph, which counts against it)."""
    path = tmp_path / "index.duckdb"
    store = Store(path)
    limit = store.con.execute("SELECT current_setting('memory_limit')").fetchone()
    assert limit is not None and limit[0] == "256.0 MiB"
    store.close()
    assert memory_limit(0) == "256MiB" and memory_limit(300_000) == "548MiB"


def test_the_damage_check_at_open_leaves_no_table_pages_in_the_pool(tmp_path: Path) -> None:
    """check_tables reads every table at open; under the full cap DuckDB kept every page it
    read (100k chunks: 112 MB), a copy nothing uses. It runs under CHECK_MEMORY, the pages
    it leaves are evicted (under CHECK_MEMORY alone the pool kept ~32 MB), then the cap is
    set as before."""
    path = tmp_path / "index.duckdb"
    store = Store(path)
    insert_chunks(store.con, 200_000, "repeat(md5(i::VARCHAR), 12)")
    store.con.execute("CHECKPOINT")
    store.close()
    forget(path)  # as after a crash: the check runs
    store = Store(path)
    try:
        pages = store.con.execute(
            "SELECT sum(memory_usage_bytes) FROM duckdb_memory() WHERE tag = 'BASE_TABLE'"
        ).fetchone()
        limit = store.con.execute("SELECT current_setting('memory_limit')").fetchone()
        assert pages is not None and pages[0] <= 2 * 2**20, pages  # 20 MB without
        assert limit is not None and limit[0] == f"{memory_limit(200_000)[:-3]}.0 MiB"
    finally:
        store.close()


def test_dropping_the_checks_pages_writes_no_unsaved_data_out(tmp_path: Path) -> None:
    """Rows only in the WAL (a process that did not checkpoint) are in the pool, not the
    file, after the replay at open: evicting them means writing them to temporary files.
    The eviction after the check drops table pages only (a 1 MiB cap wrote the rows out,
    and an index folder another user owned then failed every write)."""
    path = tmp_path / "index.duckdb"
    Store(path).close()
    con = duckdb.connect(str(path))
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    insert_chunks(con, 8000, "repeat(md5(i::VARCHAR), 4)")
    con.close()
    assert path.with_name(path.name + ".wal").stat().st_size > 2**20
    store = Store(path)
    try:
        assert store.con.execute("SELECT * FROM duckdb_temporary_files()").fetchall() == []
        assert store.stats()["chunks"] == 8000
    finally:
        store.close()


def test_an_index_too_big_for_the_checks_cap_still_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of memory under CHECK_MEMORY (it happened with 1M synthetic chunks) is not damage:
    the check runs again under the usual cap and the file is never set aside."""
    path = tmp_path / "index.duckdb"
    store = Store(path)
    insert_chunks(store.con, 100_000)
    store.close()
    monkeypatch.setattr(db, "CHECK_MEMORY", "1MiB")
    store = Store(path)
    try:
        assert store.recovered is None and store.stats()["chunks"] == 100_000
    finally:
        store.close()


def test_the_cap_follows_an_index_that_grows(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first pass over a big vault starts from the cap of an empty index (256 MB): at a
    million chunks a relink ran out of memory there. The cap follows the index's growth, an
    HNSW side file attached or not (changing the cap once its graph is in is harmless:
    tests/test_hnsw.py, test_an_attach_makes_room_for_the_graph_under_a_small_cap)."""
    monkeypatch.setattr(pool, "GROW_MIN", 10)

    def cap(s: Store) -> str:
        row = s.con.execute("SELECT current_setting('memory_limit')").fetchone()
        return str(row[0]) if row else ""

    store = Store(settings.db_path)
    assert cap(store) == "256.0 MiB"
    Indexer(settings, store, None, write_batch=10).run(embed=False)
    chunks = store.stats()["chunks"]
    assert chunks > 100 and cap(store) == f"{memory_limit(store._next_cid)[:-3]}.0 MiB"
    store.close()

    store = Store(tmp_path / "other.duckdb")
    store.con.execute(f"ATTACH '{tmp_path / 'side.duckdb'}' AS kbtui_hnsw_1")
    Indexer(settings, store, None, write_batch=10).run(embed=False)
    assert cap(store) == f"{memory_limit(store._next_cid)[:-3]}.0 MiB"
    store.close()
