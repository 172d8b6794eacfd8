"""app_tasks_query: a Tasks-plugin query (a ```tasks block's text) over the vault's tasks,
answered as the plugin answers it (kbtui.tasksquery): the tasks in result order with their
groups, the count before limits, the layout asked, and markdown as the plugin draws it."""

from __future__ import annotations

import datetime as dt
import gc
import json
import threading
from dataclasses import dataclass
from typing import Any

from kbtui.memory import gc_paused
from kbtui.tasksquery.filters import QueryError
from kbtui.tasksquery.model import QTask, Row, make_task
from kbtui.tasksquery.order import rank_tasks
from kbtui.tasksquery.query import read_query, run_query
from kbtui.tasksquery.render import markdown, rows
from kbtui.tools.envelope import ValidationError, ok
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.vault.obsidian.task_settings import TasksSettings, load_settings

_LOCK = threading.Lock()


@dataclass
class _Read:
    """A vault's tasks as last read: a task's reading depends only on its row, the settings and
    the day, so a query re-reads the index only after a write (the store's generation) and
    parses only rows it has not seen."""

    settings: TasksSettings
    today: dt.date
    generation: int
    memo: dict[Row, QTask | None]
    tasks: list[QTask]
    ranked: bool = False


_CACHE: dict[str, _Read] = {}
_SEEN: set[str] = set()


def _tasks(
    parts: VaultParts, settings: TasksSettings, today: dt.date, types: frozenset[str] | None
) -> tuple[list[QTask], bool]:
    """The vault's tasks; `types`: the status types the query keeps, so a process's first
    query (a fresh CLI) reads only those rows from the index."""
    key = str(parts.settings.vault)
    generation = parts.store.generation  # read before the rows: a later write re-reads
    with _LOCK:
        last = _CACHE.get(key)
    same = last is not None and last.settings == settings and last.today == today
    if last is not None and same and last.generation == generation:
        if not last.ranked:  # asked twice: worth numbering every task in the default order
            rank_tasks(last.tasks)
            last.ranked = True
        return last.tasks, True
    if last is None and types is not None and key not in _SEEN:  # a first query: its rows
        _SEEN.add(key)  # only, nothing kept (a second query reads and keeps them all)
        symbols, exclude = settings.symbols_of(types)
        rows = parts.store.task_rows(symbols, exclude)
        return [t for t in (make_task(r, settings, today) for r in rows) if t is not None], False
    memo = last.memo if last is not None and same else {}
    gc.unfreeze()  # what the last freeze kept may be garbage now: collectable again
    found = parts.store.task_rows()
    if len(memo) > 2 * len(found) + 1000:
        memo = {}
    out: list[QTask] = []
    for row in found:
        task = memo.get(row, False)
        if task is False:
            task = memo[row] = make_task(row, settings, today)
        if task is not None:
            out.append(task)  # type: ignore[arg-type]
    with _LOCK:
        _CACHE[key] = _Read(settings, today, generation, memo, out)
    gc.freeze()  # kept, acyclic: out of the collector's full scans (as dataview's held pages)
    return out, False


def _today(raw: str | None) -> dt.date:
    if not raw:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(raw)
    except ValueError as exc:
        raise ValidationError(f"today {raw!r} is not a date (YYYY-MM-DD)", "today") from exc


def tasks_query(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    today = _today(args.get("today"))
    settings = load_settings(parts.settings.vault)
    this = resolve_note(parts, args["this"], "this") if args.get("this") else None
    props: dict[str, Any] = {}
    if this is not None:
        for _, raw in parts.store.frontmatters(this):
            loaded = json.loads(raw) if raw else {}
            props = loaded if isinstance(loaded, dict) else {}
    try:
        query = read_query(args["query"], settings, today, this, props)
    except QueryError as exc:
        raise ValidationError(f"Tasks query: {exc}", "query") from exc
    blocking = any("block" in text.lower() for text, _ in query.filters)  # needs every task
    types = None if blocking else query.types
    with gc_paused():
        tasks, ranked = _tasks(parts, settings, today, types)
        result = run_query(query, tasks, today, ranked)
        found = rows(result)
    answer: dict[str, Any] = {
        "results": found,
        "count": len(found),
        "total": result.total,
        "groups": [list(names) for names, _ in result.groups if names],
        "layout": query.layout.answer(),
    }
    if args.get("markdown"):
        answer["markdown"] = markdown(result, query.layout)
    if query.notes:  # words of a line no date was read from: answered as the plugin reads it
        answer["warnings"] = query.notes
    shown = f"{result.shown} of {result.total}" if result.shown != result.total else result.total
    return ok(**answer, message=f"{shown} task(s)")
