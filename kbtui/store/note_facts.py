"""The rows a note adds beside its chunks: tags (lower case, and as written), links (with
their key and form) and tasks.
Kept apart from db.py so each table's columns are in one place."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kbtui.models import NoteWrite
from kbtui.store.graph.links import link_rows

FACT_TABLES = ("tags", "file_tags", "links", "tasks")  # every row keyed by entity_id
_TASK_FIELDS = ("line", "status", "text", "due", "scheduled", "start", "done", "priority")


def insert_facts(
    bulk_insert: Callable[[str, dict[str, Any]], None], batch: Sequence[NoteWrite]
) -> None:
    """Insert the tags, links and tasks of `batch` (their old rows are already gone)."""
    tags = [(w.note.entity_id, t) for w in batch for t in w.note.tags]
    bulk_insert("tags", {"e": [t[0] for t in tags], "t": [t[1] for t in tags]})
    written = [(w.note.entity_id, i, t) for w in batch for i, t in enumerate(w.note.file_tags)]
    bulk_insert("file_tags", {k: [t[i] for t in written] for i, k in enumerate("ept")})
    links = link_rows(batch)
    names = ("e", "t", "r", "h", "l", "k", "f", "v")
    bulk_insert("links", {k: [lk[i] for lk in links] for i, k in enumerate(names)})
    tasks = [(w.note.entity_id, t) for w in batch for t in w.note.tasks]
    columns: dict[str, Any] = {"e": [e for e, _ in tasks]}
    for name in (*_TASK_FIELDS, "recurrence", "heading", "plugin"):
        columns[name] = [getattr(t, name) for _, t in tasks]
    bulk_insert("tasks", columns)
