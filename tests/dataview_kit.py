"""A vault written in a test, indexed into a real DuckDB file, and Dataview queries over it with
their answers as plain text (what Dataview shows, links by their names)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from kbtui.config import Settings
from kbtui.dataview.engine import list_items
from kbtui.dataview.output import answer
from kbtui.dataview.service import DataviewService
from kbtui.dataview.text import to_string
from kbtui.dataview.values import Link, ListPair
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def write(vault: Path, files: dict[str, str]) -> None:
    for rel, body in files.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


def indexed(vault: Path, files: dict[str, str]) -> tuple[Store, DataviewService]:
    write(vault, files)
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, None).run(embed=False)
    return store, DataviewService(store, vault)


def indexed_vault(vault: Path, files: dict[str, str]) -> Path:
    """The vault written and indexed, its index closed (for commands that open it)."""
    store, _ = indexed(vault, files)
    store.close()
    return vault


def shown(v: Any) -> Any:
    """A value as a reader sees it: a link by its name, lists item by item, the rest as text."""
    if isinstance(v, Link):
        return v.display or v.file_title()
    if isinstance(v, list):
        return [shown(x) for x in v]
    if isinstance(v, ListPair):
        return (shown(v.key), shown(v.value))
    return to_string(v)


class Runner:
    def __init__(self, service: DataviewService, now: datetime | None = None) -> None:
        self.service = service
        self.now = now

    def raw(self, query: str, this: str | None = None) -> Any:
        return self.service.query(query, this, now=self.now)

    def list(self, query: str, this: str | None = None) -> list[Any]:
        _q, result, _b = self.raw(query, this)
        assert result.kind == "list"
        return [shown(x) for x in list_items(result)]

    def table(self, query: str, this: str | None = None) -> tuple[list[str], list[list[Any]]]:
        _q, result, _b = self.raw(query, this)
        assert result.kind == "table"
        rows = [
            [shown(v) for v in ([r.id] if result.show_id else []) + vals]
            for r, vals in zip(result.rows, result.values, strict=True)
        ]
        return result.headers, rows

    def tasks(self, query: str, this: str | None = None) -> list[Any]:
        """Each task as `[status] text`, with the items under it; groups as (key, tasks)."""
        _q, result, _b = self.raw(query, this)
        assert result.kind == "task"
        return _tasks(result.tasks)

    def answer(self, query: str, this: str | None = None) -> dict[str, Any]:
        _q, result, raw = self.raw(query, this)
        return answer(result, raw)


def _tasks(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if "key" in item and "rows" in item and "path" not in item:
            out.append((shown(item["key"]), _tasks(item["rows"])))
            continue
        text = f"[{item['status']}] {item['text']}" if item["task"] else item["text"]
        out.append((text, _tasks(item["children"])) if item["children"] else text)
    return out
