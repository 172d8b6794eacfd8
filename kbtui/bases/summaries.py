"""Summaries of a column: the built-in ones (Average ... Unique) and a base's own formulas,
which see the column as `values`."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from kbtui.bases.context import Context
from kbtui.bases.errors import EvalError
from kbtui.bases.evaluate import evaluate
from kbtui.bases.parser import Node
from kbtui.bases.values import Date, Duration, equal, is_empty, to_number


def _numbers(values: list[Any]) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, (int, float, Duration)) and not isinstance(v, bool):
            out.append(to_number(v))
    return out


def _dates(values: list[Any]) -> list[Date]:
    return [v for v in values if isinstance(v, Date)]


def _range(values: list[Any]) -> Any:
    dates = _dates(values)
    if dates and len(dates) >= len(_numbers(values)):
        return Duration(
            (max(d.at for d in dates) - min(d.at for d in dates)).total_seconds() * 1000
        )
    nums = _numbers(values)
    return max(nums) - min(nums) if nums else None


def _unique(values: list[Any]) -> int:
    seen: list[Any] = []
    for v in values:
        if not is_empty(v) and not any(equal(v, s) for s in seen):
            seen.append(v)
    return len(seen)


def _num(fn: Callable[[list[float]], float]) -> Callable[[list[Any]], Any]:
    return lambda values: fn(_numbers(values)) if _numbers(values) else None


BUILT_IN: dict[str, Callable[[list[Any]], Any]] = {
    "Average": _num(statistics.fmean),
    "Min": _num(min),
    "Max": _num(max),
    "Sum": _num(sum),
    "Range": _range,
    "Median": _num(statistics.median),
    "Stddev": _num(lambda n: statistics.pstdev(n) if len(n) > 1 else 0.0),
    "Earliest": lambda v: min(_dates(v), key=lambda d: d.at, default=None),
    "Latest": lambda v: max(_dates(v), key=lambda d: d.at, default=None),
    "Checked": lambda v: sum(1 for x in v if x is True),
    "Unchecked": lambda v: sum(1 for x in v if x is False),
    "Empty": lambda v: sum(1 for x in v if is_empty(x)),
    "Filled": lambda v: sum(1 for x in v if not is_empty(x)),
    "Unique": _unique,
}


def summarize(name: str, values: list[Any], custom: dict[str, Node], ctx: Context) -> Any:
    if name in custom:
        inner = Context(ctx.rows, ctx.formulas, ctx.formula_lines, ctx.this, None,
                        {"values": values})  # fmt: skip
        try:
            return evaluate(custom[name], inner)
        except EvalError:
            return None
    return BUILT_IN[name](values)
