"""A query's data commands run in order over its rows, then its type shapes the answer: LIST
(the id and one value), TABLE (the id column, named `File` or after the GROUP BY, and the
columns), TASK (the tasks, each with the tasks under it, grouped when the query groups).

After blacksmithgu/obsidian-dataview (MIT), src/query/engine.ts (`executeCore`, `executeList`,
`executeTable`, `executeTask`) and src/ui/views/task-view.tsx (`nestItems`). A row that fails
to evaluate is dropped; a command for which every row fails fails the query, as in Dataview.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from kbtui.dataview.evaluate import Context, Fn
from kbtui.dataview.query import DqlError, Named, Query
from kbtui.dataview.values import EvalError, ListPair, equal, sort_key, truthy

ID_NAME = "File"  # Dataview's default id column


@dataclass
class DRow:
    id: Any
    data: dict[str, Any]
    sources: list[tuple[str, int | None]]  # the pages (path, None) or tasks (path, line)


@dataclass
class Meaning:
    """What a row's id is: a page (or task), or a group's key (`name`) over `on`."""

    group: str | None = None
    on: Meaning | None = None


@dataclass
class Result:
    kind: str
    show_id: bool
    id_name: str
    headers: list[str] = field(default_factory=list)
    rows: list[DRow] = field(default_factory=list)
    values: list[list[Any]] = field(default_factory=list)  # TABLE columns, LIST's value
    meaning: Meaning = field(default_factory=Meaning)
    tasks: Any = None  # TASK: items, or [{"key", "rows"}] when grouped


def _failed(op: str, errors: list[str]) -> DqlError:
    shown = "; ".join(list(dict.fromkeys(errors))[:3])  # each reason once
    return DqlError(f"every row failed during '{op}': {shown}")


def run(query: Query, rows: list[DRow], ctx: Context) -> Result:
    meaning = Meaning()
    for op in query.ops:
        incoming = len(rows)
        errors: list[str] = []
        kind = op[0]
        if kind == "where":
            test = ctx.compile(op[1])
            kept = []
            for row in rows:
                try:
                    if truthy(test(row.data)):
                        kept.append(row)
                except EvalError as exc:
                    errors.append(str(exc))
            rows = kept
        elif kind == "sort":
            rows = _sort(rows, [(ctx.compile(node), asc) for node, asc in op[1]], errors)
        elif kind == "limit":
            try:
                amount = ctx.compile(op[1])({})
            except EvalError as exc:
                raise DqlError(f"Failed to execute 'limit' statement: {exc}") from None
            if isinstance(amount, bool) or not isinstance(amount, int | float):
                raise DqlError("Failed to execute 'limit' statement: limit should be a number")
            rows = rows[: int(amount)]
        elif kind == "group":
            rows = _group(rows, op[1], ctx.compile(op[1].node), errors)
            meaning = Meaning(op[1].name, meaning)
        elif kind == "flatten":
            rows = _flatten(rows, op[1], ctx.compile(op[1].node), errors)
            if meaning.group == op[1].name and meaning.on is not None:
                meaning = meaning.on
        if errors and len(errors) >= incoming > 0:
            raise _failed(kind, errors)
    id_name = meaning.group if meaning.group is not None else ID_NAME
    result = Result(query.kind, query.show_id, id_name, rows=rows, meaning=meaning)
    if query.kind == "task":
        result.tasks = _task_groups(meaning, [r.data for r in rows])
        return result
    columns = query.columns if query.kind == "table" else []
    if query.kind == "list" and query.format is not None:
        columns = [Named("value", query.format)]
    _extract(result, [ctx.compile(c.node) for c in columns])
    result.headers = ([id_name] if query.show_id else []) + [c.name for c in query.columns]
    return result


def _sort(rows: list[DRow], keys: list[tuple[Fn, bool]], errors: list[str]) -> list[DRow]:
    tagged: list[tuple[Any, ...]] = []
    for row in rows:
        try:
            tagged.append((row, *[sort_key(f(row.data)) for f, _ in keys]))
        except EvalError as exc:
            errors.append(str(exc))
    for i in range(len(keys) - 1, -1, -1):  # stable: the last key first
        tagged.sort(key=itemgetter(i + 1), reverse=not keys[i][1])
    return [t[0] for t in tagged]


def _group(rows: list[DRow], named: Named, key_of: Fn, errors: list[str]) -> list[DRow]:
    keyed = []
    for row in rows:
        try:
            keyed.append((key_of(row.data), row))
        except EvalError as exc:
            errors.append(str(exc))
    keyed.sort(key=lambda kr: sort_key(kr[0]))
    groups: list[DRow] = []
    for key, row in keyed:
        if groups and equal(groups[-1].id, key):
            groups[-1].data["rows"].append(row.data)
            groups[-1].sources.extend(row.sources)
        else:
            data = {"key": key, "rows": [row.data], named.name: key}
            groups.append(DRow(key, data, list(row.sources)))
    return groups


def _flatten(rows: list[DRow], named: Named, value_of: Fn, errors: list[str]) -> list[DRow]:
    out = []
    for row in rows:
        try:
            value = value_of(row.data)
        except EvalError as exc:
            errors.append(str(exc))
            continue
        for item in value if isinstance(value, list) else [value]:
            out.append(DRow(row.id, {**row.data, named.name: item}, row.sources))
    return out


def _extract(result: Result, columns: list[Fn]) -> None:
    kept, values, errors = [], [], []
    for row in result.rows:
        try:
            values.append([f(row.data) for f in columns])
            kept.append(row)
        except EvalError as exc:
            errors.append(str(exc))
    if errors and len(errors) >= len(result.rows):
        raise _failed("extract", errors)
    result.rows, result.values = kept, values


def list_items(result: Result) -> list[Any]:
    """A LIST's items as Dataview renders them: id and value, the value, or the id."""
    out = []
    for row, values in zip(result.rows, result.values, strict=True):
        if values and result.show_id:
            out.append(ListPair(row.id, values[0]))
        elif values:
            out.append(values[0])
        else:
            out.append(row.id)
    return out


def _task_groups(meaning: Meaning, rows: list[dict[str, Any]]) -> Any:
    if meaning.group is None or meaning.on is None:
        return nest(rows)
    name = meaning.group
    return [{"key": r.get(name), "rows": _task_groups(meaning.on, r["rows"])} for r in rows]


def nest(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items whose parent is among the results show under it, not again on their own."""
    present = {(i["path"], i["line"]) for i in items}
    below: set[tuple[str, int]] = set()
    stack = list(items)
    while stack:
        item = stack.pop()
        for child in item.get("children", []):
            if (child["path"], child["line"]) not in below:
                below.add((child["path"], child["line"]))
                stack.append(child)
    return [
        i for i in items if "parent" not in i or (i["path"], i["parent"]) not in present | below
    ]
