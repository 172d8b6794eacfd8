"""A query's results in the shapes kbtui prints: task rows (as `kbtui tasks --format json`
gives them, with their group), and markdown as the plugin draws the results: group headings
(h4, h5, h6 when the name changes), each task with the parts hide/show and short mode leave,
its backlink, and the task count."""

from __future__ import annotations

from typing import Any

from kbtui.tasksquery.model import QTask
from kbtui.tasksquery.order import shown_name
from kbtui.tasksquery.query import Layout, Result
from kbtui.vault.obsidian.task_line import HASHTAGS, PRIORITY_SYMBOL, SYMBOLS

ROW_FIELDS = ("status", "text", "file", "line")


def rows(result: Result) -> list[dict[str, Any]]:
    """Each task (once a group it shows in) with `group` when the query groups."""
    out: list[dict[str, Any]] = []
    for names, tasks in result.groups:
        group = [shown_name(n) for n in names]
        for t in tasks:
            row = t.row
            if names:
                row["group"] = group
            out.append(row)
    return out


def _parts(t: QTask, layout: Layout) -> str:
    line, short, hidden = t.line, layout.short, layout.hidden
    text = t.shown
    if "tags" in hidden:
        text = HASHTAGS.sub(lambda m: m.group(1), text).strip()
    out = [text]

    def add(part: str, symbol: str, value: str) -> None:
        if value and part not in hidden:
            out.append(symbol if short else f"{symbol} {value}")

    add("id", "🆔", line.id)
    add("depends on", "⛔", ",".join(line.depends_on))
    if line.priority and "priority" not in hidden:
        out.append(PRIORITY_SYMBOL[line.priority])
    add("recurrence rule", "🔁", t.recurrence or "")
    add("on completion", "🏁", line.on_completion)
    for key in ("created", "start", "scheduled", "due", "cancelled", "done"):
        add(f"{key} date", SYMBOLS[key], line.date(key) or "")
    return " ".join(out)


def task_count(shown: int, total: int) -> str:
    noun = "task" if total == 1 else "tasks"
    return f"{shown} of {total} {noun}" if shown != total else f"{total} {noun}"


def markdown(result: Result, layout: Layout) -> str:
    lines: list[str] = []
    last: list[str] = []
    for names, tasks in result.groups:
        for level, name in enumerate(names):
            if level >= len(last) or last[level] != name:
                lines.append(f"{'#' * min(4 + level, 6)} {shown_name(name)}")
                if layout.shown["group count"] and level == len(names) - 1:
                    lines[-1] += f" ({len(tasks)})"
                last = [*last[:level], name]
        for t in tasks:
            text = f"- [{t.line.status}] {_parts(t, layout)}"
            if layout.shown["urgency"]:
                text = f"- [{t.line.status}] {t.urgency:.2f} {_parts(t, layout)}"
            if layout.shown["backlink"]:
                name = t.filename.rsplit(".", 1)[0]
                text += f" ({name} > {t.heading})" if t.heading else f" ({name})"
            lines.append(text)
    if layout.shown["task count"]:
        lines.append("")
        lines.append(task_count(result.shown, result.total))
    return "\n".join(lines)
