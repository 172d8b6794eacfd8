"""kb_search and kb_get know the vault's bases: "books base" finds `Books.base`, whose id
(`base:books`) kb_get opens as the base's YAML and views. Bases are not notes (no chunks, no
entity in the graph); they match by name, when the query says "base"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kbtui.bases.errors import BaseError
from kbtui.bases.service import base_id
from kbtui.bases.syntax import read_base
from kbtui.store import Store

_WORDS = re.compile(r"\w+")
BASE_WORDS = frozenset({"base", "bases"})


def _bases(store: Store) -> list[str]:
    return [p for p, *_ in store.vault_file_rows() if p.lower().endswith(".base")]


def base_hits(store: Store, vault: Path, query: str, folder: str | None) -> list[dict[str, Any]]:
    """kb_search results for the bases a query names ("books base", "Books.base")."""
    words = {w.lower() for w in _WORDS.findall(query)}
    if not words & BASE_WORDS:
        return []
    wanted = words - BASE_WORDS
    hits = []
    for path in _bases(store):
        if folder and not path.startswith(folder.strip("/") + "/"):
            continue
        name = path.rsplit("/", 1)[-1].removesuffix(".base")
        name_words = {w.lower() for w in _WORDS.findall(name)}
        if not name_words or not name_words <= wanted | {"base"}:
            continue
        # the share of the query's words its name says: "books base" names Books.base in full
        score = len(name_words & wanted) / len(wanted) if wanted else 1.0
        hits.append({
            "id": base_id(path), "type": "base", "title": f"{name}.base",
            "snippet": _views_line(vault, path), "score": score, "source_type": "kb_document",
            "metadata": {"file_path": path, "tool": "base_query"},
        })  # fmt: skip
    return hits


def _views_line(vault: Path, path: str) -> str:
    try:
        views = read_base((vault / path).read_text(encoding="utf-8")).views
    except (OSError, BaseError) as exc:
        return f"Obsidian base that cannot be read: {exc}"[:200]
    names = ", ".join(f"{v.name} ({v.type})" for v in views)
    return f"Obsidian base; views: {names}"[:200]  # neutral: each front end says how to run it


def base_document(store: Store, vault: Path, entity_id: str) -> dict[str, Any] | None:
    """kb_get's answer for a base id: its YAML as content, its views in metadata."""
    for path in _bases(store):
        if base_id(path) == entity_id:
            try:
                text = (vault / path).read_text(encoding="utf-8")
            except OSError:
                return None
            name = path.rsplit("/", 1)[-1].removesuffix(".base")
            return {"id": entity_id, "type": "base", "title": f"{name}.base", "content": text,
                    "metadata": {"file_path": path, "views": _views_line(vault, path)},
                    "chunks_count": 0}  # fmt: skip
    return None
