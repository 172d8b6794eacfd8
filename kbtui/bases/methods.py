"""Methods by the type of the value they are called on: any, string, number, list, object,
regexp; dates, files and links in their own modules. `call` picks by type at run time."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbtui.bases.context import NoteRef
from kbtui.bases.errors import EvalError
from kbtui.bases.methods_date import DATE_METHODS
from kbtui.bases.methods_file import FILE_METHODS, LINK_METHODS
from kbtui.bases.rows import FileRow
from kbtui.bases.values import (
    Date,
    Duration,
    Link,
    Regex,
    TagList,
    equal,
    format_number,
    is_empty,
    sort_key,
    to_number,
    to_text,
    truthy,
    type_name,
)

if TYPE_CHECKING:
    from kbtui.bases.context import Context

Method = Callable[[Any, list[Any], "Context"], Any]


def _arg(args: list[Any], i: int, default: Any = None) -> Any:
    return args[i] if len(args) > i else default


def _spread(args: list[Any]) -> list[Any]:
    """`containsAny(a, b)` and `containsAny([a, b])` alike."""
    return [v for a in args for v in (a if isinstance(a, list) else [a])]


def _is_type(v: Any, args: list[Any], ctx: Context) -> bool:
    wanted = to_text(_arg(args, 0)).lower()
    name = type_name(v)
    return wanted == name or (wanted == "list" and name == "array")


ANY: dict[str, Method] = {
    "isTruthy": lambda v, a, c: truthy(v),
    "isType": _is_type,
    "toString": lambda v, a, c: to_text(v),
    "isEmpty": lambda v, a, c: is_empty(v),
}


def _group_ref(m: re.Match[str]) -> str:
    """JavaScript's `$1` / `$&` in a replacement, as Python's `\\g<1>` / `\\g<0>`."""
    return "\\g<0>" if m.group(1) == "&" else f"\\g<{m.group(1)}>"


def _replace(s: str, args: list[Any], ctx: Context) -> str:
    pattern, replacement = _arg(args, 0), to_text(_arg(args, 1, ""))
    if isinstance(pattern, Regex):
        repl = re.sub(r"\$(\d+|&)", _group_ref, replacement.replace("\\", "\\\\"))
        return pattern.compiled.sub(repl, s, count=0 if "g" in pattern.flags else 1)
    return s.replace(to_text(pattern), replacement)


def _split(s: str, args: list[Any], ctx: Context) -> list[str]:
    sep, limit = _arg(args, 0), _arg(args, 1)
    if isinstance(sep, Regex):
        parts = sep.compiled.split(s)
    elif to_text(sep) == "":
        parts = list(s)
    else:
        parts = s.split(to_text(sep))
    return parts[: int(to_number(limit))] if limit is not None else parts


def _slice(v: Any, args: list[Any], ctx: Context) -> Any:
    start = int(to_number(_arg(args, 0, 0)))
    end = _arg(args, 1)
    return v[start : int(to_number(end))] if end is not None else v[start:]


def _title(s: str, args: list[Any], ctx: Context) -> str:
    return re.sub(r"\b\w", lambda m: m.group().upper(), s)


STRING: dict[str, Method] = {
    "contains": lambda s, a, c: to_text(_arg(a, 0)) in s,
    "containsAll": lambda s, a, c: all(to_text(x) in s for x in _spread(a)),
    "containsAny": lambda s, a, c: any(to_text(x) in s for x in _spread(a)),
    "endsWith": lambda s, a, c: s.endswith(to_text(_arg(a, 0))),
    "startsWith": lambda s, a, c: s.startswith(to_text(_arg(a, 0))),
    "isEmpty": lambda s, a, c: not s,
    "lower": lambda s, a, c: s.lower(),
    "upper": lambda s, a, c: s.upper(),
    "replace": _replace,
    "repeat": lambda s, a, c: s * max(0, int(to_number(_arg(a, 0, 0)))),
    "reverse": lambda s, a, c: s[::-1],
    "slice": _slice,
    "split": _split,
    "title": _title,
    "trim": lambda s, a, c: s.strip(),
}


def _round(n: float, args: list[Any], ctx: Context) -> float | int:
    digits = int(to_number(_arg(args, 0, 0)))
    scale = 10**digits
    value = math.floor(n * scale + 0.5) / scale
    return int(value) if digits <= 0 else value


def _to_fixed(n: float, args: list[Any], ctx: Context) -> str:
    digits = int(to_number(_arg(args, 0, 0)))
    if math.isnan(n) or math.isinf(n):
        return format_number(n)
    scale = 10**digits
    return f"{math.floor(abs(n) * scale + 0.5) / scale * (1 if n >= 0 else -1):.{digits}f}"


NUMBER: dict[str, Method] = {
    "abs": lambda n, a, c: abs(n),
    "ceil": lambda n, a, c: math.ceil(n) if math.isfinite(n) else n,
    "floor": lambda n, a, c: math.floor(n) if math.isfinite(n) else n,
    "round": lambda n, a, c: _round(n, a, c) if math.isfinite(n) else n,
    "toFixed": _to_fixed,
    "isEmpty": lambda n, a, c: False,
}


def _contains(items: list[Any], value: Any) -> bool:
    if isinstance(items, TagList):
        return items.has_tag(value)
    return any(equal(x, value) for x in items)


def _flat(items: list[Any], args: list[Any], ctx: Context) -> list[Any]:
    return [v for x in items for v in (x if isinstance(x, list) else [x])]


def _unique(items: list[Any], args: list[Any], ctx: Context) -> list[Any]:
    out: list[Any] = []
    for x in items:
        if not _contains(out, x):
            out.append(x)
    return out


def _mean(items: list[Any], args: list[Any], ctx: Context) -> float | None:
    """The mean of a list's numbers (the Bases syntax page's `values.mean()`, the default
    Average summary); None when it holds none."""
    nums = [to_number(x) for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]
    return sum(nums) / len(nums) if nums else None


LIST: dict[str, Method] = {
    "contains": lambda v, a, c: _contains(v, _arg(a, 0)),
    "containsAll": lambda v, a, c: all(_contains(v, x) for x in _spread(a)),
    "containsAny": lambda v, a, c: any(_contains(v, x) for x in _spread(a)),
    "flat": _flat,
    "isEmpty": lambda v, a, c: not v,
    "join": lambda v, a, c: to_text(_arg(a, 0, ",")).join(to_text(x) for x in v),
    "mean": _mean,
    "reverse": lambda v, a, c: v[::-1],
    "slice": _slice,
    "sort": lambda v, a, c: sorted(v, key=sort_key),
    "unique": _unique,
}
OBJECT: dict[str, Method] = {
    "isEmpty": lambda v, a, c: not v,
    "keys": lambda v, a, c: list(v),
    "values": lambda v, a, c: list(v.values()),
}
REGEXP: dict[str, Method] = {
    "matches": lambda r, a, c: r.compiled.search(to_text(_arg(a, 0))) is not None,
}
LAMBDAS = ("map", "filter", "reduce")
ALL_METHODS = frozenset(
    name
    for table in (
        ANY,
        STRING,
        NUMBER,
        LIST,
        OBJECT,
        REGEXP,
        DATE_METHODS,
        FILE_METHODS,
        LINK_METHODS,
    )
    for name in table
) | frozenset(LAMBDAS)


def _table(v: Any) -> dict[str, Method] | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        return STRING
    if isinstance(v, (int, float)):
        return NUMBER
    if isinstance(v, list):
        return LIST
    if isinstance(v, dict):
        return OBJECT
    if isinstance(v, Regex):
        return REGEXP
    if isinstance(v, (Date, Duration)):
        return DATE_METHODS
    if isinstance(v, FileRow):
        return FILE_METHODS
    return None


def call(target: Any, name: str, args: list[Any], ctx: Context) -> Any:
    """`target.name(args)`; a method the value's type lacks is an EvalError. A method on an
    empty value gives an empty value (isEmpty/isTruthy/isType/toString excepted)."""
    if isinstance(target, NoteRef):
        target = target.row
    if target is None:
        if name in ANY:
            return ANY[name](None, args, ctx) if name != "toString" else "null"
        return None
    table = _table(target)
    if table is not None and name in table:
        return table[name](target, args, ctx)
    if isinstance(target, Link):
        if name in LINK_METHODS:
            return LINK_METHODS[name](target, args, ctx)
        if name in STRING:  # a link's string functions work on its text
            return STRING[name](to_text(target), args, ctx)
    if name in ANY:
        return ANY[name](target, args, ctx)
    raise EvalError(f"{type_name(target)} has no function {name}()")
