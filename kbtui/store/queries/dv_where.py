"""A Dataview query's WHERE conditions (kbtui.dataview.prefilter builds them) as DuckDB SQL over
`n` (notes), `p` (dv_pages) and, for tasks, `i` (dv_items). Values are parameters.

A field's value is JSON in kbtui.vault.obsidian.dv_values' encoding; its Dataview type is read
from it (a date is {"$date": ...}), and a comparison with a literal follows Dataview's order:
values of different types compare by their types' names, null below everything. What SQL
cannot decide renders TRUE in "sup" mode (a condition every passing row meets) and FALSE in
"sub" mode (one only passing rows meet).
"""

from __future__ import annotations

import json
from typing import Any

_RANK = {k: i for i, k in enumerate(("array", "boolean", "date", "duration", "function", "link",
                                     "number", "object", "string", "widget"))}  # fmt: skip
_RANK["null"] = -1
_SQL_OP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_TASK_DATES = {"created": ("created", "ctime", "cday"), "due": ("due", "duetime", "dueday"),
               "completion": ("completed", "completion", "comptime", "compday"),
               "start": ("start",), "scheduled": ("scheduled",)}  # fmt: skip
_NAME = r"regexp_replace(regexp_extract(n.path, '[^/]*$'), '\.md$', '')"
_FOLDER = "CASE WHEN contains(n.path, '/') THEN regexp_extract(n.path, '(?s)^(.*)/', 1) ELSE '' END"
_FILE = {"name": _NAME, "folder": _FOLDER, "path": "n.path"}
_TEXT = {"eq": "{f} = {x}", "contains": "contains({f}, {x})", "prefix": "starts_with({f}, {x})",
         "suffix": "suffix({f}, {x})"}  # fmt: skip


class Params(dict[str, Any]):
    def __call__(self, value: Any) -> str:
        name = f"w{len(self)}"
        self[name] = value
        return "$" + name


def _key_path(key: str) -> str | None:
    return None if '"' in key or "\\" in key else f'$."{key}"'


def render(cond: tuple[Any, ...], p: Params, mode: str = "sup") -> str:
    kind = cond[0]
    unknown = "TRUE" if mode == "sup" else "FALSE"
    if kind in ("true", "false"):
        return str(kind).upper()
    if kind in ("and", "or"):
        return f"({render(cond[1], p, mode)} {kind.upper()} {render(cond[2], p, mode)})"
    if kind == "not":
        return f"(NOT {render(cond[1], p, mode)})"
    if kind == "approx":
        return render(cond[1], p, "sub")
    if kind == "status":
        return ("i.status IN ('x', 'X')" if cond[1] == "completed"
                else "i.status NOT IN ('', ' ')")  # fmt: skip
    if kind == "status_is":
        return f"i.status = {p(cond[1])}"
    if kind == "file":
        return _TEXT[cond[2]].format(f=_FILE[cond[1]], x=p(cond[3]))
    if kind == "task_text":
        return f"contains(i.text, {p(cond[1])})"
    if kind == "tags_text":
        needle = cond[2]
        if json.dumps(needle, ensure_ascii=False)[1:-1] != needle:
            return unknown
        column = "i.tags" if cond[1] == "task" else "p.etags"
        return f"contains({column}, {p(needle)})"
    if kind == "cmp" and cond[1] == "task_date":
        return f"coalesce({_task_date(cond, p, unknown)}, false)"
    value = _value(cond[1], cond[2], p)
    if value is None:
        return unknown
    if kind == "truthy":
        return f"coalesce({_truthy(value)}, false)"
    if kind == "contains":
        t = _type(value)
        return (f"coalesce(CASE {t} WHEN 'string' THEN contains(json_extract_string({value}, '$'), "
                f"{p(cond[3])}) WHEN 'array' THEN {unknown} WHEN 'object' THEN {unknown} "
                f"ELSE false END, false)")  # fmt: skip
    if kind == "cmp":
        return f"coalesce({_compare(value, cond[3], cond[4], cond[5], p, unknown)}, false)"
    raise ValueError(f"unknown condition {kind!r}")


def _value(scope: str, key: str, p: Params) -> str | None:
    """SQL for the JSON value a row's field holds, NULL when it has none."""
    if scope == "page":
        path = _key_path(key)
        return f"json_extract(p.fields, {p(path)})" if path else None
    names = _TASK_DATES[key] if scope == "task_date" else (key,)
    if any(_key_path(k) is None for k in names):
        return None
    whens = []
    for name in names:
        path = p(_key_path(name))
        if scope == "task_date":  # the first value of the first of its keys
            first = p(f'$."{name}"[0]')
            whens.append(f"WHEN json_exists(i.fields, {path}) THEN json_extract(i.fields, {first})")
        else:  # one value as itself, several as a list
            first = p(f'$."{name}"[0]')
            whole = f"json_extract(i.fields, {path})"
            whens.append(f"WHEN json_exists(i.fields, {path}) THEN CASE WHEN "
                         f"json_array_length({whole}) = 1 THEN "
                         f"json_extract(i.fields, {first}) ELSE {whole} END")  # fmt: skip
    page = p(_key_path(key))
    return f"(CASE {' '.join(whens)} ELSE json_extract(p.fields, {page}) END)"


def _task_date(cond: tuple[Any, ...], p: Params, unknown: str) -> str:
    """A task's date (its own column, kbtui/store/migrations/011) compared with a literal; a
    task without one reads its page's field of that name, as Dataview's task rows do."""
    _kind, _scope, name, op, kind, literal = cond
    column = f"i.{name}"
    sql_op = _SQL_OP[op]
    if kind == "date":
        same = f"{column} {sql_op} {p(literal)}"
    elif kind == "null":
        same = {"=": "false", "!=": "true", "<": "false", "<=": "false", ">": "true",
                ">=": "true"}[op]  # fmt: skip
    else:
        same = {"=": "false", "!=": "true"}.get(op, f"{_RANK['date']} {sql_op} {_RANK[kind]}")
    page = _value("page", name, p)
    fallback = _compare(page, op, kind, literal, p, unknown) if page else unknown
    return (
        f"CASE WHEN {column} = '?' THEN {unknown} WHEN {column} <> '' THEN ({same}) "
        f"ELSE ({fallback}) END"
    )


def _type(v: str) -> str:
    return (f"(CASE WHEN {v} IS NULL OR json_type({v}) = 'NULL' THEN 'null' "
            f"WHEN json_type({v}) IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'HUGEINT') THEN 'number' "
            f"WHEN json_type({v}) = 'BOOLEAN' THEN 'boolean' "
            f"WHEN json_type({v}) = 'VARCHAR' THEN 'string' "
            f"WHEN json_type({v}) = 'ARRAY' THEN 'array' "
            f"WHEN json_exists({v}, '$.\"$date\"') THEN 'date' "
            f"WHEN json_exists({v}, '$.\"$dur\"') THEN 'duration' "
            f"WHEN json_exists({v}, '$.\"$link\"') THEN 'link' ELSE 'object' END)")  # fmt: skip


def _rank(t: str) -> str:
    return "(CASE " + t + " " + " ".join(f"WHEN '{k}' THEN {r}" for k, r in _RANK.items()) + " END)"


def _truthy(v: str) -> str:
    s = f"json_extract_string({v}, '$')"
    return (f"CASE {_type(v)} WHEN 'null' THEN false WHEN 'boolean' THEN {s} = 'true' "
            f"WHEN 'number' THEN TRY_CAST({s} AS DOUBLE) <> 0 WHEN 'string' THEN length({s}) > 0 "
            f"WHEN 'array' THEN json_array_length({v}) > 0 "
            f"WHEN 'link' THEN length(json_extract_string({v}, '$.\"$link\".path')) > 0 "
            f"WHEN 'duration' THEN {v}::VARCHAR <> '{{\"$dur\":{{}}}}' "
            f"WHEN 'object' THEN {v}::VARCHAR <> '{{\"$obj\":{{}}}}' ELSE true END")  # fmt: skip


def _compare(v: str, op: str, kind: str, literal: Any, p: Params, unknown: str) -> str:
    t = _type(v)
    if kind == "null":  # every test names the value, so its parameters stay used
        tests = {"=": "= 'null'", "!=": "<> 'null'", "<": "IS NULL", "<=": "= 'null'",
                 ">": "<> 'null'", ">=": "IS NOT NULL"}  # fmt: skip
        return f"{t} {tests[op]}"
    sql_op = _SQL_OP[op]
    s = f"json_extract_string({v}, '$')"
    if kind == "number":
        same = f"TRY_CAST({s} AS DOUBLE) {sql_op} {p(literal)}"
    elif kind == "boolean":
        same = f"({s} = 'true')::INTEGER {sql_op} {int(literal)}"
    elif kind == "string":
        same = f"{s} {sql_op} {p(literal)}" if op in ("=", "!=") else unknown
    else:  # a date: zone-less ISO text orders as the dates do
        d = f"json_extract_string({v}, '$.\"$date\"')"
        same = f"CASE WHEN length({d}) = 23 THEN {d} {sql_op} {p(literal)} ELSE {unknown} END"
    if op == "=":
        other = "false"
    elif op == "!=":
        other = "true"
    else:
        other = f"{_rank(t)} {sql_op} {_RANK[kind]}"
    return f"CASE WHEN {t} = '{kind}' THEN ({same}) ELSE ({other}) END"
