"""A vault written in a test, indexed into a real DuckDB file, and its base service."""

from __future__ import annotations

from pathlib import Path

from kbtui.bases.service import BaseService
from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def indexed(vault: Path, files: dict[str, str | bytes] | None = None) -> tuple[Store, BaseService]:
    """Write `files` into `vault`, index it (no model) and return the store and the service."""
    for rel, body in (files or {}).items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, None).run(embed=False)
    return store, BaseService(store, vault)
