"""The values of Dataview's query language and how they behave: types, truthiness, equality,
the one order every value has, date and duration arithmetic.

After blacksmithgu/obsidian-dataview (MIT), src/data-model/value.ts (`compareValue`, `isTruthy`,
`typeOf`), src/expression/binaryop.ts and luxon's date arithmetic. Dates are Python datetimes
(naive: local time; with a zone when one was written); durations keep luxon's units.
"""

from __future__ import annotations

import calendar
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from kbtui.vault.obsidian.dv_values import UNIT_MS, UNITS, normalise

MS_DAY = 86_400_000


class EvalError(Exception):
    """A value of the wrong type for an operation: Dataview drops the row (or fails the query
    when every row fails), as the plugin does."""


@dataclass(frozen=True)
class Duration:
    units: dict[str, float] = field(default_factory=dict, hash=False)

    def ms(self) -> float:
        return sum(v * UNIT_MS[u] for u, v in self.units.items())

    def normalised(self) -> Duration:
        return Duration(normalise(self.units))

    def scaled(self, factor: float) -> Duration:
        return Duration({u: v * factor for u, v in self.units.items()}).normalised()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and self.ms() == other.ms()

    def __hash__(self) -> int:
        return hash(self.ms())


class Link:
    """A link. `path` as Dataview holds it: a page's links point at the file they reach, a
    link written in a query keeps its text; `key`, the file it reaches (compared by)."""

    __slots__ = ("display", "embed", "key", "path", "subpath", "type")

    def __init__(
        self,
        path: str,
        display: str | None = None,
        subpath: str | None = None,
        type: str = "file",  # file, header, block
        embed: bool = False,
        key: str | None = None,  # the vault path it resolves to, when that is not `path`
    ) -> None:
        self.path = path
        self.display = display
        self.subpath = subpath
        self.type = type
        self.embed = embed
        self.key = key

    @property
    def target(self) -> str:
        return self.key if self.key is not None else self.path

    def file_title(self) -> str:
        name = self.path.rsplit("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name

    def replaced(self, **changes: Any) -> Link:
        parts = {k: getattr(self, k) for k in self.__slots__}
        parts.update(changes)
        return Link(**parts)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Link)
            and self.target == other.target
            and self.type == other.type
            and (self.subpath or None) == (other.subpath or None)
        )

    def __hash__(self) -> int:
        return hash((self.target, self.type, self.subpath))

    def __repr__(self) -> str:
        return f"Link({self.path!r}, {self.display!r}, {self.subpath!r}, {self.type!r})"


@dataclass(frozen=True)
class Lambda:
    params: tuple[str, ...]
    run: Callable[..., Any]

    def __call__(self, *args: Any) -> Any:
        return self.run(*args)


@dataclass(frozen=True)
class ListPair:
    """A LIST row's id and value (Dataview's list-pair widget)."""

    key: Any
    value: Any


@dataclass(frozen=True)
class ExternalLink:
    url: str
    display: str | None = None


def type_of(v: Any) -> str:
    found = _TYPES.get(type(v))
    if found is not None:
        return found
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, datetime):
        return "date"
    if isinstance(v, Duration):
        return "duration"
    if isinstance(v, Link):
        return "link"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, Lambda) or callable(v):
        return "function"
    return "widget"


_TYPES: dict[type, str] = {
    type(None): "null", bool: "boolean", int: "number", float: "number", str: "string",
    datetime: "date", Duration: "duration", Link: "link", list: "array", dict: "object",
}  # fmt: skip


def truthy(v: Any) -> bool:
    if v is None or v is False:
        return False
    if v is True:
        return True
    if isinstance(v, int | float):
        return v != 0 and not (isinstance(v, float) and math.isnan(v))
    if isinstance(v, str | list | dict):
        return len(v) > 0
    if isinstance(v, Link):
        return bool(v.path)
    if isinstance(v, datetime):
        return epoch_ms(v) != 0
    if isinstance(v, Duration):
        return v.ms() != 0
    return True


def epoch_ms(d: datetime) -> float:
    return d.timestamp() * 1000


@lru_cache(maxsize=65536)
def text_key(s: str) -> tuple[tuple[tuple[int, str], ...], str]:
    """An order close to JavaScript's `localeCompare`: by letter ignoring case and accents,
    spaces and punctuation before digits before letters, then lower case first."""
    primary = []
    for ch in s:
        base = unicodedata.normalize("NFD", ch)[0].casefold()
        if ch.isspace():
            rank = 0
        elif ch.isdigit():
            rank = 2
        elif ch.isalpha():
            rank = 3
        else:
            rank = 1
            base = _PUNCTUATION.get(base, base)
        primary.append((rank, base))
    return tuple(primary), s.swapcase()


# ASCII punctuation in the Unicode collation's order, which localeCompare follows ("(" < "#")
_PUNCTUATION = {c: chr(i + 1) for i, c in enumerate("_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$")}


# Types of different kinds order by their names (compareValue: `localeCompare` of the names).
_TYPE_RANK = {name: i for i, name in enumerate(sorted(
    ("array", "boolean", "date", "duration", "function", "link", "number", "object", "string",
     "widget")))}  # fmt: skip


def sort_key(v: Any) -> tuple[Any, ...]:
    """A key giving Dataview's total order of values: null first, then values by type name,
    each type in its own order."""
    kind = type_of(v)
    if kind == "null":
        return (-1,)
    rank = _TYPE_RANK[kind]
    if kind == "number":
        return (rank, v if not math.isnan(v) else -math.inf)
    if kind == "string":
        return (rank, text_key(v))
    if kind == "boolean":
        return (rank, bool(v))
    if kind == "date":
        return (rank, epoch_ms(v))
    if kind == "duration":
        return (rank, v.ms())
    if kind == "link":
        return (rank, text_key(v.target), v.type, v.subpath is not None, text_key(v.subpath or ""))
    if kind == "array":
        return (rank, tuple(sort_key(x) for x in v))
    if kind == "object":
        keys = sorted(v, key=text_key)
        return (rank, tuple(sort_key(k) for k in keys), tuple(sort_key(v[k]) for k in keys))
    return (rank,)


def compare(a: Any, b: Any) -> int:
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    ta, tb = type_of(a), type_of(b)
    if ta != tb:
        return False
    if ta == "date":
        return bool(epoch_ms(a) == epoch_ms(b))
    if ta == "string":
        return bool(a == b)
    if ta in ("array", "object"):
        return compare(a, b) == 0
    return bool(a == b)


# -- dates ----------------------------------------------------------------------------------
_DATES: dict[str, datetime] = {}


def date_of(text: str) -> datetime:
    """A datetime from kbtui.vault.obsidian.dv_values' date text (remembered: days repeat)."""
    found = _DATES.get(text)
    if found is not None:
        return found
    at = datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                  int(text[14:16]), int(text[17:19]), int(text[20:23]) * 1000)  # fmt: skip
    zone = text[23:]
    if zone == "Z":
        at = at.replace(tzinfo=UTC)
    elif zone.startswith("["):
        at = at.replace(tzinfo=ZoneInfo(zone[1:-1]))
    elif zone:
        sign = -1 if zone[0] == "-" else 1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        at = at.replace(tzinfo=timezone(sign * timedelta(hours=hours, minutes=minutes)))
    if len(_DATES) > 100_000:
        _DATES.clear()
    _DATES[text] = at
    return at


def date_of_ms(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000)


def start_of_day(d: datetime) -> datetime:
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


def _add_months(d: datetime, months: int) -> datetime:
    total = d.year * 12 + d.month - 1 + months
    year, month = divmod(total, 12)
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return d.replace(year=year, month=month + 1, day=day)


def plus(d: datetime, dur: Duration, sign: int = 1) -> datetime:
    """luxon's `plus`/`minus`: years and months by the calendar, weeks and days as days, the
    rest as time."""
    u = dur.units
    months = sign * (u.get("years", 0) * 12 + u.get("months", 0))
    whole = int(months)
    days = sign * (u.get("weeks", 0) * 7 + u.get("days", 0)) + (months - whole) * 30
    ms = sign * sum(u.get(k, 0) * UNIT_MS[k] for k in UNITS[4:])
    out = _add_months(d, whole) if whole else d
    try:
        return out + timedelta(days=days, milliseconds=ms)
    except OverflowError:
        raise EvalError("date out of range") from None


def diff(later: datetime, earlier: datetime) -> Duration:
    """`later - earlier` as luxon's diff in years, months, days and time, normalised."""
    sign = 1
    if epoch_ms(later) < epoch_ms(earlier):
        later, earlier, sign = earlier, later, -1
    if (later.tzinfo is None) != (earlier.tzinfo is None):
        later = later.astimezone() if later.tzinfo is None else later
        earlier = earlier.astimezone() if earlier.tzinfo is None else earlier
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    cursor = _add_months(earlier, months)
    if cursor > later:
        months -= 1
        cursor = _add_months(earlier, months)
    days = (later - cursor).days
    cursor = cursor + timedelta(days=days)
    rest = (later - cursor) / timedelta(milliseconds=1)
    units: dict[str, float] = {"years": months // 12, "months": months % 12, "days": days}
    for unit in ("hours", "minutes", "seconds"):
        units[unit], rest = divmod(rest, UNIT_MS[unit])
    units["milliseconds"] = rest
    return Duration({k: sign * v for k, v in units.items() if v})


def is_midnight(d: datetime) -> bool:
    return d.hour == 0 and d.minute == 0 and d.second == 0


def number_text(v: float) -> str:
    """A number as JavaScript prints it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    return repr(v)
