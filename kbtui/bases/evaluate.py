"""Evaluate an expression tree for one row: names, members, operators, calls.

`if` and the list functions `map`/`filter`/`reduce` receive their arguments unevaluated, so
`if` is lazy and `value`/`index`/`acc` are bound per element. A type mismatch is an EvalError
(the cell stays empty, a filter is false); a construct Bases does not have was refused when
the base was compiled (kbtui.bases.compile), so it never reaches here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbtui.bases import methods
from kbtui.bases.context import FORMULA, Context, NoteRef
from kbtui.bases.errors import BaseError, EvalError
from kbtui.bases.functions import GLOBALS, LAZY_GLOBALS
from kbtui.bases.methods_date import date_member
from kbtui.bases.methods_file import file_member
from kbtui.bases.parser import Node
from kbtui.bases.rows import FileRow
from kbtui.bases.values import (
    Date,
    Duration,
    Link,
    Regex,
    add_duration,
    compare,
    equal,
    parse_duration,
    to_number,
    to_text,
    truthy,
)
from kbtui.bases.values import regex as make_regex

LIST_LAMBDAS = frozenset({"map", "filter", "reduce"})
# Globals whose answer depends on their arguments alone: with literal arguments, one call per
# index state (a view's `link("Books")` is not resolved again for each of 10k rows).
PURE = frozenset({"link", "date", "duration", "list", "number", "file", "escapeHTML", "max", "min"})


def formula_value(ctx: Context, name: str) -> Any:
    """`formula.name` for the current row: once per row, cycles refused by name."""
    key = (ctx.row.file_path if ctx.row else "", name)
    if key in ctx.memo:
        return ctx.memo[key]
    if name not in ctx.formulas:
        raise BaseError(f"unknown formula `formula.{name}`")
    if name in ctx.stack:
        cycle = " -> ".join([*ctx.stack[ctx.stack.index(name) :], name])
        raise BaseError(f"formulas refer to each other in a cycle: {cycle}",
                        ctx.formula_lines.get(name))  # fmt: skip
    ctx.stack.append(name)
    try:
        value = evaluate(ctx.formulas[name], ctx)
    except EvalError:
        value = None
    finally:
        ctx.stack.pop()
    ctx.memo[key] = value
    return value


def evaluate(node: Node, ctx: Context) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "name":
        return _name(node[1], ctx)
    if kind == "member":
        return member(_value(node[1], ctx), node[2], ctx)
    if kind == "call":
        return _call(node, ctx)
    if kind == "binary":
        return _binary(node[1], node[2], node[3], ctx)
    if kind == "unary":
        value = evaluate(node[2], ctx)
        if node[1] == "!":
            return not truthy(value)
        if value is None:
            return None
        if isinstance(value, Duration):
            return Duration(-value.ms, -value.months) if node[1] == "-" else value
        number = to_number(value)
        return -number if node[1] == "-" else number
    if kind == "index":
        return index(evaluate(node[1], ctx), evaluate(node[2], ctx), ctx)
    if kind == "list":
        return [evaluate(n, ctx) for n in node[1]]
    if kind == "obj":
        return {k: evaluate(n, ctx) for k, n in node[1]}
    if kind == "regex":
        return make_regex(node[1], node[2])
    raise EvalError(f"unknown node {kind}")


def _value(node: Node, ctx: Context) -> Any:
    """The object a member is read from: `note`, `formula`, `file` and `this` as such."""
    if node[0] == "name" and node[1] in ("note", "formula") and node[1] not in ctx.scope:
        return NoteRef(ctx.row) if node[1] == "note" else FORMULA
    return evaluate(node, ctx)


def _name(name: str, ctx: Context) -> Any:
    if name in ctx.scope:
        return ctx.scope[name]
    if name == "file":
        return ctx.row
    if name == "this":
        return NoteRef(ctx.this)
    if name == "note":
        return NoteRef(ctx.row)
    if ctx.row is None:
        return None
    return ctx.rows.prop(ctx.row, name)


def member(obj: Any, name: str, ctx: Context) -> Any:
    if obj is None:
        return None
    if obj is FORMULA:
        return formula_value(ctx, name)
    if isinstance(obj, NoteRef):
        if obj.row is None:
            return None
        if name == "file":  # `this.file`, `note.file`: the file itself
            return obj.row
        return ctx.rows.prop(obj.row, name)
    if isinstance(obj, FileRow):
        return file_member(obj, name, ctx.rows)
    if isinstance(obj, (Date, Duration)):
        return date_member(obj, name)
    if isinstance(obj, (str, list)) and name == "length":
        return len(obj)
    if isinstance(obj, dict):
        return obj.get(name)
    if isinstance(obj, Link):
        row = ctx.rows.other(obj.path)
        return file_member(row, name, ctx.rows) if row else None
    return None


def index(obj: Any, key: Any, ctx: Context) -> Any:
    if obj is None or key is None:
        return None
    if isinstance(obj, (list, str)):
        try:
            i = int(to_number(key))
        except EvalError:
            return None
        return obj[i] if 0 <= i < len(obj) else None
    if isinstance(obj, NoteRef) or obj is FORMULA or isinstance(obj, (dict, FileRow, Link)):
        return member(obj, to_text(key), ctx)
    return None


def _call(node: Node, ctx: Context) -> Any:
    callee, args = node[1], node[2]
    if callee[0] == "name" and callee[1] not in ctx.scope:
        name = callee[1]
        if name in LAZY_GLOBALS:
            return LAZY_GLOBALS[name](args, ctx, evaluate)
        if name in PURE and all(a[0] == "lit" for a in args):
            known = ctx.rows.consts.get(id(node))
            if known is None or known[0] is not node:  # the node is kept: its id stays its own
                known = (node, GLOBALS[name]([a[1] for a in args], ctx))
                ctx.rows.consts[id(node)] = known
            ctx.rows.unbound += 1  # a kept `link("X")` resolved a name: as if again
            return known[1]
        return GLOBALS[name]([evaluate(a, ctx) for a in args], ctx)
    if callee[0] != "member":
        raise EvalError("only functions can be called")
    target = _value(callee[1], ctx)
    name = callee[2]
    if name in LIST_LAMBDAS:
        return _lambda(target, name, args, ctx)
    return methods.call(target, name, [evaluate(a, ctx) for a in args], ctx)


def _lambda(target: Any, name: str, args: list[Node], ctx: Context) -> Any:
    if target is None:
        return None
    if not isinstance(target, list):
        raise EvalError(f"{name}() needs a list")
    if not args:
        raise EvalError(f"{name}() needs an expression")
    body = args[0]

    def run(scope: dict[str, Any]) -> Any:
        inner = Context(ctx.rows, ctx.formulas, ctx.formula_lines, ctx.this, ctx.row,
                        {**ctx.scope, **scope}, ctx.stack, ctx.memo)  # fmt: skip
        return evaluate(body, inner)

    if name == "map":
        return [run({"value": v, "index": i}) for i, v in enumerate(target)]
    if name == "filter":
        return [v for i, v in enumerate(target) if truthy(run({"value": v, "index": i}))]
    acc = evaluate(args[1], ctx) if len(args) > 1 else None
    for i, v in enumerate(target):
        acc = run({"value": v, "index": i, "acc": acc})
    return acc


def _binary(op: str, left_node: Node, right_node: Node, ctx: Context) -> Any:
    left = evaluate(left_node, ctx)
    if op == "&&":
        return evaluate(right_node, ctx) if truthy(left) else left
    if op == "||":
        return left if truthy(left) else evaluate(right_node, ctx)
    right = evaluate(right_node, ctx)
    if op == "==":
        return equal(left, right)
    if op == "!=":
        return not equal(left, right)
    if op in ("<", "<=", ">", ">="):
        order = compare(left, right)
        if order is None:
            return False
        return _ORDER[op](order)
    return arithmetic(op, left, right)


_ORDER: dict[str, Callable[[int], bool]] = {
    "<": lambda o: o < 0, "<=": lambda o: o <= 0, ">": lambda o: o > 0, ">=": lambda o: o >= 0,
}  # fmt: skip


def arithmetic(op: str, a: Any, b: Any) -> Any:
    if isinstance(a, Date) and op in "+-":
        if isinstance(b, Date) and op == "-":
            return Duration((a.at - b.at).total_seconds() * 1000)
        if isinstance(b, (str, Duration)):
            dur = parse_duration(b) if isinstance(b, str) else b
            return add_duration(a, dur, 1 if op == "+" else -1)
        if isinstance(b, (int, float)) and not isinstance(b, bool):
            return add_duration(a, Duration(float(b)), 1 if op == "+" else -1)
    if op == "+" and (isinstance(a, str) or isinstance(b, str)):
        if isinstance(b, Date) and isinstance(a, str):
            return add_duration(b, parse_duration(a))
        return to_text(a) + to_text(b)
    if op == "+" and isinstance(a, list) and isinstance(b, list):
        return a + b
    if a is None or b is None:
        return None
    if isinstance(a, Duration) and op in "*/" and not isinstance(b, Duration):
        factor = to_number(b) if op == "*" else 1 / to_number(b) if to_number(b) else None
        if factor is None:
            return None
        return Duration(a.ms * factor, round(a.months * factor))
    if isinstance(a, Duration) and isinstance(b, Duration) and op in "+-":
        sign = 1 if op == "+" else -1
        return Duration(a.ms + sign * b.ms, a.months + sign * b.months)
    x, y = to_number(a), to_number(b)
    if op == "+":
        return _num(x + y)
    if op == "-":
        return _num(x - y)
    if op == "*":
        return _num(x * y)
    if op == "/":
        return (
            _num(x / y) if y else (float("nan") if x == 0 else float("inf") * (1 if x > 0 else -1))
        )
    if op == "%":
        return _num(x - y * int(x / y)) if y else float("nan")
    raise EvalError(f"unknown operator {op}")


def _num(v: float) -> float | int:
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


__all__ = ["Context", "NoteRef", "Regex", "evaluate", "member"]
