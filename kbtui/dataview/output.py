"""A query's answer for the front ends: JSON rows keyed by column header (TASK: tasks as
`kbtui tasks --format json` prints them), the vault paths in result order, and Markdown as
Dataview's own export writes it.

The Markdown follows blacksmithgu/obsidian-dataview (MIT), src/ui/export/markdown.ts
(`markdownTable`, `markdownList`, `markdownTaskList`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kbtui.dataview.engine import Result, list_items
from kbtui.dataview.text import human_duration, link_markdown, to_string
from kbtui.dataview.values import Duration, Link, ListPair


def to_json(v: Any) -> Any:
    """A plain JSON value: dates as ISO text, durations as words, links as `[[path|name]]`."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else (int(v) if v.is_integer() else v)
    if isinstance(v, datetime):
        if v.hour == v.minute == v.second == v.microsecond == 0 and v.tzinfo is None:
            return v.strftime("%Y-%m-%d")
        return v.isoformat(timespec="milliseconds" if v.microsecond else "seconds")
    if isinstance(v, Duration):
        return human_duration(v)
    if isinstance(v, Link):
        return link_markdown(v)
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {str(k): to_json(x) for k, x in v.items()}
    if isinstance(v, ListPair):
        return {"key": to_json(v.key), "value": to_json(v.value)}
    return to_string(v)


def answer(
    result: Result, raw: Mapping[tuple[str, int], str], markdown: bool = True
) -> dict[str, Any]:
    """What the tool returns for one query; `raw`: tasks' lines as written, by (path, line);
    `markdown`: with Dataview's Markdown export (a third of a 7k-task answer's time)."""
    out: dict[str, Any] = {"type": result.kind, "columns": result.headers}
    if result.kind == "task":
        tasks = _task_objects(result.tasks, raw, [])
        out["rows"] = tasks
        out["paths"] = list(dict.fromkeys(_task_refs(tasks)))
        if markdown:
            out["markdown"] = task_markdown(result.tasks)
        out["count"] = _count(result.tasks)
        return out
    rows = []
    for row, values in zip(result.rows, result.values, strict=True):
        shown = ([row.id] if result.show_id else []) + values
        names = result.headers if result.kind == "table" else _list_names(result, values)
        rows.append({name: to_json(v) for name, v in zip(names, shown, strict=True)})
    out["rows"] = rows
    if result.kind == "list":
        out["columns"] = _list_names(result, result.values[0] if result.values else [None])
        if markdown:
            out["markdown"] = list_markdown(list_items(result))
    elif markdown:
        out["markdown"] = table_markdown(result.headers, [
            ([r.id] if result.show_id else []) + v for r, v in zip(result.rows, result.values,
                                                                    strict=True)])  # fmt: skip
    out["paths"] = list(dict.fromkeys(p for r in result.rows for p, _ in r.sources))
    # each row's notes (a group's several): what opening a row in the TUI opens
    out["rowPaths"] = [list(dict.fromkeys(p for p, _ in r.sources)) for r in result.rows]
    out["count"] = len(rows)
    return out


def _list_names(result: Result, values: list[Any]) -> list[str]:
    return ([result.id_name] if result.show_id or not values else []) + (
        ["value"] if values else []
    )


def _count(tasks: Any) -> int:
    if _is_groups(tasks):
        return sum(_count(g["rows"]) for g in tasks)
    return len(tasks)


def _task_objects(
    tasks: Any, raw: Mapping[tuple[str, int], str], group: list[Any]
) -> list[dict[str, Any]]:
    if _is_groups(tasks):
        out = []
        for g in tasks:
            out += _task_objects(g["rows"], raw, [*group, g["key"]])
        return out
    return [_task_object(t, raw, group) for t in tasks]


def _task_object(
    item: dict[str, Any], raw: Mapping[tuple[str, int], str], group: list[Any]
) -> dict[str, Any]:
    path, line = item["path"], item["line"]
    line_text = raw.get((path, line)) or f"{item['symbol']} {item['text'].split(chr(10))[0]}"
    obj: dict[str, Any] = {}
    if item["task"]:
        obj["status"] = item["status"]
    obj.update({"text": line_text, "file": path, "line": str(line + 1)})
    if group:
        obj["group"] = to_string(group[0]) if len(group) == 1 else [to_string(g) for g in group]
    children = [_task_object(c, raw, []) for c in item["children"]]
    if children:
        obj["children"] = children
    return obj


def _task_refs(tasks: list[dict[str, Any]]) -> list[str]:
    out = []
    for t in tasks:
        if "status" in t:
            out.append(f"{t['file']}:{t['line']}")
        out += _task_refs(t.get("children", []))
    return out


# -- Markdown, as Dataview exports it ------------------------------------------------------
def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _cell(v: Any) -> str:
    if isinstance(v, list):
        return "<ul>" + "".join(f"<li>{_escape(_cell(x))}</li>" for x in v) + "</ul>"
    if isinstance(v, dict):
        inner = "".join(f"<li><b>{_escape(str(k))}</b>: {_escape(_cell(x))}</li>"
                        for k, x in v.items())  # fmt: skip
        return f"<ul>{inner}</ul>"
    return to_string(v)


def table_markdown(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[_escape(_cell(v)) for v in row] for row in rows]
    widths = [len(_escape(h)) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    lines = ["| " + " | ".join(_escape(h).ljust(w) for h, w in zip(headers, widths, strict=True))
             + " |", "| " + " | ".join("-" * w for w in widths) + " |"]  # fmt: skip
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
              for row in cells]  # fmt: skip
    return "\n".join(lines) + "\n"


def list_markdown(values: list[Any], depth: int = 0) -> str:
    out = ""
    for value in values:
        out += "    " * depth + "- " + _list_item(value, depth) + "\n"
    return out


def _list_item(value: Any, depth: int) -> str:
    if isinstance(value, list):
        return "\n" + list_markdown(value, depth + 1).rstrip("\n")
    if isinstance(value, dict):
        inner = "".join(f"{'    ' * (depth + 1)}- {k}: {_list_item(v, depth + 1)}\n"
                        for k, v in value.items())  # fmt: skip
        return "\n" + inner.rstrip("\n")
    if isinstance(value, ListPair):
        return f"{to_string(value.key)}: {_list_item(value.value, depth)}"
    return to_string(value)


def _is_groups(tasks: Any) -> bool:
    return bool(tasks) and "key" in tasks[0] and "rows" in tasks[0] and "path" not in tasks[0]


def task_markdown(tasks: Any, depth: int = 0, indent: int = 0) -> str:
    """Groups as headings (`#` per level), tasks as a task list, sub-items indented."""
    if _is_groups(tasks):
        return "".join(
            "#" * (depth + 1) + " " + to_string(g["key"]) + "\n\n"
            + task_markdown(g["rows"], depth + 1) + "\n"
            for g in tasks
        )  # fmt: skip
    out = ""
    for item in tasks:
        text = item["text"].replace("\n", " ")
        box = f"[{item['status']}] " if item["task"] else ""
        out += "    " * indent + f"- {box}{text}\n"
        out += task_markdown(item["children"], depth, indent + 1)
    return out
