"""What a status change writes, as the Tasks plugin writes it (Task.handleNewStatus and
toggleWithRecurrenceInUsersOrder): the task with its new status, a done (cancelled) date set
when it becomes DONE (CANCELLED) and the settings ask and dropped when it leaves that type,
and for a recurring task marked done the next occurrence, above it unless the settings put it
below; `🏁 delete` drops the done one. Without the plugin in the vault, Obsidian's own toggle:
only the status character changes.

A rule or date the plugin cannot read is written back as it was (the plugin drops an
unreadable rule and writes `Invalid date`)."""

from __future__ import annotations

import datetime as dt

from kbtui.vault.obsidian.recurrence import next_dates, read_rule
from kbtui.vault.obsidian.task_line import TaskLine, parse_line, render, valid_date
from kbtui.vault.obsidian.task_settings import Status, TasksSettings


class NotATaskError(ValueError):
    """The line is not a task the plugin reads."""


def _date_of(text: str) -> dt.date | str | None:
    if not text:
        return None
    return valid_date(text) or "invalid"


def obsidian_toggle(line: str, new: str | None) -> list[str]:
    """Obsidian's own checkbox: a space becomes `x`, anything else a space."""
    start = line.index("[") + 1
    old = line[start]
    symbol = new if new is not None else ("x" if old == " " else " ")
    return [line[:start] + symbol + line[start + 1 :]]


def toggled_lines(
    line: str, today: dt.date, settings: TasksSettings, new_symbol: str | None = None
) -> list[str]:
    """The lines that replace `line` when its task is toggled (`new_symbol` None) or given
    the status `new_symbol`. Raises NotATaskError when `line` holds no task."""
    return status_change(line, today, settings, new_symbol)[0]


def status_change(
    line: str, today: dt.date, settings: TasksSettings, new_symbol: str | None = None
) -> tuple[list[str], int | None]:
    """toggled_lines, and which of the lines is the changed task (None: 🏁 delete took it)."""
    if not settings.installed:
        if parse_line(line) is None:
            raise NotATaskError(line)
        return obsidian_toggle(line, new_symbol), 0
    task = parse_line(line, settings.global_filter)
    if task is None:
        if parse_line(line) is None:
            raise NotATaskError(line)
        return obsidian_toggle(line, new_symbol), 0  # no global filter: not the plugin's task
    old = settings.status(task.status)
    new = settings.status(new_symbol) if new_symbol is not None else settings.next_status(old)
    if new == old:
        return [line], 0
    rule = read_rule(task.recurrence) if task.recurrence else None
    rule_text = rule.text() if rule is not None else None
    stamp = today.isoformat()

    def tracked(kind: str, current: str, enabled: bool) -> str:
        if new.type != kind:
            return ""
        if old.type != kind:
            return stamp if enabled else ""
        return current

    done = task.with_fields(
        status=new.symbol,
        done=tracked("DONE", task.done, settings.set_done_date),
        cancelled=tracked("CANCELLED", task.cancelled, settings.set_cancelled_date),
    )
    out = [done]
    if new.type == "DONE" and old.type != "DONE" and rule is not None:
        nxt = _next_task(task, new, rule_text or "", today, settings)
        if nxt is not None:
            out = [nxt, done]
    if task.on_completion == "delete" and new.type == "DONE" and old.type != "DONE":
        out = [t for t in out if t is not done]
    if settings.recurrence_on_next_line:
        out.reverse()
    at = next((i for i, t in enumerate(out) if t is done), None)
    return [render(t, rule_text) for t in out], at


def _next_task(
    task: TaskLine, new: Status, rule_text: str, today: dt.date, settings: TasksSettings
) -> TaskLine | None:
    rule = read_rule(task.recurrence)
    if rule is None:
        return None
    dates = {k: _date_of(task.date(k)) for k in ("start", "scheduled", "due")}
    drop = settings.remove_scheduled_date_on_recurrence
    found = next_dates(rule, dates, today, start_before_scheduled=drop, drop_scheduled=drop)
    if found is None:
        return None
    iso = {k: (v.isoformat() if v else "") for k, v in found.items()}
    return task.with_fields(
        status=settings.next_recurrence_status(new).symbol,
        start=iso["start"],
        scheduled=iso["scheduled"],
        due=iso["due"],
        done="",
        cancelled="",
        created=today.isoformat() if settings.set_created_date else "",
        block_link="",
        id="",
        depends_on=(),
    )
