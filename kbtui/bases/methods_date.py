"""Dates and durations: fields, `format()` with Moment.js tokens, `relative()`, `time()`."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kbtui.bases.values import MS_DAY, Date, Duration, to_text

if TYPE_CHECKING:
    from kbtui.bases.context import Context

_MOMENT = re.compile(
    r"\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|A|a|X|x|ZZ|Z"
)
_DURATION_FIELDS = {
    "years": 365.25 * MS_DAY, "months": 30.436875 * MS_DAY, "weeks": 7 * MS_DAY,
    "days": MS_DAY, "hours": 3_600_000, "minutes": 60_000, "seconds": 1000,
    "milliseconds": 1,
}  # fmt: skip


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _zone(at: datetime) -> str:
    return at.astimezone().strftime("%z")


def moment_format(at: datetime, fmt: str) -> str:
    """Format like Moment.js (the tokens Obsidian users write), in English."""

    def token(m: re.Match[str]) -> str:
        t = m.group()
        if m.group(1) is not None:
            return m.group(1)
        h12 = at.hour % 12 or 12
        table: dict[str, Callable[[], str]] = {
            "YYYY": lambda: f"{at.year:04d}", "YY": lambda: f"{at.year % 100:02d}",
            "MMMM": lambda: at.strftime("%B"), "MMM": lambda: at.strftime("%b"),
            "MM": lambda: f"{at.month:02d}", "M": lambda: str(at.month),
            "Do": lambda: _ordinal(at.day), "DD": lambda: f"{at.day:02d}",
            "D": lambda: str(at.day), "dddd": lambda: at.strftime("%A"),
            "ddd": lambda: at.strftime("%a"), "dd": lambda: at.strftime("%a")[:2],
            "d": lambda: str((at.weekday() + 1) % 7), "HH": lambda: f"{at.hour:02d}",
            "H": lambda: str(at.hour), "hh": lambda: f"{h12:02d}", "h": lambda: str(h12),
            "mm": lambda: f"{at.minute:02d}", "m": lambda: str(at.minute),
            "ss": lambda: f"{at.second:02d}", "s": lambda: str(at.second),
            "SSS": lambda: f"{at.microsecond // 1000:03d}",
            "A": lambda: "AM" if at.hour < 12 else "PM",
            "a": lambda: "am" if at.hour < 12 else "pm",
            "X": lambda: str(int(at.timestamp())), "x": lambda: str(int(at.timestamp() * 1000)),
            "ZZ": lambda: _zone(at), "Z": lambda: _zone(at)[:3] + ":" + _zone(at)[3:],
        }  # fmt: skip
        return table[t]()

    return _MOMENT.sub(token, fmt)


def relative(at: datetime, now: datetime | None = None) -> str:
    """Moment's `fromNow()`: "3 days ago", "in 2 hours", "a few seconds ago"."""
    seconds = ((now or datetime.now()) - at).total_seconds()
    s = abs(seconds)
    minutes, hours, days = s / 60, s / 3600, s / 86400
    steps = [
        (s < 45, "a few seconds"), (s < 90, "a minute"),
        (minutes < 45, f"{round(minutes)} minutes"), (minutes < 90, "an hour"),
        (hours < 22, f"{round(hours)} hours"), (hours < 36, "a day"),
        (days < 26, f"{round(days)} days"), (days < 45, "a month"),
        (days < 320, f"{round(days / 30.4)} months"), (days < 548, "a year"),
    ]  # fmt: skip
    text = next((t for cond, t in steps if cond), f"{round(days / 365.25)} years")
    return f"{text} ago" if seconds >= 0 else f"in {text}"


def date_member(v: Date | Duration, name: str) -> Any:
    if isinstance(v, Duration):
        unit = _DURATION_FIELDS.get(name)
        return v.total_ms() / unit if unit else None
    at = v.at
    fields = {
        "year": at.year, "month": at.month, "day": at.day, "hour": at.hour,
        "minute": at.minute, "second": at.second, "millisecond": at.microsecond // 1000,
    }  # fmt: skip
    return fields.get(name)


def _date_only(v: Any, args: list[Any], ctx: Context) -> Any:
    if not isinstance(v, Date):
        return None
    return Date(v.at.replace(hour=0, minute=0, second=0, microsecond=0), has_time=False)


DATE_METHODS: dict[str, Callable[[Any, list[Any], Context], Any]] = {
    "date": _date_only,
    "format": lambda v, a, c: (
        moment_format(v.at, to_text(a[0]) if a else "YYYY-MM-DDTHH:mm:ssZ")
        if isinstance(v, Date)
        else None
    ),
    "time": lambda v, a, c: v.at.strftime("%H:%M:%S") if isinstance(v, Date) else None,
    "relative": lambda v, a, c: relative(v.at) if isinstance(v, Date) else None,
    "isEmpty": lambda v, a, c: False,
}
