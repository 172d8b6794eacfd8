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
from functools import lru_cache
from typing import Any

from dateutil import rrule as du

from kbtui.vault.obsidian.rrule_text import (
    DAILY,
    DAY_NAMES,
    HOURLY,
    MINUTELY,
    MONTHLY,
    MONTHS,
    WEEKLY,
    RuleError,
    parse_rule,
)


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


@lru_cache(maxsize=4096)
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
