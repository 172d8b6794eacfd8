"""What the HNSW side-file tests share: the indexed template, a child process's script."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.vectors.hnsw import HnswSideIndex
from tests.conftest import copy_vault

MODEL = HashEmbedder.model_id
SIDE = "vectors.hnsw.duckdb"


def make_template(folder: Path) -> Path:
    """vault_example indexed with the hash embedder, with a built side file (copied per test)."""
    vault = copy_vault(folder / "vault")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    index = HnswSideIndex(store, settings.index_dir / SIDE, MODEL)
    assert index.open() == "built"
    index.close()
    store.close()
    return vault


def copy_template(template: Path, tmp_path: Path) -> Settings:
    vault = shutil.copytree(template, tmp_path / "vault", symlinks=True)  # copy2 keeps mtimes
    return Settings.for_vault(vault)


def side(store: Store, settings: Settings, **kwargs: int) -> HnswSideIndex:
    return HnswSideIndex(store, settings.index_dir / SIDE, MODEL, **kwargs)


def child_script(settings: Settings, body: str, code: int) -> str:
    """A child process's script: open the store and the side index, run `body`, then die
    (exit `code`) without closing anything."""
    return (
        textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from kbtui.store import Store
        from kbtui.store.vectors.hnsw import HnswSideIndex
        store = Store(Path({str(settings.db_path)!r}))
        index = HnswSideIndex(store, Path({str(settings.index_dir / SIDE)!r}), {MODEL!r})
        """)
        + textwrap.dedent(body)
        + f"\nsys.stdout.flush()\nos._exit({code})\n"
    )
