"""Values as text, as Dataview shows them with its default settings: dates as `May 13, 2021`
(`3:15 PM - February 26, 2021` with a time), durations as `1 year, 6 months`, links as
`[[path|name]]`; luxon's format tokens for `dateformat()` and `durationformat()`.

After blacksmithgu/obsidian-dataview (MIT), src/data-model/value.ts (`Values.toString`) and
src/util/normalize.ts (`renderMinimalDuration`), and luxon's documented tokens.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from kbtui.dataview.values import (
    Duration,
    ExternalLink,
    Lambda,
    Link,
    ListPair,
    epoch_ms,
    is_midnight,
    number_text,
)
from kbtui.vault.obsidian.dv_values import UNITS, shift_to

NULL_TEXT = "\\-"  # Dataview's renderNullAs: an escaped dash in its markdown
DATE_FORMAT = "MMMM dd, yyyy"
DATE_TIME_FORMAT = "h:mm a - MMMM dd, yyyy"
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_SINGULAR = {u: u[:-1] for u in UNITS}


def to_string(v: Any, nested: bool = False) -> str:
    """Dataview's `Values.toString`: what `string()` and `+` with text give."""
    if v is None:
        return NULL_TEXT
    if isinstance(v, str):
        return v
    if isinstance(v, bool | int | float):
        return number_text(v)
    if isinstance(v, datetime):
        return format_date(v, DATE_FORMAT if is_midnight(v) else DATE_TIME_FORMAT)
    if isinstance(v, Duration):
        return human_duration(v)
    if isinstance(v, Link):
        return link_markdown(v)
    if isinstance(v, list):
        inner = ", ".join(to_string(x, True) for x in v)
        return f"[{inner}]" if nested else inner
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k}: {to_string(x, True)}" for k, x in v.items()) + " }"
    if isinstance(v, ListPair):
        return f"{to_string(v.key)}: {to_string(v.value)}"
    if isinstance(v, ExternalLink):
        return f"[{v.display or v.url}]({v.url})"
    if isinstance(v, Lambda) or callable(v):
        return "<function>"
    return str(v)


def link_markdown(link: Link) -> str:
    target: str = link.path  # a link's text (`path` would read as a file to the write check)
    inner = target.replace("|", "\\|")
    if link.type == "header":
        inner += "#" + (link.subpath or "")
    elif link.type == "block":
        inner += "#^" + (link.subpath or "")
    shown = link.display
    if not shown:
        shown = link.file_title()
        if link.type in ("header", "block"):
            shown += " > " + (link.subpath or "")
    return ("!" if link.embed else "") + f"[[{inner}|{shown}]]"


def human_duration(d: Duration) -> str:
    """luxon's `toHuman()` of the duration normalised, zero units left out."""
    units = d.normalised().units
    parts = []
    for unit in UNITS:
        amount = units.get(unit, 0)
        if amount:
            name = _SINGULAR[unit] if amount == 1 else unit
            parts.append(f"{_grouped(amount)} {name}")
    return ", ".join(parts)


def _grouped(v: float) -> str:
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{round(v, 3):,}".rstrip("0").rstrip(".")


# -- luxon tokens --------------------------------------------------------------------------
_TOKEN = re.compile(r"'([^']*)'|([A-Za-z])\2*|.", re.S)


def tokens(fmt: str) -> list[tuple[bool, str]]:
    """(is a token, text) runs of a luxon format: quoted text is literal."""
    out: list[tuple[bool, str]] = []
    for m in _TOKEN.finditer(fmt):
        if m.group(1) is not None:
            out.append((False, m.group(1)))
        elif m.group(2):
            out.append((True, m.group(0)))
        else:
            out.append((False, m.group(0)))
    return out


def format_date(d: datetime, fmt: str) -> str:
    return "".join(_date_token(d, t) if is_token else t for is_token, t in tokens(fmt))


def _date_token(d: datetime, t: str) -> str:
    hour12 = d.hour % 12 or 12
    simple = {
        "yyyy": f"{d.year:04d}", "yy": f"{d.year % 100:02d}", "y": str(d.year),
        "MMMM": MONTHS[d.month - 1], "MMM": MONTHS[d.month - 1][:3],
        "MM": f"{d.month:02d}", "M": str(d.month), "LLLL": MONTHS[d.month - 1],
        "LLL": MONTHS[d.month - 1][:3], "LL": f"{d.month:02d}", "L": str(d.month),
        "dd": f"{d.day:02d}", "d": str(d.day),
        "EEEE": _DAYS[d.weekday()], "EEE": _DAYS[d.weekday()][:3], "E": str(d.isoweekday()),
        "cccc": _DAYS[d.weekday()], "ccc": _DAYS[d.weekday()][:3], "c": str(d.isoweekday()),
        "HH": f"{d.hour:02d}", "H": str(d.hour), "hh": f"{hour12:02d}", "h": str(hour12),
        "mm": f"{d.minute:02d}", "m": str(d.minute), "ss": f"{d.second:02d}",
        "s": str(d.second), "SSS": f"{d.microsecond // 1000:03d}",
        "S": str(d.microsecond // 1000), "a": "AM" if d.hour < 12 else "PM",
        "x": str(int(epoch_ms(d))), "X": str(int(epoch_ms(d) // 1000)),
        "kkkk": f"{d.isocalendar()[0]:04d}", "kk": f"{d.isocalendar()[0] % 100:02d}",
        "WW": f"{d.isocalendar()[1]:02d}", "W": str(d.isocalendar()[1]),
        "o": str(d.timetuple().tm_yday), "ooo": f"{d.timetuple().tm_yday:03d}",
        "q": str((d.month - 1) // 3 + 1), "qq": f"{(d.month - 1) // 3 + 1:02d}",
        "D": f"{d.month}/{d.day}/{d.year}", "DD": f"{MONTHS[d.month - 1][:3]} {d.day}, {d.year}",
        "DDD": f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
        "DDDD": f"{_DAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}",
        "t": f"{hour12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}",
        "tt": f"{hour12}:{d.minute:02d}:{d.second:02d} {'AM' if d.hour < 12 else 'PM'}",
        "T": f"{d.hour:02d}:{d.minute:02d}", "TT": f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}",
    }  # fmt: skip
    if t in simple:
        return simple[t]
    if t in ("Z", "ZZ", "ZZZ"):
        off = d.utcoffset() if d.tzinfo else d.astimezone().utcoffset()
        minutes = int(off.total_seconds() // 60) if off is not None else 0
        sign, minutes = ("+" if minutes >= 0 else "-"), abs(minutes)
        h, m = divmod(minutes, 60)
        if t == "Z":
            return f"{sign}{h}" + (f":{m:02d}" if m else "")
        return f"{sign}{h:02d}" + (":" if t == "ZZ" else "") + f"{m:02d}"
    if t == "f":
        return f"{_date_token(d, 'D')}, {_date_token(d, 't')}"
    if t == "ff":
        return f"{_date_token(d, 'DD')}, {_date_token(d, 't')}"
    if t == "fff":
        return f"{_date_token(d, 'DDD')} at {_date_token(d, 't')}"
    return t  # luxon writes an unknown token as it is


def format_duration(dur: Duration, fmt: str) -> str:
    """luxon's `Duration.toFormat`: the duration shifted to the units the format's tokens name
    (S s m h d w M y), each padded to its token's length; other letters are written as is."""
    letters = {"y": "years", "M": "months", "w": "weeks", "d": "days", "h": "hours",
               "m": "minutes", "s": "seconds", "S": "milliseconds"}  # fmt: skip
    parts = tokens(fmt)
    wanted = [letters[t[0]] for is_token, t in parts if is_token and t[0] in letters]
    shifted = shift_to(dur.units, wanted) if wanted else {}
    out = []
    for is_token, t in parts:
        if is_token and t[0] in letters:
            value = round(shifted[letters[t[0]]], 3)
            whole = int(value) if float(value).is_integer() else value
            text = str(abs(whole)).rjust(len(t), "0")
            out.append(("-" if value < 0 else "") + text)
        else:
            out.append(t)
    return "".join(out)
