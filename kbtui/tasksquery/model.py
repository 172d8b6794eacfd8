"""A task as a Tasks query sees it: the plugin's reading of its line (kbtui.vault.obsidian.
task_line) with its file, heading, status from the settings, dates (a day, INVALID or None)
and urgency, built from the index's task rows."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from kbtui.vault.obsidian.recurrence import read_rule
from kbtui.vault.obsidian.task_line import (
    HASHTAGS,
    PRIORITY_NUMBER,
    TaskLine,
    parse_line,
    valid_date,
)
from kbtui.vault.obsidian.task_settings import Status, TasksSettings

INVALID = "invalid"  # a date written but not a day, e.g. 2022-02-30
DateValue = dt.date | str | None
DATE_FIELDS = ("created", "start", "scheduled", "due", "cancelled", "done")


@dataclass
class QTask:
    row: dict[str, Any]  # as tasks_list gives it (file, line, status, text, ...)
    line: TaskLine
    status: Status
    dates: dict[str, DateValue]
    scheduled_inferred: bool
    description: str  # without the global filter, as `description` searches it
    shown: str  # the description as results show it (removeGlobalFilter honoured)
    recurrence: str | None  # the rule as the plugin spells it; None: not recurring
    urgency: float
    path: str
    heading: str | None

    @property
    def is_done(self) -> bool:
        return self.status.is_done

    @property
    def folder(self) -> str:
        head, _, _ = self.path.rpartition("/")
        return head + "/" if head else "/"

    @property
    def root(self) -> str:
        head, sep, _ = self.path.partition("/")
        return head + "/" if sep else "/"

    @property
    def filename(self) -> str:
        return self.path.rpartition("/")[2]

    @property
    def priority_number(self) -> int:
        return PRIORITY_NUMBER[self.line.priority]

    def happens(self) -> list[DateValue]:
        return [self.dates["start"], self.dates["scheduled"], self.dates["due"]]

    def earliest_happens(self) -> dt.date | None:
        days = [d for d in self.happens() if isinstance(d, dt.date)]
        return min(days) if days else None


def _date(text: str) -> DateValue:
    if not text:
        return None
    return valid_date(text) or INVALID


_MOMENT = {"YYYY": r"(?P<y>\d{4})", "MMMM": r"(?P<mn>[A-Za-z]+)", "MMM": r"(?P<mn>[A-Za-z]{3})"}
_MOMENT.update({"MM": r"(?P<m>\d{2})", "DD": r"(?P<d>\d{2})", "M": r"(?P<m>\d{1,2})"})
_MOMENT.update({"D": r"(?P<d>\d{1,2})", "Do": r"(?P<d>\d{1,2})(?:st|nd|rd|th)"})
_MONTH_NAMES = [
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
]


def _moment_format(name: str, fmt: str) -> dt.date | None:
    """`name` read strictly with a moment.js format of YYYY, MM, M, MMM, MMMM, DD, D, Do."""
    pattern, pos = "", 0
    tokens = sorted(_MOMENT, key=len, reverse=True)
    while pos < len(fmt):
        tok = next((t for t in tokens if fmt.startswith(t, pos)), None)
        if tok is None:
            pattern += re.escape(fmt[pos])
            pos += 1
        else:
            pattern += _MOMENT[tok]
            pos += len(tok)
    m = re.fullmatch(pattern, name)
    if m is None:
        return None
    parts = m.groupdict()
    month = int(parts["m"]) if parts.get("m") else 0
    if parts.get("mn"):
        key = parts["mn"][:3].lower()
        month = _MONTH_NAMES.index(key) + 1 if key in _MONTH_NAMES else 0
    try:
        return dt.date(int(parts["y"]), month, int(parts["d"]))
    except (KeyError, TypeError, ValueError):
        return None


def filename_date(path: str, settings: TasksSettings) -> dt.date | None:
    """The plugin's DateFallback.fromPath: the scheduled date a file name implies."""
    if not settings.filename_as_scheduled:
        return None
    if settings.filename_date_folders and not any(
        path.startswith(f + "/") for f in settings.filename_date_folders
    ):
        return None
    base = path.rpartition("/")[2].rpartition(".")[0]
    if settings.filename_date_format:
        found = _moment_format(base, settings.filename_date_format)
        if found is not None:
            return found
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", base) or re.search(r"(\d{4})(\d{2})(\d{2})", base)
    if m is None:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def urgency(line: TaskLine, dates: dict[str, DateValue], today: dt.date) -> float:
    """The plugin's Urgency.calculate."""
    score = 0.0
    due = dates["due"]
    if isinstance(due, dt.date):
        overdue = (today - due).days
        if overdue >= 7:
            mult = 1.0
        elif overdue >= -14:
            mult = (overdue + 14.0) * 0.8 / 21.0 + 0.2
        else:
            mult = 0.2
        score += mult * 12.0
    scheduled, start = dates["scheduled"], dates["start"]
    if isinstance(scheduled, dt.date) and today >= scheduled:
        score += 5.0
    if isinstance(start, dt.date) and today < start:
        score -= 3.0
    score += {"highest": 9.0, "high": 6.0, "medium": 3.9, "": 1.95, "lowest": -1.8}.get(
        line.priority, 0.0
    )
    return score


def make_task(row: dict[str, Any], settings: TasksSettings, today: dt.date) -> QTask | None:
    """The task of an index row, or None when the plugin does not read it as one (no global
    filter on the line)."""
    line = parse_line(row["text"], settings.global_filter)
    if line is None:
        return None
    dates = {k: _date(line.date(k)) for k in DATE_FIELDS}
    inferred = False
    if dates["start"] is None and dates["scheduled"] is None and dates["due"] is None:
        fallback = filename_date(row["file"], settings)
        if fallback is not None:
            dates["scheduled"], inferred = fallback, True
    rule = read_rule(line.recurrence) if line.recurrence else None
    reference = next((dates[k] for k in ("due", "scheduled", "start") if dates[k]), None)
    recurrence = rule.text() if rule is not None and reference != INVALID else None
    description = line.description
    if settings.global_filter:
        description = description.replace(settings.global_filter, "", 1).strip()
    shown = line.description
    if settings.global_filter and settings.remove_global_filter:
        word = re.compile(r"(^|\s)" + re.escape(settings.global_filter) + r"($|\s)")
        shown = word.sub(r"\1\2", shown).replace("  ", " ", 1).strip()
    return QTask(
        row=row,
        shown=shown,
        line=line,
        status=settings.status(line.status),
        dates=dates,
        scheduled_inferred=inferred,
        description=description,
        recurrence=recurrence,
        urgency=urgency(line, dates, today),
        path=row["file"],
        heading=row.get("heading") or None,
    )


def description_without_tags(task: QTask) -> str:
    return HASHTAGS.sub("", task.line.description).strip()
