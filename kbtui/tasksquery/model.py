"""A task as a Tasks query sees it: the plugin's reading of its line (kbtui.vault.obsidian.
task_line) with its file, heading, status from the settings, dates (a day, INVALID or None)
and urgency, built from the index's task rows."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kbtui.vault.obsidian.recurrence import read_rule
from kbtui.vault.obsidian.task_line import (
    FIELD_INDEX,
    HASHTAGS,
    PRIORITY_NUMBER,
    UNIT,
    TaskLine,
    in_global_filter,
    parse_line,
    unpack,
    valid_date,
)
from kbtui.vault.obsidian.task_settings import Status, TasksSettings

INVALID = "invalid"  # a date written but not a day, e.g. 2022-02-30
DateValue = dt.date | str | None
DATE_FIELDS = ("created", "start", "scheduled", "due", "cancelled", "done")
Row = tuple[str, int, str, str, str, str]  # path, line, status, text, heading, packed reading


T = TypeVar("T")


class lazy(Generic[T]):
    """functools.cached_property without its lock (Python 3.11 takes one on every read): the
    value is computed on first read and kept in the instance's dict."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn, self.name = fn, fn.__name__

    def __get__(self, obj: Any, owner: Any = None) -> T:
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class QTask:
    """One task of a query. Only its row, status and whether it is done are read up front;
    its line's fields, dates, urgency ... are read the first time a filter, sort or group asks
    (a query that keeps few tasks reads few lines)."""

    def __init__(self, row: Row, status: Status, settings: TasksSettings, today: dt.date) -> None:
        self.path, self.line_number, self.symbol, self.text, heading, self.packed = row
        self.heading: str | None = heading or None
        self.status = status
        self.is_done = status.is_done
        self.settings, self.today = settings, today
        self.keys: dict[str, Any] = {}  # sort keys, computed once
        self.rank = -1  # place in the default order among the tasks a process keeps

    @property
    def row(self) -> dict[str, Any]:
        """The task as tasks_list gives it."""
        return {
            "status": self.symbol,
            "text": self.text,
            "file": self.path,
            "line": self.line_number,
        }

    @lazy
    def line(self) -> TaskLine:
        gf = self.settings.global_filter
        found = in_global_filter(unpack(self.packed), gf, self.text) if self.packed else None
        if found is None:  # a row of an index written before the reading was kept
            found = parse_line(self.text, gf)
        assert found is not None  # make_task kept only tasks the plugin reads
        return found

    @lazy
    def dates(self) -> dict[str, DateValue]:
        return {k: self.date(k) for k in DATE_FIELDS}

    def date(self, key: str) -> DateValue:
        """One date: a day, INVALID or None (scheduled: the file name's day when the task has
        no start, scheduled or due date and the settings ask)."""
        found: dict[str, DateValue] = self.__dict__.setdefault("_dates", {})
        if key in found:
            return found[key]
        value = _date(self.raw(key))
        if key == "scheduled" and value is None and not self.raw("start") and not self.raw("due"):
            value = filename_date(self.path, self.settings)
        found[key] = value
        return value

    @lazy
    def _packed(self) -> list[str]:
        return self.packed.split(UNIT) if self.packed else []

    def raw(self, name: str) -> str:
        """A field as written (a date, the priority ...), read from the index's packed
        reading without building the whole line."""
        packed = self._packed
        return packed[FIELD_INDEX[name]] if packed else str(getattr(self.line, name))

    @lazy
    def recurrence(self) -> str | None:
        """The rule as the plugin spells it; None: not recurring (no rule, an unreadable one,
        or a reference date that is no day)."""
        rule = read_rule(self.line.recurrence) if self.line.recurrence else None
        if rule is None:
            return None
        dates = self.dates
        reference = next((dates[k] for k in ("due", "scheduled", "start") if dates[k]), None)
        return rule.text() if reference != INVALID else None

    @lazy
    def description(self) -> str:
        """Without the global filter, as `description` searches it."""
        gf = self.settings.global_filter
        text = self.line.description
        return text.replace(gf, "", 1).strip() if gf else text

    @lazy
    def shown(self) -> str:
        """The description as results show it (removeGlobalFilter honoured)."""
        gf, text = self.settings.global_filter, self.line.description
        if gf and self.settings.remove_global_filter:
            word = re.compile(r"(^|\s)" + re.escape(gf) + r"($|\s)")
            text = word.sub(r"\1\2", text).replace("  ", " ", 1).strip()
        return text

    @lazy
    def urgency(self) -> float:
        dates = {k: self.date(k) for k in ("due", "scheduled", "start")}
        return urgency(self.raw("priority"), dates, self.today)

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

    @lazy
    def priority_number(self) -> int:
        return PRIORITY_NUMBER[self.raw("priority")]

    @lazy
    def tags_lower(self) -> str:
        """The tags in lower case, one string (a substring test of each tag at once)."""
        return "\x00".join(self.line.tags).lower()

    def happens(self) -> list[DateValue]:
        return [self.date("start"), self.date("scheduled"), self.date("due")]

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


def urgency(priority: str, dates: Any, today: dt.date) -> float:
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
        priority, 0.0
    )
    return score


def make_task(row: Row, settings: TasksSettings, today: dt.date) -> QTask | None:
    """The task of an index row (path, line, status, text, heading, packed reading), or None
    when the plugin does not read it as one (no global filter after its checkbox)."""
    gf, text = settings.global_filter, row[3]
    if gf and gf not in text.partition("]")[2]:
        return None
    if not row[5] and parse_line(text, gf) is None:
        return None
    return QTask(row, settings.status(row[2]), settings, today)


def description_without_tags(task: QTask) -> str:
    return HASHTAGS.sub("", task.line.description).strip()
