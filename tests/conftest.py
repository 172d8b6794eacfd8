"""Shared fixtures: copies of vault_example, real DuckDB files, the real and the fake embedder."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.services.indexer import Indexer
from kbtui.store import Store

REPO = Path(__file__).resolve().parent.parent
VAULT_EXAMPLE = REPO / "vault_example"


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
