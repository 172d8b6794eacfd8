"""app_tasks_query: a Tasks-plugin query (a ```tasks block's text) over the vault's tasks,
answered as the plugin answers it (kbtui.tasksquery): the tasks in result order with their
groups, the count before limits, the layout asked, and markdown as the plugin draws it."""

from __future__ import annotations

import datetime as dt
import json
import threading
from typing import Any

from kbtui.tasksquery.filters import QueryError
from kbtui.tasksquery.model import QTask, make_task
from kbtui.tasksquery.query import read_query, run_query
from kbtui.tasksquery.render import markdown, rows
from kbtui.tools.envelope import ValidationError, ok
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.vault.obsidian.task_settings import TasksSettings, load_settings

_LOCK = threading.Lock()
# vault -> (settings, today, {(file, line, text, heading): task or None}): a task's reading
# depends only on its row, the settings and the day, so a query parses only changed rows.
_CACHE: dict[str, tuple[TasksSettings, dt.date, dict[tuple[Any, ...], QTask | None]]] = {}


def _tasks(parts: VaultParts, settings: TasksSettings, today: dt.date) -> list[QTask]:
    found, _ = parts.store.tasks()
    key = str(parts.settings.vault)
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is None or cached[0] != settings or cached[1] != today:
            cached = (settings, today, {})
            _CACHE[key] = cached
        memo = cached[2]
        if len(memo) > 2 * len(found) + 1000:
            memo.clear()
    out: list[QTask] = []
    for row in found:
        k = (row["file"], row["line"], row["text"], row["heading"])
        task = memo.get(k, False)
        if task is False:
            task = make_task(row, settings, today)
            memo[k] = task
        if task is not None:
            out.append(task)  # type: ignore[arg-type]
    return out


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
    result = run_query(query, _tasks(parts, settings, today), today)
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
    shown = f"{result.shown} of {result.total}" if result.shown != result.total else result.total
    return ok(**answer, message=f"{shown} task(s)")
