"""The global functions of Bases (`date()`, `if()`, `link()`, `list()` ...)."""

from __future__ import annotations

import html as html_lib
import random as random_lib
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kbtui.bases import methods
from kbtui.bases.errors import EvalError
from kbtui.bases.values import (
    Date,
    Duration,
    Link,
    Rendered,
    compare,
    file_path,
    is_empty,
    parse_date,
    parse_duration,
    to_number,
    to_text,
    truthy,
)

if TYPE_CHECKING:
    from kbtui.bases.context import Context


def _one(args: list[Any], name: str) -> Any:
    if not args:
        raise EvalError(f"{name}() needs an argument")
    return args[0]


def _date(args: list[Any], ctx: Context) -> Any:
    value = _one(args, "date")
    if value is None or isinstance(value, Date):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Date(datetime.fromtimestamp(value / 1000))
    parsed = parse_date(to_text(value))
    if parsed is None:
        raise EvalError(f"{to_text(value)!r} is not a date")
    return parsed


def _duration(args: list[Any], ctx: Context) -> Any:
    value = _one(args, "duration")
    if isinstance(value, Duration):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Duration(float(value))
    return parse_duration(to_text(value))


def _file(args: list[Any], ctx: Context) -> Any:
    value = _one(args, "file")
    path = file_path(value)
    if path is None and value is not None:
        path = ctx.rows.resolve(to_text(value), None)
    return ctx.rows.other(path)


def _link(args: list[Any], ctx: Context) -> Any:
    value = _one(args, "link")
    display = args[1] if len(args) > 1 else None
    path = file_path(value)
    if path is not None:
        return Link(path.removesuffix(".md"), display, path)
    if value is None:
        return None
    return ctx.rows.link(to_text(value), None, display)


def _list(args: list[Any], ctx: Context) -> Any:
    value = args[0] if args else None
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _number(args: list[Any], ctx: Context) -> Any:
    value = _one(args, "number")
    return None if value is None else to_number(value)


def _extreme(pick: int) -> Callable[[list[Any], Context], Any]:
    def run(args: list[Any], ctx: Context) -> Any:
        flat = [v for a in args for v in (a if isinstance(a, list) else [a]) if v is not None]
        best = None
        for v in flat:
            if best is None or (compare(v, best) or 0) * pick > 0:
                best = v
        return best

    return run


def _now(args: list[Any], ctx: Context) -> Any:
    return Date(datetime.now().replace(microsecond=datetime.now().microsecond // 1000 * 1000))


def _today(args: list[Any], ctx: Context) -> Any:
    now = datetime.now()
    return Date(datetime(now.year, now.month, now.day), has_time=False)


def _rendered(kind: str) -> Callable[[list[Any], Context], Any]:
    def run(args: list[Any], ctx: Context) -> Any:
        value = _one(args, kind)
        return Rendered(kind, file_path(value) or to_text(value))

    return run


def _contains(args: list[Any], ctx: Context) -> Any:
    if len(args) != 2:
        raise EvalError("contains() needs a value and what to look for")
    return methods.call(args[0], "contains", [args[1]], ctx)


GLOBALS: dict[str, Callable[[list[Any], Context], Any]] = {
    "escapeHTML": lambda a, c: html_lib.escape(to_text(_one(a, "escapeHTML"))),
    "date": _date,
    "duration": _duration,
    "file": _file,
    "html": _rendered("html"),
    "image": _rendered("image"),
    "icon": _rendered("icon"),
    "link": _link,
    "list": _list,
    "max": _extreme(1),
    "min": _extreme(-1),
    "now": _now,
    "number": _number,
    "today": _today,
    "random": lambda a, c: random_lib.random(),
    # From the first Bases release, still in real bases (kepano's Shows.base) though no longer
    # on the Functions page: not(x) is !x, empty(x) is x.isEmpty(), contains(a, b) is
    # a.contains(b).
    "not": lambda a, c: not truthy(_one(a, "not")),
    "empty": lambda a, c: is_empty(_one(a, "empty")),
    "contains": _contains,
}


def _if(args: list[Any], ctx: Context, evaluate: Callable[[Any, Context], Any]) -> Any:
    if len(args) < 2:
        raise EvalError("if() needs a condition and a result")
    if truthy(evaluate(args[0], ctx)):
        return evaluate(args[1], ctx)
    return evaluate(args[2], ctx) if len(args) > 2 else None


LAZY_GLOBALS: dict[str, Callable[[list[Any], Context, Callable[[Any, Context], Any]], Any]] = {
    "if": _if,
}
ALL_GLOBALS = frozenset(GLOBALS) | frozenset(LAZY_GLOBALS)
