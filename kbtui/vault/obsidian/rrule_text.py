"""rrule.js's English grammar for recurrence rules (its nlp/parsetext.ts, BSD licence), the
one the Tasks plugin reads `🔁 every ...` with: the tokens (the longest match wins) and the
parser that turns `every 2 weeks on Monday, Friday` into a rule's options."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_TOKEN_TEXT: tuple[tuple[str, str], ...] = (
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


@lru_cache(maxsize=1)
def _tokens() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The tokens, compiled on the first rule read."""
    return tuple((name, re.compile(pattern, re.I)) for name, pattern in _TOKEN_TEXT)


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
            for name, rule in _tokens():
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
