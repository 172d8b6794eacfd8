"""`sort by` and `group by` as the plugin's fields sort and group: each sorter is a key
(ascending as the plugin's comparator orders) and a reverse flag; the default sort
(status.type, urgency, due, priority, path) follows the query's own. Text compares as
JavaScript's localeCompare with numeric collation roughly does: case aside, numbers by value,
punctuation before digits before letters."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any

from kbtui.tasksquery.filters import JS_MESSAGE, UNSUPPORTED, QueryError, note_tail
from kbtui.tasksquery.model import INVALID, QTask
from kbtui.vault.obsidian.task_settings import TYPE_ORDER

_DIGITS = re.compile(r"\d+")
# ASCII space and punctuation in the Unicode collation's order (what localeCompare follows:
# `(No tags)` before `#design`), moved below the digits and letters
_PUNCTUATION = str.maketrans(
    {c: chr(i + 1) for i, c in enumerate(" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$")}
)


@lru_cache(maxsize=200_000)
def text_key(text: str) -> tuple[str, str]:
    """A key that orders like localeCompare(..., {numeric: true}) for common text: case aside
    (lower case first on a tie), numbers by value, punctuation in the collation's order."""
    folded = _DIGITS.sub(lambda m: m.group(0).zfill(24), text.casefold().translate(_PUNCTUATION))
    return (folded, text.swapcase())


def date_key(value: object) -> tuple[int, int]:
    """Invalid dates first, then days in order, then no date (compareByDate)."""
    if value == INVALID:
        return (0, 0)
    if isinstance(value, dt.date):
        return (1, value.toordinal())
    return (2, 0)


def _clean_description(text: str) -> str:
    """DescriptionField.cleanDescription: a leading link or emphasis read as its text."""
    m = re.match(r"^\[\[?([^\]]*)]]?", text)
    if m is not None:
        inner = m.group(1)
        text = inner[inner.find("|") + 1 :] + text[m.end() :]
    for rx in (
        r"^\*\*([^*]+)\*\*",
        r"^\*([^*]+)\*",
        r"^==([^=]+)==",
        r"^__([^_]+)__",
        r"^_([^_]+)_",
    ):
        m = re.match(rx, text)
        if m is not None:
            text = m.group(1) + text[m.end() :]
    return text


_EMPHASIS = (r"^\*\*([^*]+)\*\*", r"^\*([^*]+)\*", r"^==([^=]+)==", r"^__([^_]+)__", r"^_([^_]+)_")


def _date_sort(key: str) -> Callable[[QTask], Any]:
    return lambda t: date_key(t.date(key))


def _tag_key(index: int) -> Callable[[QTask], Any]:
    def key(t: QTask) -> Any:
        tags = t.line.tags
        if len(tags) < index:
            return (1, ())
        return (0, text_key(tags[index - 1]))

    return key


def _random_key(today: dt.date) -> Callable[[QTask], int]:
    def key(t: QTask) -> int:
        text = f"{today.year}-{today.month:02d}-{today.day:02d} {t.line.description}"
        units = text.encode("utf-16-le")
        h = 9
        for i in range(0, len(units), 2):  # Math.imul(h ^ code unit, 9 ** 9)
            h = ((h ^ int.from_bytes(units[i : i + 2], "little")) * 387420489) & 0xFFFFFFFF
        v = (h ^ (h >> 9)) & 0xFFFFFFFF
        return v - (1 << 32) if v & 0x80000000 else v

    return key


KEYS: dict[str, Callable[[QTask], Any]] = {
    "status.name": lambda t: text_key(t.status.name),
    "status.type": lambda t: TYPE_ORDER.get(t.status.type, 7),
    "status": lambda t: 1 if t.is_done else 0,
    "recurring": lambda t: 0 if t.recurrence is not None else 1,
    "priority": lambda t: t.priority_number,
    "happens": lambda t: date_key(t.earliest_happens()),
    **{k: _date_sort(k) for k in ("cancelled", "created", "start", "scheduled", "due", "done")},
    "path": lambda t: text_key(t.path),
    "description": lambda t: text_key(_clean_description(t.description)),
    "heading": lambda t: text_key(t.heading or ""),
    "filename": lambda t: text_key(t.filename),
    "urgency": lambda t: -t.urgency,
    "id": lambda t: text_key(t.line.id),
}
SORT_ORDER = (
    "status.name",
    "status.type",
    "status",
    "recurring",
    "priority",
    "happens",
    "cancelled",
    "created",
    "start",
    "scheduled",
    "due",
    "done",
    "path",
    "description",
    "tag",
    "heading",
    "filename",
    "urgency",
    "id",
    "random",
)
DEFAULT_SORT = ("status.type", "urgency", "due", "priority", "path")


@dataclass(frozen=True)
class Sorter:
    name: str
    key: Callable[[QTask], Any]
    reverse: bool


def read_sorter(line: str, today: dt.date) -> Sorter | None:
    if not re.match(r"^sort by ", line, re.I):
        return None
    if UNSUPPORTED.match(line):
        raise QueryError(JS_MESSAGE.format("sort"))
    for name in SORT_ORDER:
        if name == "tag":
            m = re.match(r"^sort by tag( reverse)?[\s]*(\d+)?", line, re.I)
            if m:
                index = int(m.group(2) or 1) or 1
                note_tail(line, m.end(), m.group(0).strip())
                return Sorter(f"tag {index}", _tag_key(index), bool(m.group(1)))
            continue
        m = re.match(rf"^sort by {re.escape(name)}( reverse)?", line, re.I)
        if m:
            note_tail(line, m.end(), m.group(0))
            key = _random_key(today) if name == "random" else KEYS[name]
            return Sorter(name, key, bool(m.group(1)))
    return None


def _default_key(t: QTask) -> tuple[Any, ...]:
    """status.type, urgency, due, priority, path, as one flat tuple kept on the task."""
    key = t.keys.get("default")
    if key is None:
        due, path = date_key(t.date("due")), text_key(t.path)
        order = TYPE_ORDER.get(t.status.type, 7)
        key = (order, -t.urgency, due[0], due[1], t.priority_number, path[0], path[1])
        t.keys["default"] = key
    return key


def _kept(sorter: Sorter) -> Callable[[QTask], Any]:
    """The sorter's key, kept on each task after its first use (not random: it is per day)."""
    name, key = sorter.name, sorter.key
    if name == "random":
        return key

    def kept(t: QTask) -> Any:
        found = t.keys.get(name)
        if found is None:
            found = t.keys[name] = key(t)
        return found

    return kept


def rank_tasks(tasks: list[QTask]) -> None:
    """Number `tasks` in the default order, once for all (a process keeping them sorts any of
    them by one int after that)."""
    for i, t in enumerate(sorted(tasks, key=_default_key)):
        t.rank = i


def sort_tasks(tasks: list[QTask], sorters: list[Sorter], ranked: bool = False) -> list[QTask]:
    """The query's sorters, then the plugin's default order: its key kept on each task, or
    (`ranked`: every task numbered by rank_tasks) the task's number."""
    default: Callable[[QTask], Any] = attrgetter("rank") if ranked else _default_key
    if not sorters:
        return sorted(tasks, key=default)
    if not any(s.reverse for s in sorters):
        keys = [_kept(s) for s in sorters]
        if len(keys) == 1:
            k1 = keys[0]
            return sorted(tasks, key=lambda t: (k1(t), default(t)))
        if len(keys) == 2:
            k1, k2 = keys
            return sorted(tasks, key=lambda t: (k1(t), k2(t), default(t)))
        return sorted(tasks, key=lambda t: (*(k(t) for k in keys), default(t)))
    out = sorted(tasks, key=default)
    for s in reversed(sorters):  # stable passes, the first sorter last
        out.sort(key=s.key, reverse=s.reverse)
    return out


# -- grouping -----------------------------------------------------------------------------
def _date_group(word: str, value: Callable[[QTask], object]) -> Callable[[QTask], list[str]]:
    def names(t: QTask) -> list[str]:
        day = value(t)
        if day is None:
            return [f"No {word} date"]
        if not isinstance(day, dt.date):
            return [f"%%0%% Invalid {word} date"]
        return [day.strftime("%Y-%m-%d %A")]

    return names


DATE_KEYS = ("cancelled", "created", "start", "scheduled", "due", "done")


def _date_sort_value(key: str) -> Callable[[QTask], object]:
    return lambda t: t.date(key)


_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")


def _backlink(t: QTask) -> list[str]:
    name = t.filename.rsplit(".", 1)[0]
    if t.heading is None:
        return [f"[[{name}]]"]
    return [f"[[{name}#{t.heading}|{name} > {t.heading}]]"]


GROUPS: dict[str, Callable[[QTask], list[str]]] = {
    "status.name": lambda t: [t.status.name],
    "status.type": lambda t: [f"%%{TYPE_ORDER.get(t.status.type, 7)}%%{t.status.type}"],
    "status": lambda t: ["Done" if t.is_done else "Todo"],
    "recurring": lambda t: ["Recurring" if t.recurrence is not None else "Not Recurring"],
    "priority": lambda t: [f"%%{t.priority_number}%%{_PRIORITY_NAMES[t.priority_number]} priority"],
    "happens": _date_group("happens", lambda t: t.earliest_happens()),
    **{k: _date_group(k, _date_sort_value(k)) for k in DATE_KEYS},
    "path": lambda t: ["".join(t.path.split(".md", 1))],  # the first .md out
    "folder": lambda t: [t.folder],
    "root": lambda t: [t.root],
    "backlink": _backlink,
    "tags": lambda t: list(t.line.tags) or ["(No tags)"],
    "heading": lambda t: [t.heading or "(No heading)"],
    "filename": lambda t: [f"[[{t.filename.rsplit('.', 1)[0]}]]"],
    "urgency": lambda t: [f"{t.urgency:.2f}"],
    "recurrence": lambda t: [t.recurrence or "None"],
    "id": lambda t: [t.line.id],
}


@dataclass(frozen=True)
class Grouper:
    name: str
    names: Callable[[QTask], list[str]]
    reverse: bool


def read_grouper(line: str) -> Grouper | None:
    if not re.match(r"^group by ", line, re.I):
        return None
    if UNSUPPORTED.match(line):
        raise QueryError(JS_MESSAGE.format("group"))
    for name, names in GROUPS.items():
        m = re.match(rf"^group by {re.escape(name)}( reverse)?$", line, re.I)
        if m:
            reverse = bool(m.group(1))
            return Grouper(name, names, not reverse if name == "urgency" else reverse)
    return None


def shown_name(name: str) -> str:
    """A group name as Obsidian renders it: the `%%n%%` that orders it hidden."""
    return re.sub(r"^%%\d+%% ?", "", name)


def _level_key(level: int) -> Callable[[tuple[str, ...]], Any]:
    return lambda path: text_key(path[level])


def group_tasks(
    tasks: list[QTask], groupers: list[Grouper]
) -> list[tuple[tuple[str, ...], list[QTask]]]:
    """TaskGroups: the tasks under each path of group names, groups in name order."""
    groups: dict[tuple[str, ...], list[QTask]] = {(): list(tasks)}
    for grouper in groupers:
        deeper: dict[tuple[str, ...], list[QTask]] = {}
        for path, members in groups.items():
            for t in members:
                for name in grouper.names(t) or [""]:
                    deeper.setdefault((*path, name), []).append(t)
        groups = deeper
    paths = list(groups)
    for level in reversed(range(len(groupers))):
        paths.sort(key=_level_key(level), reverse=groupers[level].reverse)
    return [(p, groups[p]) for p in paths]
