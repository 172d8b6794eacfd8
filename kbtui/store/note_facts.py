"""The rows a note adds beside its chunks: tags (lower case, and as written), links (with
their key and form), tasks and what Dataview reads (dv_pages, dv_items).
Kept apart from db.py so each table's columns are in one place."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from kbtui.models import NoteWrite, ParsedNote
from kbtui.store.graph.links import link_rows

FACT_TABLES = ("tags", "file_tags", "links", "tasks", "dv_pages", "dv_items")  # keyed by entity_id
_TASK_FIELDS = ("line", "status", "text", "due", "scheduled", "start", "done", "priority")
_ITEM_FIELDS = ("line", "parent", "list_line", "symbol", "text", "line_count", "section",
                "block_id", "fields", "links")  # fmt: skip
_ITEM_DATES = ("due", "completion", "created", "start", "scheduled")
_ITEM_SELECT = ("e, line, parent, list_line, symbol, CASE WHEN has_status = 1 THEN status END, "
                "text, line_count, section, block_id, fields, tags, links, due, completion, "
                "created, start, scheduled")  # fmt: skip


def insert_facts(bulk_insert: Callable[..., None], batch: Sequence[NoteWrite]) -> None:
    """Insert the tags, links and tasks of `batch` (their old rows are already gone)."""
    tags = [(w.note.entity_id, t) for w in batch for t in w.note.tags]
    bulk_insert("tags", {"e": [t[0] for t in tags], "t": [t[1] for t in tags]})
    written = [
        (w.note.entity_id, i, t, u)
        for w in batch
        for i, (t, u) in enumerate(zip(w.note.file_tags, _uses(w.note), strict=True))
    ]
    bulk_insert("file_tags", {k: [t[i] for t in written] for i, k in enumerate("eptu")})
    links = link_rows(batch)
    names = ("e", "t", "r", "h", "l", "k", "f", "v")
    bulk_insert("links", {k: [lk[i] for lk in links] for i, k in enumerate(names)})
    tasks = [(w.note.entity_id, t) for w in batch for t in w.note.tasks]
    columns: dict[str, Any] = {"e": [e for e, _ in tasks]}
    for name in (*_TASK_FIELDS, "recurrence", "heading", "plugin"):
        columns[name] = [getattr(t, name) for _, t in tasks]
    bulk_insert("tasks", columns)
    pages = [(w.note.entity_id, w.note.dataview) for w in batch if w.note.dataview is not None]
    bulk_insert(
        "dv_pages",
        {
            "e": [e for e, _ in pages],
            "f": [p.fields for _, p in pages],
            "t": [json.dumps(list(p.tags), ensure_ascii=False) for _, p in pages],
            "d": [p.day or "" for _, p in pages],
        },
        select="e, f, t, nullif(d, '')",
    )
    items = [(e, it) for e, p in pages for it in p.items]
    cols: dict[str, Any] = {"e": [e for e, _ in items]}
    for name in _ITEM_FIELDS:
        cols[name] = [getattr(it, name) for _, it in items]
    cols["status"] = [it.status if it.status is not None else "" for _, it in items]
    cols["has_status"] = [int(it.status is not None) for _, it in items]
    cols["tags"] = [json.dumps(list(it.tags), ensure_ascii=False) for _, it in items]
    for n, name in enumerate(_ITEM_DATES):
        cols[name] = [it.dates[n] for _, it in items]
    bulk_insert("dv_items", cols, select=_ITEM_SELECT)


def _uses(note: ParsedNote) -> tuple[int, ...]:
    """How often each written tag occurs (once each for a note made without counts)."""
    tags, uses = note.file_tags, note.tag_uses
    return uses if len(uses) == len(tags) else (1,) * len(tags)
