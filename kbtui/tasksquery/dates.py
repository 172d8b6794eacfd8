"""Dates in Tasks queries, as the plugin reads them (its DateParser over the chrono library).

A date range is tried first: `last|this|next week|month|quarter|year` (weeks Monday to
Sunday), a numbered range (`2023`, `2023-Q4`, `2023-10`, `2023-W05`), then one or two dates
read by chrono. A single date is read by chrono too. kbtui reads the part of chrono's English
that date filters use: YYYY-MM-DD (YYYY/MM/DD), MM/DD/YYYY, today, tomorrow, yesterday, now,
weekdays with this/next/last, `in 2 weeks`, `14 days ago`, `3 days later`, `next 2 weeks`,
`next week`, month names (`14 October`, `May 25, 2023`, `May`). Text it cannot read is an
error, as the plugin's own "do not understand ... date"."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable, Mapping
from functools import lru_cache

WEEKDAYS = {
    **dict.fromkeys(("sunday", "sun", "sun."), 0),
    **dict.fromkeys(("monday", "mon", "mon."), 1),
    **dict.fromkeys(("tuesday", "tue", "tue."), 2),
    **dict.fromkeys(("wednesday", "wed", "wed."), 3),
    **dict.fromkeys(("thursday", "thurs", "thurs.", "thur", "thur.", "thu", "thu."), 4),
    **dict.fromkeys(("friday", "fri", "fri."), 5),
    **dict.fromkeys(("saturday", "sat", "sat."), 6),
}
_FULL_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
MONTHS = {name: i + 1 for i, name in enumerate(_FULL_MONTHS)}
for _i, _abbr in enumerate(
    ["jan", "feb", "mar", "apr", "-", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
):
    if _abbr != "-":
        MONTHS[_abbr] = MONTHS[_abbr + "."] = _i + 1
MONTHS["sept"] = MONTHS["sept."] = 9
NUMBERS = dict(
    zip(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ],
        range(1, 13),
        strict=True,
    )
)
UNITS = {
    **dict.fromkeys(("day", "days"), "day"),
    **dict.fromkeys(("week", "weeks"), "week"),
    **dict.fromkeys(("month", "months"), "month"),
    **dict.fromkeys(("qtr", "quarter", "quarters"), "quarter"),
    **dict.fromkeys(("y", "yr", "year", "years"), "year"),
    **dict.fromkeys(("sec", "second", "seconds", "min", "mins", "minute", "minutes"), "time"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "time"),
}


def _any(words: Mapping[str, object]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_NUM = (
    rf"(?:{_any(NUMBERS)}|[0-9]+|an?\b(?:\s{{0,2}}few)?|few|several"
    r"|a?\s{0,2}couple\s{0,2}(?:of)?)"
)
_ONE_UNIT = rf"({_NUM})\s{{0,3}}({_any(UNITS)})"
_ABOUT = r"(?:(?:about|around)\s{0,3})?"
_UNITS = rf"{_ABOUT}{_ONE_UNIT}(?:\s{{0,5}},?\s{{0,5}}{_ABOUT}{_ONE_UNIT})*"
_B = r"(?:(?<=\W)|^)"  # chrono's word-boundary check before a match
_END = r"(?=\W|$)"
_ORD = r"([0-9]{1,2})(?:st|nd|rd|th)?"
_MONTH = _any(MONTHS)
_YEAR = r"([1-2][0-9]{3}|[5-9][0-9])"


def _shift(day: dt.date, unit: str, n: int) -> dt.date:
    if unit == "day":
        return day + dt.timedelta(days=n)
    if unit == "week":
        return day + dt.timedelta(weeks=n)
    months = n * {"month": 1, "quarter": 3, "year": 12}.get(unit, 0)
    if not months:
        return day  # hours, minutes: the same day
    y, m = divmod(day.month - 1 + months, 12)
    year, month = day.year + y, m + 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _number(text: str) -> int:
    t = text.lower().strip()
    if t in NUMBERS:
        return NUMBERS[t]
    if t in ("a", "an"):
        return 1
    if "few" in t:
        return 3
    if "couple" in t:
        return 2
    if "several" in t:
        return 7
    return int(t)


def _units(text: str, ref: dt.date, sign: int) -> dt.date:
    day = ref
    for m in re.finditer(_ONE_UNIT, text, re.I):
        day = _shift(day, UNITS[m.group(2).lower()], sign * _number(m.group(1)))
    return day


def _closest_year(ref: dt.date, month: int, day: int) -> int:
    best = ref.year
    try:
        here = dt.date(ref.year, month, day)
    except ValueError:
        return ref.year
    for year in (ref.year + 1, ref.year - 1):
        try:
            if abs((dt.date(year, month, day) - ref).days) < abs((here - ref).days):
                return year
        except ValueError:
            continue
    return best


def _weekday(ref: dt.date, target: int, modifier: str | None) -> dt.date:
    dow = (ref.weekday() + 1) % 7  # Sunday 0, as dayjs counts

    def on(offset: int) -> dt.date:
        return ref + dt.timedelta(days=offset - dow)

    if modifier == "this":
        return on(target)
    if modifier == "next":
        return on(target + 7)
    if modifier == "last":
        return on(target - 7)
    if abs(target - 7 - dow) < abs(target - dow):
        return on(target - 7)
    if abs(target + 7 - dow) < abs(target - dow):
        return on(target + 7)
    return on(target)


def _modifier(m: re.Match[str]) -> str | None:
    word = (m.group(1) or m.group(3) or "").lower()
    return "last" if word == "past" else word or None


def _date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _year(text: str) -> int:
    n = int(text)
    return n + (1900 if n >= 50 else 2000) if n < 100 else n


Parser = tuple[re.Pattern[str], Callable[[re.Match[str], dt.date], dt.date | None]]


def _relative_unit(m: re.Match[str], ref: dt.date) -> dt.date | None:
    modifier, unit = m.group(1).lower(), UNITS[m.group(2).lower()]
    if modifier == "next" or modifier.startswith("after"):
        return _shift(ref, unit, 1)
    if modifier in ("last", "past"):
        return _shift(ref, unit, -1)
    if unit == "week":
        return ref - dt.timedelta(days=(ref.weekday() + 1) % 7)
    if unit == "month":
        return ref.replace(day=1)
    if unit == "year":
        return ref.replace(month=1, day=1)
    return ref


def _little_endian(m: re.Match[str], ref: dt.date) -> dt.date | None:
    day, month = int(m.group(1)), MONTHS[m.group(2).lower()]
    year = _year(m.group(3)) if m.group(3) else _closest_year(ref, month, day)
    return _date(year, month, day)


def _middle_endian(m: re.Match[str], ref: dt.date) -> dt.date | None:
    month, day = MONTHS[m.group(1).lower()], int(m.group(2))
    year = _year(m.group(3)) if m.group(3) else _closest_year(ref, month, day)
    return _date(year, month, day)


def _month_only(m: re.Match[str], ref: dt.date) -> dt.date | None:
    month = MONTHS[m.group(1).lower()]
    year = _year(m.group(2)) if m.group(2) else _closest_year(ref, month, 1)
    return _date(year, month, 1)


def _slashed(m: re.Match[str], ref: dt.date) -> dt.date | None:
    """MM/DD(/YYYY); a month past 12 with a day up to 12 is DD/MM, as chrono swaps them."""
    month, day = int(m.group(1)), int(m.group(2))
    if 12 < month <= 31 and 1 <= day <= 12:
        month, day = day, month
    return _date(_year(m.group(3)) if m.group(3) else ref.year, month, day)


_CASUAL = {"now": 0, "today": 0, "tonight": 0, "tomorrow": 1, "tmr": 1, "tmrw": 1}


def _patterns() -> tuple[tuple[str, Callable[[re.Match[str], dt.date], dt.date | None]], ...]:
    return (
        (
            r"(now|today|tonight|tomorrow|tmr|tmrw|yesterday|last\s*night)" + _END,
            lambda m, ref: ref + dt.timedelta(days=_CASUAL.get(m.group(1).lower(), -1)),
        ),
        (
            rf"(this|last|past|next|after\s*this)\s*({_any(UNITS)})" + _END,
            _relative_unit,
        ),
        (
            rf"(this|last|past|next|after|\+|-)\s*({_UNITS})" + _END,
            lambda m, ref: _units(
                m.group(2), ref, -1 if m.group(1) in ("last", "past", "-") else 1
            ),
        ),
        (
            rf"(?:within|in|for)\s*(?:(?:about|around|roughly|approximately|just)\s*(?:~\s*)?)?({_UNITS})"
            + _END,
            lambda m, ref: _units(m.group(1), ref, 1),
        ),
        (
            rf"({_UNITS})\s{{0,5}}(?:ago|before|earlier)" + _END,
            lambda m, ref: _units(m.group(1), ref, -1),
        ),
        (
            rf"({_UNITS})\s{{0,5}}(?:later|after|from now|henceforth|forward|out)" + _END,
            lambda m, ref: _units(m.group(1), ref, 1),
        ),
        (
            rf"(?:on\s*?)?(?:(this|last|past|next)\s*)?({_any(WEEKDAYS)})(?:\s*(this|last|past|next)\s*week)?"
            + _END,
            lambda m, ref: _weekday(
                ref,
                WEEKDAYS[m.group(2).lower()],
                {"past": "last"}.get(
                    (m.group(1) or m.group(3) or "").lower(),
                    (m.group(1) or m.group(3) or "").lower(),
                )
                or None,
            ),
        ),
        (
            rf"{_ORD}(?:\s{{0,3}}(?:to|\-|\u2013|until|through|till)?\s{{0,3}})?(?:of\s{{0,3}})?({_MONTH})"
            rf"(?:[\s,-]{{0,3}}{_YEAR})?" + _END,
            _little_endian,
        ),
        (rf"({_MONTH})(?:-|/|\s*,?\s*){_ORD}(?:\s*,?\s*{_YEAR})?" + _END, _middle_endian),
        (rf"(?:in\s{{0,3}})?({_MONTH})(?:\s*[,-]?\s*{_YEAR})?" + _END, _month_only),
        (
            r"([0-9]{4})[-./\s]([0-9]{1,2})[-./\s]([0-9]{1,2})(?=\W|$|T)",
            lambda m, ref: _date(int(m.group(1)), int(m.group(2)), int(m.group(3))),
        ),
        (
            r"([0-9]{1,2})/([0-9]{1,2})(?:/([0-9]{4}|[0-9]{2}))?" + _END,
            _slashed,
        ),
    )


@lru_cache(maxsize=1)
def parsers() -> tuple[Parser, ...]:
    """chrono's English parsers, compiled on the first date a query reads."""
    return tuple((re.compile(_B + pattern, re.I), run) for pattern, run in _patterns())


def find_dates(text: str, today: dt.date) -> list[dt.date]:
    """The dates chrono finds in `text`, in order (overlapping readings: the longest)."""
    return [f[2] for f in _found(text, today)]


def _found(text: str, today: dt.date) -> list[tuple[int, int, dt.date]]:
    found: list[tuple[int, int, dt.date]] = []
    for pattern, run in parsers():
        for m in pattern.finditer(text):
            day = run(m, today)
            if day is not None and m.end() > m.start():
                found.append((m.start(), m.end(), day))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    kept: list[tuple[int, int, dt.date]] = []
    for f in found:
        if kept and f[0] < kept[-1][1]:
            if f[1] - f[0] > kept[-1][1] - kept[-1][0]:
                kept[-1] = f
            continue
        kept.append(f)
    return kept


def parse_date(text: str, today: dt.date) -> dt.date | None:
    dates = find_dates(text, today)
    return dates[0] if dates else None


def _relative_range(text: str, today: dt.date) -> tuple[dt.date, dt.date] | None:
    m = re.search(r"(last|this|next) (week|month|quarter|year)", text)
    if m is None:
        return None
    step = {"last": -1, "this": 0, "next": 1}[m.group(1)]
    unit = m.group(2)
    if unit == "week":
        start = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=step)
        return start, start + dt.timedelta(days=6)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    first = (today.month - 1) // months * months + 1
    start = _shift(dt.date(today.year, first, 1), "month", step * months)
    end = _shift(start, "month", months) - dt.timedelta(days=1)
    return start, end


def _numbered_range(text: str) -> tuple[dt.date, dt.date] | None:
    t = text.strip()
    if re.fullmatch(r"[0-9]{4}", t):
        return dt.date(int(t), 1, 1), dt.date(int(t), 12, 31)
    m = re.fullmatch(r"([0-9]{4})-Q([1-4])", t)
    if m:
        start = dt.date(int(m.group(1)), 3 * int(m.group(2)) - 2, 1)
        return start, _shift(start, "month", 3) - dt.timedelta(days=1)
    m = re.fullmatch(r"([0-9]{4})-([0-9]{2})", t)
    if m:
        first = _date(int(m.group(1)), int(m.group(2)), 1)
        return (first, _shift(first, "month", 1) - dt.timedelta(days=1)) if first else None
    m = re.fullmatch(r"([0-9]{4})-W([0-9]{2})", t)
    if m:
        try:
            start = dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:
            return None
        return start, start + dt.timedelta(days=6)
    return None


def parse_range(text: str, today: dt.date) -> tuple[dt.date, dt.date] | None:
    """DateParser.parseDateRange: (start, end), or None when `text` is no date."""
    found = _relative_range(text, today)
    if found is None and (re.fullmatch(r"\s*[0-9]{4}(-Q[0-9]|-[0-9]{2}|-W[0-9]{2})?\s*", text)):
        return _numbered_range(text)
    if found is None:
        dates = find_dates(text, today)
        if not dates:
            return None
        found = (dates[0], dates[1] if len(dates) > 1 else dates[0])
    start, end = found
    return (end, start) if end < start else (start, end)


FILLER = frozenset(("the", "a", "an", "of", "at", "on", "in", "or", "and", "to", "from"))
TIME = re.compile(r"[0-9]{1,2}(?::[0-9]{2})+(?:am|pm)?|[0-9]{1,2}(?:am|pm)|noon|midnight", re.I)


def unread_words(text: str, today: dt.date, ranged: bool) -> list[str]:
    """The words of a filter's date text that no date was read from (`due befor tomorrow`:
    `befor`), as parse_range (`ranged`) or parse_date reads it; the plugin ignores them too,
    so kbtui says so rather than answering as if the line said what it meant."""
    relative = re.search(r"(last|this|next) (week|month|quarter|year)", text) if ranged else None
    if relative is not None:
        spans = [relative.span()]
    elif ranged and _numbered_range(text):
        return []
    else:
        spans = [(f[0], f[1]) for f in _found(text, today)[: 2 if ranged else 1]]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    words = re.findall(r"[^\s,]+", text)
    return [w for w in words if w.lower() not in FILLER and not TIME.fullmatch(w)]
