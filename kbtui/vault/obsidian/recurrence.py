"""Recurrence rules as the Tasks plugin reads them: `every week on Monday`, `every month on the
last`, `every 3 days when done` ... The text is read by a port of rrule.js's English grammar
(the library the plugin uses; BSD licence) into the options of an RFC 5545 rule, the dates
come from python-dateutil's rrule (the same RFC; rrule.js is its port), and the next
occurrence follows the plugin's Recurrence and Occurrence classes: months and years that would
skip a month move back to the last day that exists, `when done` counts from today, and every
date of the task keeps its distance to the reference date (due, else scheduled, else start)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from dateutil import rrule as du

_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.I))
    for name, pattern in (
        ("SKIP", r"^[ \r\n\t]+|^\.$"),
        ("number", r"^[1-9][0-9]*"),
        ("numberAsText", r"^(one|two|three)"),
        ("every", r"^every"),
        ("day(s)", r"^days?"),
        ("weekday(s)", r"^weekdays?"),
        ("week(s)", r"^weeks?"),
        ("hour(s)", r"^hours?"),
        ("minute(s)", r"^minutes?"),
        ("month(s)", r"^months?"),
        ("year(s)", r"^years?"),
        ("on", r"^(on|in)"),
        ("at", r"^(at)"),
        ("the", r"^the"),
        ("first", r"^first"),
        ("second", r"^second"),
        ("third", r"^third"),
        ("nth", r"^([1-9][0-9]*)(\.|th|nd|rd|st)"),
        ("last", r"^last"),
        ("for", r"^for"),
        ("time(s)", r"^times?"),
        ("until", r"^(un)?til"),
        ("monday", r"^mo(n(day)?)?"),
        ("tuesday", r"^tu(e(s(day)?)?)?"),
        ("wednesday", r"^we(d(n(esday)?)?)?"),
        ("thursday", r"^th(u(r(sday)?)?)?"),
        ("friday", r"^fr(i(day)?)?"),
        ("saturday", r"^sa(t(urday)?)?"),
        ("sunday", r"^su(n(day)?)?"),
        ("january", r"^jan(uary)?"),
        ("february", r"^feb(ruary)?"),
        ("march", r"^mar(ch)?"),
        ("april", r"^apr(il)?"),
        ("may", r"^may"),
        ("june", r"^june?"),
        ("july", r"^july?"),
        ("august", r"^aug(ust)?"),
        ("september", r"^sep(t(ember)?)?"),
        ("october", r"^oct(ober)?"),
        ("november", r"^nov(ember)?"),
        ("december", r"^dec(ember)?"),
        ("comma", r"^(,\s*|(and|or)\s*)+"),
    )
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    *("january", "february", "march", "april", "may", "june", "july", "august"),
    *("september", "october", "november", "december"),
)
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY, MINUTELY = range(6)


class RuleError(ValueError):
    """Text that is not a rule the plugin reads."""


class _Parser:
    """rrule.js's tokenizer: the longest match of any token, whitespace skipped."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.done = False
        self.symbol: str | None = None
        self.value: re.Match[str] | None = None

    def next_symbol(self) -> bool:
        while True:
            self.symbol, self.value = None, None
            if self.done:
                return False
            best: re.Match[str] | None = None
            best_name = ""
            for name, rule in _TOKENS:
                m = rule.match(self.text)
                if m and (best is None or len(m.group(0)) > len(best.group(0))):
                    best, best_name = m, name
            if best is None:
                self.done = True
                return False
            self.text = self.text[len(best.group(0)) :]
            if self.text == "":
                self.done = True
            if best_name != "SKIP":
                self.symbol, self.value = best_name, best
                return True

    def is_done(self) -> bool:
        return self.done and self.symbol is None

    def accept(self, name: str) -> re.Match[str] | bool:
        if self.symbol == name:
            value = self.value
            self.next_symbol()
            return value if value is not None else True
        return False

    def expect(self, name: str) -> None:
        if not self.accept(name):
            raise RuleError(f"expected {name} but found {self.symbol}")


def parse_rule(text: str) -> dict[str, Any]:
    """rrule.js parseText: the options of the rule `text` (freq, interval, byweekday as
    (weekday, n) pairs, bymonthday, bymonth, byweekno, byhour, count, until)."""
    p = _Parser(text)
    opts: dict[str, Any] = {}
    if not p.next_symbol():
        raise RuleError("empty rule")

    def wkd() -> int | None:
        return WEEKDAYS.index(p.symbol) if p.symbol in WEEKDAYS else None

    def month() -> int | None:
        return MONTHS.index(p.symbol) + 1 if p.symbol in MONTHS else None

    def nth() -> int | None:
        sym = p.symbol
        if sym == "last":
            p.next_symbol()
            return -1
        if sym == "first":
            p.next_symbol()
            return 1
        if sym in ("second", "third"):
            n = 2 if sym == "second" else 3
            p.next_symbol()
            return -n if p.accept("last") else n
        if sym == "nth" and p.value is not None:
            v = int(p.value.group(1))
            if v > 366:
                raise RuleError(f"Nth out of range: {v}")
            p.next_symbol()
            return -v if p.accept("last") else v
        return None

    def on() -> None:
        a, b = p.accept("on"), p.accept("the")
        if not (a or b):
            return
        while True:
            n, w, m = nth(), wkd(), month()
            if n:
                if w is not None:
                    p.next_symbol()
                    opts.setdefault("byweekday", []).append((w, n))
                else:
                    opts.setdefault("bymonthday", []).append(n)
                    p.accept("day(s)")
            elif w is not None:
                p.next_symbol()
                opts.setdefault("byweekday", []).append((w, 0))
            elif p.symbol == "weekday(s)":
                p.next_symbol()
                opts.setdefault("byweekday", [(d, 0) for d in range(5)])
            elif p.symbol == "week(s)":
                p.next_symbol()
                num = p.accept("number")
                if not isinstance(num, re.Match):
                    raise RuleError("expected week number")
                opts["byweekno"] = [int(num.group(0))]
                while p.accept("comma"):
                    num = p.accept("number")
                    if not isinstance(num, re.Match):
                        raise RuleError("expected monthday")
                    opts["byweekno"].append(int(num.group(0)))
            elif m:
                p.next_symbol()
                opts.setdefault("bymonth", []).append(m)
            else:
                return
            if not (p.accept("comma") or p.accept("the") or p.accept("on")):
                return

    def at() -> None:
        if not p.accept("at"):
            return
        while True:
            num = p.accept("number")
            if not isinstance(num, re.Match):
                raise RuleError("expected hour")
            opts["byhour"] = [int(num.group(0))]
            while p.accept("comma"):
                num = p.accept("number")
                if not isinstance(num, re.Match):
                    raise RuleError("expected hour")
                opts["byhour"].append(int(num.group(0)))
            if not (p.accept("comma") or p.accept("at")):
                return

    def mdays() -> None:
        p.accept("on")
        p.accept("the")
        n = nth()
        if not n:
            return
        opts["bymonthday"] = [n]
        p.next_symbol()
        while p.accept("comma"):
            n = nth()
            if not n:
                raise RuleError("expected monthday")
            opts["bymonthday"].append(n)
            p.next_symbol()

    def until_or_count() -> None:
        if p.symbol == "until":
            raise RuleError("until is not supported")  # the plugin's docs: not usable
        if p.accept("for"):
            if p.value is None:
                raise RuleError("expected number")
            opts["count"] = int(p.value.group(0))
            p.expect("number")

    p.expect("every")
    num = p.accept("number")
    if isinstance(num, re.Match):
        opts["interval"] = int(num.group(0))
    if p.is_done():
        raise RuleError("Unexpected end")
    sym = p.symbol
    simple = {"day(s)": DAILY, "hour(s)": HOURLY, "minute(s)": MINUTELY}
    if sym in simple:
        opts["freq"] = simple[sym]
        if p.next_symbol():
            if sym == "day(s)":
                at()
            else:
                on()
            until_or_count()
    elif sym == "weekday(s)":
        opts["freq"] = WEEKLY
        opts["byweekday"] = [(d, 0) for d in range(5)]
        p.next_symbol()
        at()
        until_or_count()
    elif sym in ("week(s)", "month(s)", "year(s)"):
        opts["freq"] = {"week(s)": WEEKLY, "month(s)": MONTHLY, "year(s)": YEARLY}[sym]
        if p.next_symbol():
            on()
            if sym == "week(s)":
                at()
            until_or_count()
    elif sym in WEEKDAYS:
        opts["freq"] = WEEKLY
        opts["byweekday"] = [(WEEKDAYS.index(sym), 0)]
        if not p.next_symbol():
            return opts
        while p.accept("comma"):
            if p.is_done():
                raise RuleError("Unexpected end")
            w = wkd()
            if w is None:
                raise RuleError(f"Unexpected symbol {p.symbol}, expected weekday")
            opts["byweekday"].append((w, 0))
            p.next_symbol()
        at()
        mdays()
        until_or_count()
    elif sym in MONTHS:
        opts["freq"] = YEARLY
        opts["bymonth"] = [MONTHS.index(sym) + 1]
        if not p.next_symbol():
            return opts
        while p.accept("comma"):
            if p.is_done():
                raise RuleError("Unexpected end")
            m = month()
            if not m:
                raise RuleError(f"Unexpected symbol {p.symbol}, expected month")
            opts["bymonth"].append(m)
            p.next_symbol()
        on()
        until_or_count()
    else:
        raise RuleError("Unknown symbol")
    return opts


def _nth(n: int) -> str:
    if n == -1:
        return "last"
    a = abs(n)
    suffix = {1: "st", 21: "st", 31: "st", 2: "nd", 22: "nd", 3: "rd", 23: "rd"}.get(a, "th")
    return f"{a}{suffix} last" if n < 0 else f"{a}{suffix}"


def _list(items: list[str], final: str | None = None) -> str:
    if final is None or len(items) < 2:
        return ", ".join(items) if final is None else "".join(items)
    return ", ".join(items[:-1]) + f" {final} " + items[-1]


def _day(w: tuple[int, int]) -> str:
    return (_nth(w[1]) + " " if w[1] else "") + DAY_NAMES[w[0]]


def rule_text(opts: dict[str, Any]) -> str:
    """rrule.js toText: the rule as the plugin writes it back (`every Sunday` ->
    `every week on Sunday`)."""
    out = ["every"]
    freq, interval = opts["freq"], opts.get("interval", 1)
    plural = interval % 100 != 1
    raw_md = opts.get("bymonthday")
    md = None
    if raw_md:
        md = sorted(d for d in raw_md if d > 0) + sorted((d for d in raw_md if d < 0), reverse=True)
    wd = opts.get("byweekday")
    all_weeks = sorted((w for w in wd if not w[1]), key=lambda w: w[0]) if wd else []
    some_weeks = sorted((w for w in wd if w[1]), key=lambda w: w[0]) if wd else []
    days = {w[0] for w in wd} if wd else set()
    weekdays, every_day = days == set(range(5)), days == set(range(7))
    months = _list([MONTHS[m - 1].capitalize() for m in opts.get("bymonth") or []], "and")

    def by_monthday() -> None:
        assert md is not None
        if all_weeks:
            out.extend(["on", _list([_day(w) for w in all_weeks], "or"), "the"])
            out.append(_list([_nth(d) for d in md], "or"))
        else:
            out.extend(["on the", _list([_nth(d) for d in md], "and")])

    def by_weekday() -> None:
        if all_weeks and not weekdays:
            out.extend(["on", _list([_day(w) for w in all_weeks])])
        if some_weeks:
            if all_weeks:
                out.append("and")
            out.extend(["on the", _list([_day(w) for w in some_weeks], "and")])

    if freq in (HOURLY, MINUTELY):
        if interval != 1:
            out.append(str(interval))
        unit = "hour" if freq == HOURLY else "minute"
        out.append(unit + ("s" if plural else ""))
    elif freq == DAILY:
        if interval != 1:
            out.append(str(interval))
        out.append(("weekday" if wd and weekdays else "day") + ("s" if plural else ""))
        if opts.get("bymonth"):
            out.extend(["in", months])
        if md:
            by_monthday()
        elif wd:
            by_weekday()
        elif opts.get("byhour"):
            out.extend(["at", _list([str(h) for h in opts["byhour"]], "and")])
    elif freq == WEEKLY:
        if interval != 1:
            out.extend([str(interval), "weeks" if plural else "week"])
        if wd and weekdays:
            out.extend(["weekday"] if interval == 1 else ["on", "weekdays"])
        elif wd and every_day:
            out.append("days" if plural else "day")
        else:
            if interval == 1:
                out.append("week")
            if opts.get("bymonth"):
                out.extend(["in", months])
            if md:
                by_monthday()
            elif wd:
                by_weekday()
            if opts.get("byhour"):
                out.extend(["at", _list([str(h) for h in opts["byhour"]], "and")])
    elif freq == MONTHLY:
        if opts.get("bymonth"):
            if interval != 1:
                out.extend([str(interval), "months"])
                if plural:
                    out.append("in")
            out.append(months)
        else:
            if interval != 1:
                out.append(str(interval))
            out.append("months" if plural else "month")
        if md:
            by_monthday()
        elif wd and weekdays:
            out.extend(["on", "weekdays"])
        elif wd:
            by_weekday()
    else:  # YEARLY
        if opts.get("bymonth"):
            if interval != 1:
                out.extend([str(interval), "years"])
            out.append(months)
        else:
            if interval != 1:
                out.append(str(interval))
            out.append("years" if plural else "year")
        if md:
            by_monthday()
        elif wd:
            by_weekday()
        if opts.get("byweekno"):
            weeks = opts["byweekno"]
            out.extend(["in", "weeks" if len(weeks) % 100 != 1 else "week"])
            out.append(_list([str(w) for w in weeks], "and"))
    if opts.get("count"):
        count = opts["count"]
        out.extend(["for", str(count), "times" if count % 100 != 1 else "time"])
    return " ".join(out)


@dataclass(frozen=True)
class Rule:
    """A rule the plugin reads: its options, whether it counts from the day it is done."""

    options: dict[str, Any]
    when_done: bool

    def text(self) -> str:
        return rule_text(self.options) + (" when done" if self.when_done else "")

    def _rrule(self, start: dt.datetime) -> du.rrule:
        o = self.options
        kwargs: dict[str, Any] = {"dtstart": start, "interval": o.get("interval", 1)}
        for key in ("bymonthday", "bymonth", "byweekno", "byhour", "count"):
            if o.get(key):
                kwargs[key] = o[key]
        if o.get("byweekday"):
            days = o["byweekday"]
            kwargs["byweekday"] = [du.weekday(w, n) if n else du.weekday(w) for w, n in days]
        return du.rrule(o["freq"], **kwargs)

    def next_after(self, reference: dt.date) -> dt.date | None:
        """The plugin's Recurrence.nextAfter from the end of `reference`."""
        start = dt.datetime.combine(reference, dt.time())
        after = start + dt.timedelta(days=1) - dt.timedelta(microseconds=1000)
        found = self._rrule(start).after(after)
        text = self.text()
        m = re.search(r"every( \d+)? month(s)?(.*)?", text)
        if m is not None and " on " not in text:
            found = self._back_off(after, found, int(m.group(1) or 1), months=True)
        m = re.search(r"every( \d+)? year(s)?(.*)?", text)
        if m is not None:
            found = self._back_off(after, found, int(m.group(1) or 1), months=False)
        return found.date() if found is not None else None

    def _back_off(
        self, after: dt.datetime, found: dt.datetime | None, step: int, months: bool
    ) -> dt.datetime | None:
        """While the next date skips too many months (years), try from one day earlier."""
        for _ in range(400):
            if found is None:
                return None
            gap = found.year - after.year
            if months:
                gap = gap * 12 + found.month - after.month
            if gap <= step:
                return found
            after = dt.datetime.combine(after.date() - dt.timedelta(days=1), dt.time())
            found = self._rrule(after).after(after)
        return found


def read_rule(text: str) -> Rule | None:
    """The rule in `text` (what follows 🔁), or None when the plugin cannot read it."""
    m = re.match(r"^([a-zA-Z0-9, !]+?)( when done)?$", text.strip(), re.I)
    if m is None:
        return None
    try:
        return Rule(parse_rule(m.group(1).strip()), m.group(2) is not None)
    except (RuleError, ValueError, IndexError):
        return None


def next_dates(
    rule: Rule,
    dates: dict[str, dt.date | str | None],
    today: dt.date,
    start_before_scheduled: bool = False,
    drop_scheduled: bool = False,
) -> dict[str, dt.date | None] | None:
    """The next occurrence's start, scheduled and due dates (the plugin's Occurrence.next).
    `dates` holds each as a date, None (absent) or "invalid"; None when the rule gives no
    next date or the reference date is not a real day (the plugin then has no recurrence)."""
    order = ("due", "scheduled", "start")
    if start_before_scheduled:
        order = ("due", "start", "scheduled")
    reference = next((dates[k] for k in order if dates.get(k) is not None), None)
    if reference == "invalid":
        return None
    assert reference is None or isinstance(reference, dt.date)
    nxt = rule.next_after(today if rule.when_done else reference or today)
    if nxt is None:
        return None
    out: dict[str, dt.date | None] = {}
    for key in ("start", "scheduled", "due"):
        value = dates.get(key)
        if reference is None or value is None:
            out[key] = None
        elif isinstance(value, dt.date):
            out[key] = nxt + (value - reference)
        else:  # an invalid date takes the reference's new date
            out[key] = nxt
    if drop_scheduled and (dates.get("start") is not None or dates.get("due") is not None):
        out["scheduled"] = None
    return out
