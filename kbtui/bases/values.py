"""The values of Bases and how they behave: truthiness, equality, order, text, JSON.

Dates are naive local datetimes (`Date`, with whether a time was given); a duration keeps its
calendar part (years/months) apart from its fixed part (milliseconds), so `date + "1M"` adds a
calendar month. A date minus a date is a Duration of milliseconds that acts as that number.
Links compare by the file they resolve to (`Link.path`, set by the row source), else by text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from kbtui.bases.errors import EvalError

MS_DAY = 86_400_000
_UNITS = {
    "y": "y", "year": "y", "years": "y", "M": "M", "month": "M", "months": "M",
    "d": "d", "day": "d", "days": "d", "w": "w", "week": "w", "weeks": "w",
    "h": "h", "hour": "h", "hours": "h", "m": "m", "minute": "m", "minutes": "m",
    "s": "s", "second": "s", "seconds": "s", "ms": "ms", "millisecond": "ms",
    "milliseconds": "ms",
}  # fmt: skip
_FIXED_MS = {"w": 7 * MS_DAY, "d": MS_DAY, "h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}
_PART = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*,?")
_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?)?$"
)


class TagList(list[Any]):
    """A list of tags: `file.tags` (`#Area`, as written) or the `tags` property (`Area`). Its
    `contains()` matches a tag as Obsidian's Bases do (release notes 1.9.11, 1.9.14): with or
    without `#`, in any case (help: Tags), a nested tag under its parent (`#a/b` for "a")."""

    def has_tag(self, value: Any) -> bool:
        if not isinstance(value, str):
            return any(equal(x, value) for x in self)
        wanted = value.strip().lstrip("#").lower()
        if not wanted:
            return False
        tags = (to_text(x).lstrip("#").lower() for x in self)
        return any(t == wanted or t.startswith(wanted + "/") for t in tags)


@dataclass(frozen=True)
class Date:
    at: datetime
    has_time: bool = True

    def iso(self) -> str:
        if not self.has_time:
            return self.at.strftime("%Y-%m-%d")
        return self.at.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class Duration:
    ms: float = 0.0
    months: int = 0  # calendar months (a year is 12)

    def total_ms(self) -> float:
        return self.ms + self.months * 30.436875 * MS_DAY


@dataclass(frozen=True)
class Regex:
    source: str
    flags: str
    compiled: re.Pattern[str] = field(compare=False)


@dataclass(frozen=True)
class Link:
    target: str  # the link text without brackets, heading or alias
    display: Any = None
    path: str | None = None  # the vault file it resolves to, if any


@dataclass(frozen=True)
class Rendered:
    """html(), icon(), image(): a value a view renders; here its text."""

    kind: str
    text: str


def parse_date(text: str) -> Date | None:
    """A Date from an ISO date or date-time string, else None."""
    m = _ISO.match(text.strip())
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups()[:6])
    try:
        at = datetime(y, mo, d, h, mi, s, int(str(m.group(7) or "0").ljust(6, "0")[:6]))
    except ValueError:
        return None
    return Date(at, has_time=m.group(4) is not None)


def parse_duration(text: str) -> Duration:
    """`"1M"`, `"4h"`, `"2 weeks"`, `"1 year 2 days"`, `"-3d"`; EvalError when not one."""
    text = text.strip()
    pos, ms, months = 0, 0.0, 0
    while pos < len(text):
        m = _PART.match(text, pos)
        unit = _UNITS.get(m.group(2)) or _UNITS.get(m.group(2).lower()) if m else None
        if m is None or unit is None:
            raise EvalError(f"{text!r} is not a duration")
        amount = float(m.group(1))
        if unit in ("y", "M"):
            months += round(amount * (12 if unit == "y" else 1))
        else:
            ms += amount * _FIXED_MS[unit]
        pos = m.end()
    if not text:
        raise EvalError("an empty duration")
    return Duration(ms, months)


def add_duration(date: Date, dur: Duration, sign: int = 1) -> Date:
    at = date.at
    if dur.months:
        total = at.year * 12 + (at.month - 1) + sign * dur.months
        year, month = divmod(total, 12)
        day = min(at.day, _days_in(year, month + 1))
        at = at.replace(year=year, month=month + 1, day=day)
    at = at + timedelta(milliseconds=sign * dur.ms)
    has_time = date.has_time or bool(dur.ms % MS_DAY)
    return Date(at, has_time)


def _days_in(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (datetime(year, month + 1, 1) - datetime(year, month, 1)).days


def is_empty(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, (str, list, dict)):
        return len(v) == 0
    if isinstance(v, Link):
        return not v.target
    return False


def truthy(v: Any) -> bool:
    """JavaScript's truthiness, with empty lists and objects false (as Bases filters have them)."""
    if v is None or v is False:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0 and not math.isnan(v)
    if isinstance(v, Duration):
        return v.total_ms() != 0
    if isinstance(v, (str, list, dict)):
        return len(v) > 0
    return True


def file_path(v: Any) -> str | None:
    """The vault path a value stands for: a file, a resolved link, `this`."""
    if isinstance(v, Link):
        return v.path
    path = getattr(v, "file_path", None)
    return path if isinstance(path, str) else None


def equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    pa, pb = file_path(a), file_path(b)
    if isinstance(a, Link) or isinstance(b, Link) or pa or pb:
        if pa and pb:
            return pa == pb
        ta, tb = _link_text(a), _link_text(b)
        return ta is not None and ta == tb
    if isinstance(a, Date) and isinstance(b, Date):
        return a.at == b.at
    if isinstance(a, Duration) or isinstance(b, Duration):
        return to_number(a) == to_number(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _link_text(v: Any) -> str | None:
    if isinstance(v, Link):
        return v.target.lower()
    if isinstance(v, str):
        return v.strip().removeprefix("[[").removesuffix("]]").lower()
    name = getattr(v, "basename", None)
    return name.lower() if isinstance(name, str) else None


def to_number(v: Any) -> float:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, Duration):
        return v.total_ms()
    if isinstance(v, Date):
        return v.at.timestamp() * 1000
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            raise EvalError(f"{v!r} is not a number") from None
    raise EvalError(f"{type_name(v)} is not a number")


def compare(a: Any, b: Any) -> int | None:
    """-1/0/1, or None when the two cannot be ordered (a comparison is then false)."""
    if a is None or b is None:
        return None
    if isinstance(a, Date) and isinstance(b, Date):
        x, y = a.at, b.at
        return (x > y) - (x < y)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    try:
        fa, fb = to_number(a), to_number(b)
    except EvalError:
        sa, sb = to_text(a), to_text(b)
        return (sa > sb) - (sa < sb)
    if math.isnan(fa) or math.isnan(fb):
        return None
    return (fa > fb) - (fa < fb)


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float, Duration)):
        return "number" if not isinstance(v, Duration) else "duration"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, Date):
        return "date"
    if isinstance(v, Link):
        return "link"
    if isinstance(v, Regex):
        return "regexp"
    if isinstance(v, Rendered):
        return v.kind
    return "file" if hasattr(v, "file_path") else "object"


def format_number(v: float) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        if v.is_integer() and abs(v) < 1e21:
            return str(int(v))
        return repr(v)
    return str(v)


def to_text(v: Any) -> str:
    """What `toString()` and `+` with a string give."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_number(v)
    if isinstance(v, Duration):
        return format_number(v.total_ms())
    if isinstance(v, str):
        return v
    if isinstance(v, Date):
        return v.iso().replace("T", " ")
    if isinstance(v, Link):
        return to_text(v.display) if v.display is not None else v.target
    if isinstance(v, list):
        return ",".join(to_text(x) for x in v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {to_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Regex):
        return f"/{v.source}/{v.flags}"
    if isinstance(v, Rendered):
        return v.text
    return str(getattr(v, "file_path", v))


def to_json(v: Any) -> Any:
    """A plain JSON value: dates as ISO text, links as `[[target]]` text, files as paths."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else (int(v) if v.is_integer() else v)
    if isinstance(v, Duration):
        return to_json(v.total_ms())
    if isinstance(v, Date):
        return v.iso()
    if isinstance(v, Link):
        return f"[[{v.target}]]" if v.display is None else f"[[{v.target}|{to_text(v.display)}]]"
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, dict):
        return {str(k): to_json(x) for k, x in v.items()}
    return to_text(v)


def sort_key(v: Any) -> tuple[int, Any]:
    """A key that orders mixed values: numbers, dates, then text; empty values last."""
    if is_empty(v):
        return (9, 0)
    if isinstance(v, bool):
        return (0, float(v))
    if isinstance(v, (int, float, Duration)):
        return (1, to_number(v))
    if isinstance(v, Date):
        return (2, v.at.timestamp())
    if isinstance(v, list):
        return (3, to_text(v).casefold())
    return (4, to_text(v).casefold())


def regex(source: str, flags: str) -> Regex:
    """A JavaScript regular expression as Python's: i, m, s flags; g kept for replace()."""
    bits = 0
    for flag, bit in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL)):
        if flag in flags:
            bits |= bit
    pattern = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", source)
    try:
        return Regex(source, flags, re.compile(pattern, bits))
    except re.error as exc:
        raise EvalError(f"/{source}/ is not a regular expression: {exc}") from None
