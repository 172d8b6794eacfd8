"""The filters of Tasks queries, each read as the plugin's Field classes read them, tried in
the plugin's order (FilterParser.fieldCreators); a Boolean line last (kbtui.tasksquery.
boolean)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from kbtui.tasksquery.dates import parse_date, parse_range, unread_words
from kbtui.tasksquery.model import INVALID, DateValue, QTask
from kbtui.vault.obsidian.task_settings import TYPES


class QueryError(ValueError):
    """An instruction kbtui cannot run: the message names it."""


@dataclass
class Context:
    """What a filter may need beyond its task: today, and the ids for dependencies."""

    today: dt.date
    open_ids: set[str] = field(default_factory=set)  # ids of tasks not done
    open_depended: set[str] = field(default_factory=set)  # ids that tasks not done depend on


Predicate = Callable[[QTask, Context], bool]
UNSUPPORTED = re.compile(r"^(filter|sort|group) by function\b", re.I)
# what the lines being read leave unread (kbtui.tasksquery.query.Reader collects them)
NOTES: ContextVar[list[str] | None] = ContextVar("tasks_query_notes", default=None)
JS_MESSAGE = (
    "{0} by function: JavaScript expressions in Tasks queries are not supported by kbtui "
    "(a query without them runs)"
)


def _fixed(instructions: dict[str, Predicate]) -> Callable[[str], Predicate | None]:
    lowered = {k.lower(): v for k, v in instructions.items()}
    return lambda line: lowered.get(line.lower())


# -- text fields -------------------------------------------------------------------------
def _regex(text: str, line: str) -> re.Pattern[str]:
    m = re.match(r"^/(.+)/([^/]*)$", text)
    if m is None:
        raise QueryError(f"Invalid instruction: '{line}' (a regex is written /pattern/flags)")
    flags = 0
    for flag in m.group(2):
        if flag == "i":
            flags |= re.I
        elif flag == "m":
            flags |= re.M
        elif flag == "s":
            flags |= re.S
        elif flag not in "gu":
            raise QueryError(f"Invalid regular expression flags '{m.group(2)}' in: {line}")
    try:
        return re.compile(m.group(1).replace("\\/", "/"), flags)
    except re.error as exc:
        raise QueryError(f"Parsing regular expression: {exc} in: {line}") from exc


def _matcher(op: str, text: str, line: str) -> Callable[[str], bool]:
    if "regex" in op:
        pattern = _regex(text, line)
        return lambda value: pattern.search(value) is not None
    needle = text.lower()
    return lambda value: needle in value.lower()


TEXT_VALUES: dict[str, Callable[[QTask], str]] = {
    "status.name": lambda t: t.status.name,
    "path": lambda t: t.path,
    "folder": lambda t: t.folder,
    "root": lambda t: t.root,
    "description": lambda t: t.description,
    "heading": lambda t: t.heading or "",
    "filename": lambda t: t.filename,
    "recurrence": lambda t: t.recurrence or "",
    "id": lambda t: t.line.id,
}
_OPS = "includes|does not include|regex matches|regex does not match"


def _text_filter(name: str) -> Callable[[str], Predicate | None]:
    pattern = re.compile(rf"^(?:{re.escape(name)}) ({_OPS}) (.*)", re.I)
    value = TEXT_VALUES[name]

    def make(line: str) -> Predicate | None:
        m = pattern.match(line)
        if m is None:
            return None
        op = m.group(1).lower()
        match = _matcher(op, m.group(2), line)
        negate = "not" in op
        return lambda t, c: match(value(t)) != negate

    return make


def _tags(line: str) -> Predicate | None:
    fixed = {
        "has tag": lambda t, c: bool(t.line.tags),
        "has tags": lambda t, c: bool(t.line.tags),
        "no tag": lambda t, c: not t.line.tags,
        "no tags": lambda t, c: not t.line.tags,
    }
    found = _fixed(fixed)(line)
    if found is not None:
        return found
    m = re.match(rf"^(?:tag|tags) ({_OPS}|include|do not include) (.*)", line, re.I)
    if m is None:
        return None
    op = m.group(1).lower()
    negate = "not" in op
    if "regex" not in op:
        needle = m.group(2).lower()
        return lambda t, c: (needle in t.tags_lower) != negate
    match = _matcher(op, m.group(2), line)
    return lambda t, c: any(match(tag) for tag in t.line.tags) != negate


# -- dates -------------------------------------------------------------------------------
DateOf = Callable[[QTask], list[DateValue]]
DATE_OF: dict[str, tuple[str, DateOf, bool]] = {
    # field: (word in the instruction, the dates it tests, result when the task has none)
    "happens": ("happens", lambda t: t.happens(), False),
    "cancelled": ("cancelled", lambda t: [t.date("cancelled")], False),
    "created": ("created", lambda t: [t.date("created")], False),
    "start": ("starts", lambda t: [t.date("start")], True),
    "scheduled": ("scheduled", lambda t: [t.date("scheduled")], False),
    "due": ("due", lambda t: [t.date("due")], False),
    "done": ("done", lambda t: [t.date("done")], False),
}


def _date_filter(name: str) -> Callable[[str], Predicate | None]:
    word, dates_of, missing = DATE_OF[name]
    fixed: dict[str, Predicate] = {
        f"has {name} date": lambda t, c: any(d is not None for d in dates_of(t)),
        f"no {name} date": lambda t, c: all(d is None for d in dates_of(t)),
    }
    if name != "happens":
        fixed[f"{name} date is invalid"] = lambda t, c: dates_of(t)[0] == INVALID
    pattern = re.compile(
        rf"^{word} (((?:on|in) or before|before|(?:on|in) or after|after|on|in)? ?(.*))", re.I
    )

    def make(line: str, today: dt.date) -> Predicate | None:
        found = _fixed(fixed)(line)
        if found is not None:
            return found
        m = pattern.match(line)
        if m is None:
            return None
        keyword = (m.group(2) or "").lower()
        span, read = parse_range(m.group(3), today), 3
        if span is None:
            day, read = parse_date(m.group(1), today), 1
            span = (day, day) if day is not None else None
        if span is None:
            raise QueryError(f"do not understand {name} date: {line!r}")
        start, end = span
        _note_unread(line, m.group(read), keyword, span, today, read == 3)
        test: Callable[[dt.date], bool]
        if keyword == "before":
            test = lambda d: d < start  # noqa: E731
        elif keyword == "after":
            test = lambda d: d > end  # noqa: E731
        elif keyword in ("on or before", "in or before"):
            test = lambda d: d <= end  # noqa: E731
        elif keyword in ("on or after", "in or after"):
            test = lambda d: d >= start  # noqa: E731
        else:
            test = lambda d: start <= d <= end  # noqa: E731

        if name != "happens":  # one date: no generator per task
            key = name

            def single(t: QTask, c: Context) -> bool:
                d = t.date(key)
                if d is None:
                    return missing
                return d.__class__ is dt.date and test(d)

            return single

        def one(d: object) -> bool:
            if d is None:
                return missing
            return isinstance(d, dt.date) and test(d)

        return lambda t, c: any(one(d) for d in dates_of(t))

    return make  # type: ignore[return-value]


def note_tail(line: str, end: int, read_as: str) -> None:
    """Words after what the plugin reads of an instruction (`sort by duex`: `x`), which it
    ignores: kbtui runs it as the plugin does and says so."""
    notes, rest = NOTES.get(), line[end:].strip()
    note = f'"{line}": "{rest}" not understood; read as "{read_as}"'
    if notes is not None and rest and note not in notes:
        notes.append(note)


def _note_unread(
    line: str, text: str, keyword: str, span: tuple[dt.date, dt.date], today: dt.date, ranged: bool
) -> None:
    """Words of a date filter that no date was read from: the plugin drops them and filters
    by the rest (`due befor tomorrow` is `due on` tomorrow), so kbtui answers the same and
    says how it read the line."""
    notes, unread = NOTES.get(), unread_words(text, today, ranged)
    if notes is None or not unread:
        return
    keyword = keyword or ("in" if span[0] != span[1] else "on")
    dates = " ".join(sorted({d.isoformat() for d in span}))
    words = ", ".join(f'"{w}"' for w in unread)
    note = f'"{line}": {words} not understood; read as "{line.split()[0]} {keyword} {dates}"'
    if note not in notes:
        notes.append(note)


# -- the rest ----------------------------------------------------------------------------
PRIORITIES = {"highest": 0, "high": 1, "medium": 2, "none": 3, "low": 4, "lowest": 5}


def _priority(line: str) -> Predicate | None:
    m = re.match(
        r"^priority(\s+is)?(\s+(above|below|not))?(\s+(lowest|low|none|medium|high|highest))$",
        line,
        re.I,
    )
    if m is None:
        return None
    want = PRIORITIES[m.group(5).lower()]
    how = (m.group(3) or "").lower()
    if how == "above":
        return lambda t, c: t.priority_number < want
    if how == "below":
        return lambda t, c: t.priority_number > want
    if how == "not":
        return lambda t, c: t.priority_number != want
    return lambda t, c: t.priority_number == want


def _status_type(line: str) -> Predicate | None:
    if not re.match(r"^status\.type", line, re.I):
        return None
    m = re.match(r"^status\.type (is|is not) ([^ ]+)$", line, re.I)
    kind = m.group(2).upper() if m else ""
    if m is None or kind not in TYPES:
        raise QueryError(
            f"Invalid status.type instruction: '{line}'. Allowed options: 'is' and 'is not'; "
            f"values: {' '.join(TYPES)}"
        )
    negate = m.group(1).lower() == "is not"
    return lambda t, c: (t.status.type == kind) != negate


def _sub_item(t: QTask, c: Context) -> bool:
    indent = t.line.indentation
    if indent == "":
        return True
    quote = indent.rfind(">")
    return quote != -1 and re.fullmatch(r" ?", indent[quote + 1 :]) is not None


def _blocking(t: QTask, c: Context) -> bool:
    return bool(t.line.id) and not t.is_done and t.line.id in c.open_depended


def _blocked(t: QTask, c: Context) -> bool:
    return not t.is_done and any(d in c.open_ids for d in t.line.depends_on)


def _function(line: str) -> Predicate | None:
    if UNSUPPORTED.match(line):
        raise QueryError(JS_MESSAGE.format("filter"))
    return None


SIMPLE: dict[str, Predicate] = {
    "done": lambda t, c: t.is_done,
    "not done": lambda t, c: not t.is_done,
    "is recurring": lambda t, c: t.recurrence is not None,
    "is not recurring": lambda t, c: t.recurrence is None,
    "exclude sub-items": _sub_item,
    "has id": lambda t, c: bool(t.line.id),
    "no id": lambda t, c: not t.line.id,
    "has depends on": lambda t, c: bool(t.line.depends_on),
    "no depends on": lambda t, c: not t.line.depends_on,
    "is blocking": _blocking,
    "is not blocking": lambda t, c: not _blocking(t, c),
    "is blocked": _blocked,
    "is not blocked": lambda t, c: not _blocked(t, c),
}


def field_filter(line: str, today: dt.date) -> Predicate | None:
    """The filter of one instruction in the plugin's order of fields, None if none reads it;
    QueryError when the field reads it and finds it wrong."""
    dated = {name: _date_filter(name) for name in DATE_OF}
    readers: list[Callable[[str], Predicate | None]] = [
        _text_filter("status.name"),
        _status_type,
        _fixed({k: SIMPLE[k] for k in ("done", "not done")}),
        _fixed({k: SIMPLE[k] for k in ("is recurring", "is not recurring")}),
        _priority,
        *(lambda ln, f=dated[n]: f(ln, today) for n in DATE_OF),
        _text_filter("path"),
        _text_filter("folder"),
        _text_filter("root"),
        _text_filter("description"),
        _tags,
        _text_filter("heading"),
        _fixed({"exclude sub-items": SIMPLE["exclude sub-items"]}),
        _text_filter("filename"),
        _text_filter("recurrence"),
        _function,
        _fixed({k: SIMPLE[k] for k in ("has id", "no id")}),
        _text_filter("id"),
        _fixed({k: SIMPLE[k] for k in ("has depends on", "no depends on")}),
        _fixed({k: SIMPLE[k] for k in SIMPLE if "block" in k}),
    ]
    for read in readers:
        found = read(line)
        if found is not None:
            return found
    return None
