"""Shared fixtures: copies of vault_example, real DuckDB files, the real and the fake embedder."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from kbtui.config import Settings
from kbtui.embed import Embedder, FastEmbedder, HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store

# A pytest-xdist worker starts with COLUMNS=80 in its environment, which a plain run does not
# have: the CLI (and Rich) would wrap messages at 80 columns, unlike a pipe or a file. The
# tests read the CLI as a plain run or a pipe does; those that want a width set their own.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

REPO = Path(__file__).resolve().parent.parent
VAULT_EXAMPLE = REPO / "vault_example"
MULTILINGUAL_NOTES = REPO / "bench" / "multilingual_notes.jsonl"


def insert_chunks(
    con: duckdb.DuckDBPyConnection, count: int, content: str = "md5(i::VARCHAR)"
) -> None:
    """Chunks 1..count (one note id each, no vector) written by SQL: the tables of a big index
    without indexing notes. `content` is an SQL expression of the chunk number `i`."""
    con.execute(
        f"""INSERT INTO chunks (cid, chunk_id, entity_id, chunk_index, heading, content,
               start_pos, end_pos, content_hash, n_terms)
            SELECT i, 'n' || i, 'n' || i, 0, '', {content}, 0, 0, md5(i::VARCHAR), 1
            FROM range(1, {int(count) + 1}) t(i)"""
    )


def write_notes_in(vault: Path, lang: str) -> Path:
    """`vault` with the multilingual set's notes in `lang` at its top (issue 43's set,
    bench/multilingual_notes.jsonl, written for this project)."""
    vault.mkdir(parents=True, exist_ok=True)
    for line in MULTILINGUAL_NOTES.read_text(encoding="utf-8").splitlines():
        note = json.loads(line)
        if note["lang"] == lang:
            (vault / f"{note['title']}.md").write_text(f"# {note['title']}\n\n{note['text']}\n")
    return vault


def copy_vault(dest: Path, source: Path = VAULT_EXAMPLE) -> Path:
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".kbtui"), symlinks=True)
    return dest


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of vault_example (tests may edit it)."""
    return copy_vault(tmp_path / "vault")


@pytest.fixture
def settings(vault: Path) -> Settings:
    return Settings.for_vault(vault)


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = Store(settings.db_path)
    yield s
    s.close()


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture(scope="session")
def real_embedder() -> FastEmbedder:
    embedder = FastEmbedder()
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def indexed_example(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Settings:
    """vault_example indexed once with the real model; treat as read-only."""
    vault = copy_vault(tmp_path_factory.mktemp("indexed") / "vault")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, real_embedder).run()
    store.close()
    return settings


# -- the TUI's vaults: vault_example indexed once per session (hash embedder: fast and
# deterministic), copied with its index per test, served by a real VaultRuntime ------------
def copy_indexed(source: Path, dest: Path) -> Path:
    """A vault together with its index; file times are kept, so nothing is re-read."""
    shutil.copytree(source, dest, symlinks=True)
    return dest


def open_runtime(vault: Path, embedder: Embedder) -> VaultRuntime:
    """A runtime as the TUI gets one, its first pass done (status reads `idle`)."""
    runtime = VaultRuntime(Settings.for_vault(vault), embedder, watch=False)
    runtime.start()
    assert runtime.worker.wait_idle(60)
    return runtime


@pytest.fixture(scope="session")
def tui_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """vault_example with its index (hash embedder); copied, never used directly."""
    vault = copy_vault(tmp_path_factory.mktemp("tui_template") / "vault")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    return vault


@pytest.fixture
def tui_vault(tmp_path: Path, tui_template: Path) -> Path:
    return copy_indexed(tui_template, tmp_path / "vault")


@pytest.fixture
def runtime(tui_vault: Path) -> Iterator[VaultRuntime]:
    rt = open_runtime(tui_vault, HashEmbedder())
    yield rt
    rt.close()


@pytest.fixture
def real_runtime(
    tmp_path: Path, indexed_example: Settings, real_embedder: FastEmbedder
) -> Iterator[VaultRuntime]:
    """vault_example indexed with the real model (a private copy of the session's)."""
    rt = open_runtime(copy_indexed(indexed_example.vault, tmp_path / "vault"), real_embedder)
    yield rt
    rt.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `slow` (the long variants of bench runs) run only when asked for with
    `-m slow`: the README's test command stays within its time."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
