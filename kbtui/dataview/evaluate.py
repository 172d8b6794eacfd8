"""Expressions evaluated over a row (a page, a task, a group): each tree is compiled once into
Python closures. Names read the row, then `this`; `row` is the row itself; `[[link]].x` reads
the linked page; functions come from kbtui.dataview.functions.

After blacksmithgu/obsidian-dataview (MIT), src/expression/context.ts and binaryop.ts.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from kbtui.dataview.query import DqlError
from kbtui.dataview.text import to_string
from kbtui.dataview.values import (
    Duration,
    EvalError,
    Lambda,
    Link,
    compare,
    date_of_ms,
    diff,
    equal,
    plus,
    start_of_day,
    truthy,
    type_of,
)
from kbtui.vault.obsidian.dv_values import UNIT_MS, shift_to

Row = dict[str, Any]
Fn = Callable[[Row], Any]


class Context:
    """What every expression of one query sees: `this`, links, pages by path, the clock."""

    def __init__(
        self,
        this: Row | None,
        resolve: Callable[[str], str | None],
        page: Callable[[str], Row | None],
        now: datetime | None = None,
    ) -> None:
        self.this = this or {}
        self.resolve = resolve  # a link's target -> the vault path it reaches, or None
        self.page = page  # a vault path -> its page row, or None
        self.now = now or datetime.now()
        self.functions: dict[str, Callable[..., Any]] = {}

    def link(self, link: Link) -> Link:
        """A link written in the query: its text kept, compared by the file it reaches from
        `this` ([[]] and [[#]]: the note holding the query)."""
        if not link.path:
            key: str | None = self.this.get("file", {}).get("path", "")
        else:
            key = self.resolve(link.path)
        return Link(link.path, link.display, link.subpath, link.type, link.embed, key)

    def shorthand(self, word: str) -> datetime:
        now = self.now
        today = start_of_day(now)
        first_of_week = today.fromordinal(today.toordinal() - today.weekday())
        month = today.replace(day=1)
        year = today.replace(month=1, day=1)
        end: dict[str, Any] = {"hour": 23, "minute": 59, "second": 59, "microsecond": 999000}
        next_month = month.replace(year=month.year + month.month // 12, month=month.month % 12 + 1)
        days = {
            "now": now, "today": today,
            "yesterday": date_of_ms(today.timestamp() * 1000 - 86_400_000),
            "tomorrow": date_of_ms(today.timestamp() * 1000 + 86_400_000),
            "sow": first_of_week, "start-of-week": first_of_week,
            "eow": first_of_week.fromordinal(first_of_week.toordinal() + 6).replace(**end),
            "som": month, "start-of-month": month,
            "eom": next_month.fromordinal(next_month.toordinal() - 1).replace(**end),
            "soy": year, "start-of-year": year,
            "eoy": year.replace(month=12, day=31, **end),
        }  # fmt: skip
        days["end-of-week"], days["end-of-month"] = days["eow"], days["eom"]
        days["end-of-year"] = days["eoy"]
        return days[word]

    # -- compiling ----------------------------------------------------------------------
    def compile(self, node: tuple[Any, ...]) -> Fn:
        kind = node[0]
        if kind == "lit":
            value = node[1]
            return lambda row: value
        if kind == "link":
            linked = self.link(node[1])
            return lambda row: linked
        if kind == "date":
            when = self.shorthand(node[1])
            return lambda row: when
        if kind == "var":
            return self._variable(node[1])
        if kind == "neg":
            inner = self.compile(node[1])
            return lambda row: not truthy(inner(row))
        if kind == "bin":
            return self._binary(node[1], self.compile(node[2]), self.compile(node[3]))
        if kind == "list":
            items = [self.compile(x) for x in node[1]]
            return lambda row: [f(row) for f in items]
        if kind == "obj":
            entries = [(k, self.compile(x)) for k, x in node[1]]
            return lambda row: {k: f(row) for k, f in entries}
        if kind == "lambda":
            return self._lambda(node[1], self.compile(node[2]))
        if kind == "call":
            return self._call(node[1], [self.compile(x) for x in node[2]])
        if kind == "index":
            return self._index(node[1], self.compile(node[2]))
        raise DqlError(f"unsupported expression {kind!r}")

    def _variable(self, name: str) -> Fn:
        this = self.this

        def read(row: Row) -> Any:
            if name in row:
                return row[name]
            if name == "this":
                return this
            return None

        return read

    def _lambda(self, params: tuple[str, ...], body: Fn) -> Fn:
        def make(row: Row) -> Lambda:
            def run(*args: Any) -> Any:
                scope = dict(row)
                scope.update(zip(params, args, strict=False))
                return body(scope)

            return Lambda(params, run)

        return make

    def _call(self, func: tuple[Any, ...], args: list[Fn]) -> Fn:
        if func[0] == "var":
            name = func[1]
            impl = self.functions.get(name)
            if impl is None:
                close = difflib.get_close_matches(name, self.functions, n=1)
                guess = f"; did you mean `{close[0]}()`?" if close else ""
                none = "Dataview has no function of that name"
                raise DqlError(f"unsupported function `{name}()`: {none}{guess}")
            return lambda row: impl(*[a(row) for a in args])
        target = self.compile(func)

        def call(row: Row) -> Any:
            f = target(row)
            if not isinstance(f, Lambda):
                raise EvalError(f"cannot call type '{type_of(f)}' as a function")
            return f(*[a(row) for a in args])

        return call

    def _index(self, obj: tuple[Any, ...], key: Fn) -> Fn:
        if obj == ("var", "row"):
            this = self.this

            def whole(row: Row) -> Any:
                k = key(row)
                merged = {"this": this, **row}
                return merged.get(k) if isinstance(k, str) else None

            return whole
        target = self.compile(obj)
        return lambda row: self.index(target(row), key(row))

    def index(self, value: Any, key: Any) -> Any:
        if key is None:
            return None
        if not isinstance(key, str | int | float) or isinstance(key, bool):
            raise EvalError("can only index with a string or number")
        if isinstance(value, dict):
            if not isinstance(key, str):
                raise EvalError('can only index into objects with strings (a.b or a["b"])')
            return value.get(key)
        if isinstance(value, Link):
            if not isinstance(key, str):
                raise EvalError('can only index into links with strings (a.b or a["b"])')
            page = self.page(value.target)
            return None if page is None else page.get(key)
        if isinstance(value, list):
            if isinstance(key, str):
                out = []
                for item in value:
                    try:
                        out.append(self.index(item, key))
                    except EvalError:
                        continue
                return out
            i = int(key) if float(key).is_integer() else -1
            return value[i] if 0 <= i < len(value) else None
        if isinstance(value, str):
            if isinstance(key, str):
                raise EvalError("string indexing requires a numeric index (string[index])")
            i = int(key) if float(key).is_integer() else -1
            return value[i] if 0 <= i < len(value) else None
        if isinstance(value, datetime):
            return _date_part(value, key)
        if isinstance(value, Duration):
            return _duration_part(value, key)
        return None

    def _binary(self, op: str, left: Fn, right: Fn) -> Fn:
        if op == "&":
            return lambda row: truthy(left(row)) & truthy(right(row))
        if op == "|":
            return lambda row: truthy(left(row)) | truthy(right(row))
        if op == "=":
            return lambda row: equal(left(row), right(row))
        if op == "!=":
            return lambda row: not equal(left(row), right(row))
        if op in ("<", "<=", ">", ">="):
            tests: dict[str, Callable[[int], bool]] = {
                "<": lambda c: c < 0,
                "<=": lambda c: c <= 0,
                ">": lambda c: c > 0,
                ">=": lambda c: c >= 0,
            }
            test = tests[op]
            return lambda row: test(compare(left(row), right(row)))
        return lambda row: arithmetic(op, left(row), right(row))


def _date_part(d: datetime, key: Any) -> Any:
    if not isinstance(key, str):
        raise EvalError("date indexing requires a string representing the unit")
    parts = {
        "year": d.year, "month": d.month, "weekyear": d.isocalendar()[1],
        "week": d.day // 7 + 1, "weekday": d.isoweekday(), "day": d.day, "hour": d.hour,
        "minute": d.minute, "second": d.second, "millisecond": d.microsecond // 1000,
    }  # fmt: skip
    return parts.get(key)


def _duration_part(d: Duration, key: Any) -> Any:
    if not isinstance(key, str):
        raise EvalError("duration indexing requires a string representing the unit")
    unit = key if key.endswith("s") else key + "s"
    if unit not in UNIT_MS or key == "week":
        return None
    amount = shift_to(d.units, [unit])[unit]
    return int(amount) if float(amount).is_integer() else amount


def arithmetic(op: str, a: Any, b: Any) -> Any:
    """`+ - * / %` by the operands' types, as Dataview defines them."""
    ta, tb = type_of(a), type_of(b)
    if ta == "number" and tb == "number":
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b if b != 0 else (math.nan if a == 0 else math.copysign(math.inf, a))
        if op == "%":
            return math.fmod(a, b) if b != 0 else math.nan
    if op == "+" and (ta == "string" or tb == "string"):
        return to_string(a) + to_string(b)
    if op == "*" and {ta, tb} == {"string", "number"}:
        text, times = (a, b) if ta == "string" else (b, a)
        return "" if times < 0 else text * int(times)
    if ta == "date" and tb == "date" and op == "-":
        return diff(a, b)
    if ta == "date" and tb == "duration" and op in "+-":
        return plus(a, b, 1 if op == "+" else -1)
    if ta == "duration" and tb == "date" and op == "+":
        return plus(b, a)
    if ta == "duration" and tb == "duration" and op in "+-":
        units = dict(a.units)
        for u, v in b.units.items():
            units[u] = units.get(u, 0) + (v if op == "+" else -v)
        return Duration(units).normalised()
    if ta == "duration" and tb == "number" and op in "*/":
        return a.scaled(b if op == "*" else 1 / b)
    if ta == "number" and tb == "duration" and op == "*":
        return b.scaled(a)
    if ta == "array" and tb == "array" and op == "+":
        return [*a, *b]
    if ta == "object" and tb == "object" and op == "+":
        return {**a, **b}
    if ta == "null" and tb == "null":
        return None
    if op in "+-" and {ta, tb} == {"date", "null"}:
        return None
    raise EvalError(f"No implementation found for '{ta} {op} {tb}'")
