"""The damage check at open (every table read: 300k chunks ~1-3 s of a server's start) is
skipped only for a file exactly as kbtui's last clean close left it. Real DuckDB files; the
crash is a real process that exits without closing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from kbtui.store import Store, db
from kbtui.store.file.clean_close import stamp_path
from tests.conftest import REPO, insert_chunks


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """One entry per run of the damage check."""
    seen: list[object] = []
    real = db.check_tables

    def counted(con: duckdb.DuckDBPyConnection) -> None:
        seen.append(con)
        real(con)

    monkeypatch.setattr(db, "check_tables", counted)
    return seen


def write_rows(path: Path) -> None:
    store = Store(path)
    insert_chunks(store.con, 1000)
    store.close()


def test_a_clean_close_lets_the_next_open_skip_the_check(
    tmp_path: Path, checks: list[object]
) -> None:
    path = tmp_path / "index.duckdb"
    write_rows(path)
    assert stamp_path(path).exists() and len(checks) == 1  # the new file was checked
    store = Store(path)
    assert len(checks) == 1 and not stamp_path(path).exists()  # gone while open for writing
    assert store.con.execute("SELECT count(*) FROM chunks").fetchone() == (1000,)
    store.close()
    reader = Store(path, read_only=True)  # a reader neither needs nor removes the stamp
    assert stamp_path(path).exists()
    reader.close()
    Store(path).close()
    assert len(checks) == 1


def test_a_process_that_never_closed_leaves_no_stamp_and_the_next_open_checks(
    tmp_path: Path, checks: list[object]
) -> None:
    path = tmp_path / "index.duckdb"
    write_rows(path)
    crash = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from kbtui.store import Store
        store = Store(Path({str(path)!r}))
        store.con.execute("DELETE FROM chunks WHERE cid > 500")
        os._exit(0)  # as kill -9 or a power cut would: no close, no checkpoint
    """)
    subprocess.run([sys.executable, "-c", crash], cwd=REPO, check=True)
    assert not stamp_path(path).exists()
    store = Store(path)
    assert len(checks) == 2 and store.con.execute("SELECT count(*) FROM chunks").fetchone() == (
        500,
    )
    store.close()


@pytest.mark.parametrize("how", ["replaced", "cut short"])
def test_a_file_changed_after_a_clean_close_is_checked_and_rebuilt_if_damaged(
    tmp_path: Path, checks: list[object], how: str
) -> None:
    path = tmp_path / "index.duckdb"
    write_rows(path)
    data = path.read_bytes()
    if how == "replaced":  # same size, garbled blocks, written the way editors and copies do
        garbled = bytearray(data)
        for offset in range(12_288, len(garbled), 4096 * 5):
            garbled[offset : offset + 64] = os.urandom(64)
        (tmp_path / "new").write_bytes(bytes(garbled))
        os.replace(tmp_path / "new", path)
    else:
        with path.open("r+b") as f:
            f.truncate(len(data) // 2)
    store = Store(path)
    assert len(checks) == 2 and store.recovered is not None and "was damaged" in store.recovered
    store.close()
