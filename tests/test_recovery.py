"""A damaged or missing index file is noticed at open, set aside and rebuilt from the vault:
the user reads one clear line, never a traceback, and the rebuilt index equals a fresh one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.file.verify import Snapshot
from tests.conftest import REPO, VAULT_EXAMPLE, copy_indexed, open_runtime
from tests.test_mcp import Mcp, open_session


def _garble_blocks(data: bytes) -> bytes:
    out = bytearray(data)
    for offset in range(12_288, len(out), 4096 * 5):
        out[offset : offset + 64] = os.urandom(64)
    return bytes(out)


DAMAGE: dict[str, Callable[[bytes], bytes | None]] = {
    "truncated to half": lambda d: d[: len(d) // 2],
    "empty file": lambda d: b"",
    "random bytes": lambda d: os.urandom(len(d)),
    "header overwritten": lambda d: os.urandom(4096) + d[4096:],
    "blocks overwritten": _garble_blocks,
    "deleted": lambda d: None,
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Snapshot]:
    vault = tmp_path_factory.mktemp("recovery") / "vault"
    shutil.copytree(VAULT_EXAMPLE, vault, ignore=shutil.ignore_patterns(".kbtui"))
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    snap = store.snapshot()
    store.close()
    return vault, snap


def damage(vault: Path, how: str) -> Path:
    db = Settings.for_vault(vault).db_path
    new = DAMAGE[how](db.read_bytes())
    if new is None:
        db.unlink()
    else:
        db.write_bytes(new)
    return db


def reopen_and_index(vault: Path) -> tuple[str | None, int, Snapshot]:
    """What the next start does: open the index (recovering it), then an indexing pass."""
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        report = Indexer(settings, store, HashEmbedder()).run()
        return store.recovered, len(report.new), store.snapshot()
    finally:
        store.close()


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_a_damaged_index_is_set_aside_and_rebuilt(
    tmp_path: Path, indexed: tuple[Path, Snapshot], how: str
) -> None:
    vault = copy_indexed(indexed[0], tmp_path / "vault")
    db = damage(vault, how)
    recovered, new, snap = reopen_and_index(vault)
    if how == "deleted":
        assert recovered is None
    else:
        assert recovered is not None and "was damaged" in recovered
        (kept,) = db.parent.glob("index.duckdb.corrupt-*")
        assert kept.name in recovered
    assert new == 64 and snap.differences(indexed[1]) == []


def test_an_index_deleted_under_its_wal_is_rebuilt(
    tmp_path: Path, indexed: tuple[Path, Snapshot]
) -> None:
    vault = copy_indexed(indexed[0], tmp_path / "vault")
    db = Settings.for_vault(vault).db_path
    db.with_name(db.name + ".wal").write_bytes(os.urandom(3000))  # a WAL left by a crash
    db.unlink()
    _, new, snap = reopen_and_index(vault)
    assert new == 64 and snap.differences(indexed[1]) == []


def test_kbtui_index_says_it_rebuilds_a_damaged_index(
    tmp_path: Path, indexed: tuple[Path, Snapshot]
) -> None:
    vault = copy_indexed(indexed[0], tmp_path / "vault")
    damage(vault, "blocks overwritten")
    proc = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", "index", "--no-embed", "--vault", str(vault)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "was damaged" in proc.stderr, proc.stderr
    assert "new 64" in proc.stdout


def test_kbtui_mcp_serves_after_rebuilding_a_damaged_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for folder in ("people", "projects"):
        shutil.copytree(VAULT_EXAMPLE / folder, vault / folder)
    db = Settings.for_vault(vault).db_path
    db.parent.mkdir()
    db.write_bytes(b"DUCK" + os.urandom(50_000))
    log = tmp_path / "server.log"
    with (
        log.open("w") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(open_session(vault, errlog)) as session,
    ):
        mcp = Mcp(portal, session, vault)
        assert mcp.wait_for(lambda: mcp.call("kb_get", {"id": "person:andrei_clodius"})["ok"], 60)
    text = log.read_text()
    assert "was damaged" in text and "rebuilt from the vault" in text
    assert "Traceback" not in text


def test_the_runtime_status_says_the_index_was_rebuilt(
    tmp_path: Path, indexed: tuple[Path, Snapshot]
) -> None:
    """What the TUI shows (a notification) and the MCP status resource carries."""
    vault = copy_indexed(indexed[0], tmp_path / "vault")
    damage(vault, "header overwritten")
    runtime = open_runtime(vault, HashEmbedder())
    try:
        status = runtime.status()
        assert "was damaged" in status["recovered"] and status["stats"]["notes"] == 64
    finally:
        runtime.close()
