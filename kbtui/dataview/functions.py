"""Dataview's functions (its Functions reference): constructors, numbers, lists and objects;
text and utility functions are in kbtui.dataview.functions_text. Each function checks its
arguments' types and picks the first variant that fits; most apply element by element to a
list given where a single value is expected ("vectorised"), as Dataview's do.

After blacksmithgu/obsidian-dataview (MIT), src/expression/functions.ts (`FunctionBuilder`,
`DefaultFunctions`) and its tests in src/test/function/.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from kbtui.dataview.builder import Builder, Impl, _null, _same, one
from kbtui.dataview.evaluate import Context, arithmetic
from kbtui.dataview.functions_text import text_functions
from kbtui.dataview.text import to_string
from kbtui.dataview.values import (
    EvalError,
    Lambda,
    Link,
    compare,
    equal,
    sort_key,
    truthy,
    type_of,
)


def build(ctx: Context) -> dict[str, Callable[..., Any]]:
    """Every function, bound to one query's context."""
    table: dict[str, Callable[..., Any]] = {}
    table.update(_constructors(ctx))
    table.update(_numbers())
    table.update(_lists(ctx))
    table.update(text_functions(ctx))
    return table


def _constructors(ctx: Context) -> dict[str, Builder | Impl]:
    def make_object(*args: Any) -> dict[str, Any]:
        if len(args) % 2:
            raise EvalError("object() requires an even number of arguments")
        out = {}
        for key, value in zip(args[::2], args[1::2], strict=True):
            if not isinstance(key, str):
                raise EvalError("keys should be of type string for object(key1, value1, ...)")
            out[key] = value
        return out

    def to_link(target: str, display: str | None = None, embed: bool = False) -> Link:
        return Link(ctx.resolve(target) or target, display, None, "file", embed)

    link = Builder("link")
    link.add("string")(lambda a: to_link(a))
    link.add("link")(_same)
    link.add("null")(_null)
    link.add("string", "string")(lambda t, d: to_link(t, d))
    link.add("string", "string", "boolean")(lambda t, d, e: to_link(t, d, e))
    link.add("link", "string")(lambda t, d: t.replaced(display=d))
    link.add("null", "*")(_null)
    link.add("*", "null")(lambda t, _n: link(t))
    link.vectorise(1, 0).vectorise(2, 0, 1)

    embed = Builder("embed")
    embed.add("link")(lambda a: a.replaced(embed=True))
    embed.add("link", "boolean")(lambda a, e: a.replaced(embed=e))
    for types in (("null",), ("null", "*"), ("*", "null")):
        embed.add(*types)(_null)
    embed.vectorise(1, 0).vectorise(2, 0, 1)

    kinds = Builder("typeof")
    kinds.add("*")(type_of)
    return {
        "object": make_object,
        "list": lambda *a: list(a),
        "array": lambda *a: list(a),
        "link": link,
        "embed": embed,
        "typeof": kinds,
        "string": Builder("string").add("*")(to_string),
    }


def _round(n: float, digits: float | None = None) -> float:
    """JavaScript's `Math.round`, or `parseFloat(n.toFixed(digits))`."""
    if not math.isfinite(n):
        return n
    if digits is None or digits <= 0:
        return float(math.floor(n + 0.5))
    step = Decimal(1).scaleb(-int(digits))
    return float(Decimal(n).quantize(step, rounding=ROUND_HALF_UP))


def _numbers() -> dict[str, Builder]:
    rnd = Builder("round")
    rnd.add("number")(lambda n: _int(_round(n)))
    rnd.add("null")(_null)
    rnd.add("number", "number")(lambda n, p: _int(_round(n, p)))
    rnd.add("number", "null")(lambda n, _p: _int(_round(n)))
    rnd.add("null", "*")(_null)
    rnd.vectorise(1, 0).vectorise(2, 0)
    return {
        "round": rnd,
        "trunc": one("trunc", "number", lambda n: _int(float(math.trunc(n)))),
        "floor": one("floor", "number", lambda n: _int(float(math.floor(n)))),
        "ceil": one("ceil", "number", lambda n: _int(float(math.ceil(n)))),
    }


def _int(v: float) -> float | int:
    return int(v) if math.isfinite(v) and v.is_integer() else v


def _reduce_op(items: list[Any], op: str) -> Any:
    if not items:
        return None
    if op not in ("+", "-", "*", "/", "&", "|"):
        raise EvalError("reduce(array, op) supports '+', '-', '/', '*', '&', and '|'")
    value = items[0]
    for item in items[1:]:
        if op == "&":
            value = truthy(value) and truthy(item)
        elif op == "|":
            value = truthy(value) or truthy(item)
        else:
            value = arithmetic(op, value, item)
    return value


def _lists(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def extreme(name: str, pick: Callable[[int], bool]) -> Builder:
        f = Builder(name)
        f.add("*", "null")(lambda a, _n: a)
        f.add("null", "*")(lambda _n, a: a)
        f.add("*", "*")(lambda a, b: a if pick(compare(a, b)) else b)
        f.add("array")(lambda a: f(*a))

        @f.vararg
        def many(*args: Any) -> Any:
            if not args:
                return None
            value = args[0]
            for arg in args[1:]:
                value = f(value, arg)
            return value

        return f

    out["min"] = extreme("min", lambda c: c <= 0)
    out["max"] = extreme("max", lambda c: c > 0)

    def by(name: str, pick: Callable[[int], bool]) -> Builder:
        f = Builder(name)

        @f.add("array", "function")
        def best(items: list[Any], key: Lambda) -> Any:
            if not items:
                return None
            mapped = [(v, key(v)) for v in items]
            mapped = [m for m in mapped if m[1] is not None]
            if not mapped:
                return items[0]
            chosen = mapped[0]
            for m in mapped[1:]:
                if not pick(compare(chosen[1], m[1])):
                    chosen = m
            return chosen[0]

        f.add("null", "function")(_null)
        return f

    out["minby"] = by("minby", lambda c: c <= 0)
    out["maxby"] = by("maxby", lambda c: c > 0)

    reduce = Builder("reduce")
    reduce.add("array", "string")(_reduce_op)

    @reduce.add("array", "function")
    def fold(items: list[Any], f: Lambda) -> Any:
        if not items:
            return None
        value = items[0]
        for item in items[1:]:
            if item is not None:
                value = f(value, item)
        return value

    reduce.add("null", "*")(_null)
    reduce.add("*", "null")(_null)
    reduce.vectorise(2, 1)
    out["reduce"] = reduce
    for name, op in (("sum", "+"), ("product", "*")):
        f = Builder(name)
        f.add("array")(lambda a, op=op: _reduce_op(a, op))
        f.add("*")(_same)
        out[name] = f

    def average(items: list[Any]) -> Any:
        if not items:
            return None
        total = _reduce_op(items, "+")
        return None if total is None else arithmetic("/", total, len(items))

    out["average"] = Builder("average")
    out["average"].add("array")(average)
    out["average"].add("*")(_same)
    out.update(_containers(ctx))
    return out


def _containers(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def contains_family(name: str, fold: bool, exact: bool) -> Builder:
        f = Builder(name)
        if exact:
            f.add("array", "*")(lambda items, x: any(equal(x, e) for e in items))
        else:
            f.add("array", "*")(lambda items, x: any(f(e, x) for e in items))
        if fold:
            f.add("string", "string")(lambda h, n: n.lower() in h.lower())
        else:
            f.add("string", "string")(lambda h, n: n in h)
        f.add("object", "string")(lambda o, k: k in o)
        f.add("*", "*")(equal)
        return f.vectorise(2, 1)

    out["contains"] = contains_family("contains", False, False)
    out["icontains"] = contains_family("icontains", True, False)
    out["econtains"] = contains_family("econtains", False, True)

    def extract(obj: Any, *keys: Any) -> Any:
        if isinstance(obj, list):
            return [extract(v, *keys) for v in obj]
        result = {}
        for key in keys:
            if not isinstance(key, str):
                raise EvalError("extract(object, key1, ...) must be called with string keys")
            result[key] = ctx.index(obj, key)
        return result

    out["extract"] = extract

    reverse = Builder("reverse")
    reverse.add("array")(lambda a: a[::-1])
    reverse.add("string")(lambda s: s[::-1])
    reverse.add("*")(_same)
    out["reverse"] = reverse

    sort = Builder("sort")
    sort.add("array")(lambda a: sorted(a, key=sort_key))
    sort.add("array", "function")(lambda a, k: sorted(a, key=lambda v: sort_key(k(v))))
    sort.add("*")(_same)
    out["sort"] = sort

    length = Builder("length")
    for kind in ("array", "object", "string"):
        length.add(kind)(len)
    length.add("null")(lambda _n: 0)
    out["length"] = length

    nonnull = Builder("nonnull")
    nonnull.add("array")(lambda a: [v for v in a if v is not None])
    nonnull.vararg(lambda *a: [v for v in a if v is not None])
    out["nonnull"] = nonnull
    first = Builder("firstvalue")
    first.add("array")(lambda a: next((v for v in a if v is not None), None))
    first.add("null")(_null)
    out["firstvalue"] = first

    def quantifier(name: str, test: Callable[[Any], bool]) -> Builder:
        f = Builder(name)
        f.add("array")(lambda a: test([truthy(v) for v in a]))
        f.add("array", "function")(lambda a, p: test([truthy(p(v)) for v in a]))
        f.vararg(lambda *a: test([truthy(v) for v in a]))
        return f

    out["all"] = quantifier("all", all)
    out["any"] = quantifier("any", any)
    out["none"] = quantifier("none", lambda bs: not any(bs))

    join = Builder("join")
    join.add("array", "string")(lambda a, sep: sep.join(to_string(v) for v in a))
    join.add("array", "null")(lambda a, _n: join(a, ", "))
    join.add("*", "string")(lambda v, _s: to_string(v))
    join.add("array")(lambda a: join(a, ", "))
    join.add("*")(to_string)
    out["join"] = join.vectorise(2, 1)

    for name, run in (
        ("filter", lambda a, p: [v for v in a if truthy(p(v))]),
        ("map", lambda a, p: [p(v) for v in a]),
    ):
        f = Builder(name)
        f.add("array", "function")(run)
        f.add("null", "*")(_null)
        out[name] = f

    unique = Builder("unique")

    @unique.add("array")
    def distinct(items: list[Any]) -> list[Any]:
        seen: set[Any] = set()
        kept = []
        for v in items:
            key = sort_key(v)
            if key not in seen:
                seen.add(key)
                kept.append(v)
        return kept

    unique.add("null")(_null)
    out["unique"] = unique

    def flatten(items: list[Any], depth: float = 1) -> list[Any]:
        result: list[Any] = []
        for v in items:
            if isinstance(v, list) and depth >= 1:
                result.extend(flatten(v, depth - 1))
            else:
                result.append(v)
        return result

    flat = Builder("flat")
    flat.add("array")(flatten)
    flat.add("array", "number")(flatten)
    flat.add("null")(_null)
    out["flat"] = flat

    slicer = Builder("slice")
    slicer.add("array")(lambda a: list(a))
    slicer.add("array", "number")(lambda a, s: a[_js_index(s, len(a)) :])
    slicer.add("array", "number", "number")(
        lambda a, s, e: a[_js_index(s, len(a)) : _js_index(e, len(a))]
    )
    slicer.add("null")(_null)
    out["slice"] = slicer
    return out


def _js_index(i: float, n: int) -> int:
    i = int(i)
    return max(n + i, 0) if i < 0 else min(i, n)
