"""The WHERE commands of a query that SQL can decide, compiled into conditions the store
renders as DuckDB SQL (kbtui.store.queries.dv_where), so only the pages (TASK: the tasks) that
may pass are read and evaluated.

Only WHERE commands before any LIMIT, GROUP BY or FLATTEN are taken (SORT does not change which
rows pass). Each is compiled to a pair of conditions: `sup`, true for every row it passes, and
`sub`, true only for rows it passes; `and`/`or` pair up, `!` swaps the two; what SQL cannot
decide is (TRUE, FALSE). Python still evaluates every candidate, so the answer is the
evaluator's own. Compiled: a field (property or inline field; a task's own or its page's)
compared with a number, text, boolean, null or date literal, and tested for truth; a task's
`completed`, `checked`, `status`, `text`, `tags`; `file.name`, `file.folder`, `file.path` equal
to, containing, starting or ending with a text; `contains(file.tags, "#t")`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbtui.dataview.evaluate import Context
from kbtui.dataview.query import Query

Cond = tuple[Any, ...]
TRUE: Cond = ("true",)
FALSE: Cond = ("false",)
# what a TASK row holds of its own, before its page's fields (pages.py: PageBuilder.items)
TASK_KEYS = frozenset(
    [
        "symbol",
        "link",
        "section",
        "text",
        "tags",
        "line",
        "lineCount",
        "list",
        "outlinks",
        "path",
        "children",
        "task",
        "annotated",
        "position",
        "subtasks",
        "real",
        "header",
        "parent",
        "blockId",
        "status",
        "checked",
        "completed",
        "fullyCompleted",
        "created",
        "due",
        "completion",
        "start",
        "scheduled",
        "file",
    ]
)
TASK_DATES = {"created": ("created", "ctime", "cday"), "due": ("due", "duetime", "dueday"),
              "completion": ("completed", "completion", "comptime", "compday"),
              "start": ("start",), "scheduled": ("scheduled",)}  # fmt: skip
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!="}
_FILE_ATTRS = ("name", "folder", "path")


def conditions(query: Query, ctx: Context) -> Cond:
    """The superset condition of the query's leading WHERE commands (TRUE when none)."""
    scope = "task" if query.kind == "task" else "page"
    found: list[Cond] = []
    for op in query.ops:
        if op[0] in ("limit", "group", "flatten"):
            break
        if op[0] == "where":
            found.append(Compiler(scope, ctx).pair(op[1])[0])
    return _and(found)


def _and(parts: list[Cond]) -> Cond:
    parts = [p for p in parts if p != TRUE]
    if FALSE in parts:
        return FALSE
    if not parts:
        return TRUE
    out = parts[0]
    for p in parts[1:]:
        out = ("and", out, p)
    return out


def _or(a: Cond, b: Cond) -> Cond:
    if TRUE in (a, b):
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE:
        return a
    return ("or", a, b)


def _not(a: Cond) -> Cond:
    return FALSE if a == TRUE else TRUE if a == FALSE else ("not", a)


class Compiler:
    def __init__(self, scope: str, ctx: Context) -> None:
        self.scope = scope
        self.ctx = ctx

    def pair(self, node: tuple[Any, ...]) -> tuple[Cond, Cond]:
        kind = node[0]
        if kind == "neg":
            sup, sub = self.pair(node[1])
            return _not(sub), _not(sup)
        if kind == "bin" and node[1] in ("&", "|"):
            (a_sup, a_sub), (b_sup, b_sub) = self.pair(node[2]), self.pair(node[3])
            if node[1] == "&":
                return _and([a_sup, b_sup]), _and([a_sub, b_sub])
            return _or(a_sup, b_sup), _or(a_sub, b_sub)
        atom = self.atom(node)
        if atom is None:
            return TRUE, FALSE
        return atom

    def atom(self, node: tuple[Any, ...]) -> tuple[Cond, Cond] | None:
        kind = node[0]
        if kind == "var":
            return self._truth(node[1])
        if kind == "bin" and node[1] in _FLIP:
            op, left, right = node[1], node[2], node[3]
            literal = self._literal(right)
            if literal is None:
                literal, left, op = self._literal(left), right, _FLIP[op]
            if literal is None:
                return None
            return self._compare(left, op, literal)
        if kind == "call" and node[1][0] == "var" and len(node[2]) == 2:
            return self._call(node[1][1], node[2][0], node[2][1])
        return None

    def _field(self, node: tuple[Any, ...]) -> str | None:
        """The field a name reads, when it is one SQL knows: not a task's own key."""
        if node[0] != "var" or node[1] in ("file", "this", "row"):
            return None
        if self.scope == "task" and node[1] in TASK_KEYS:
            return None
        return str(node[1])

    def _file_attr(self, node: tuple[Any, ...]) -> str | None:
        if node[0] == "index" and node[1] == ("var", "file") and node[2][0] == "lit":
            attr = node[2][1]
            return attr if attr in _FILE_ATTRS else None
        return None

    def _literal(self, node: tuple[Any, ...]) -> tuple[str, Any] | None:
        if node[0] == "date":
            node = ("lit", self.ctx.shorthand(node[1]))
        if node[0] != "lit":
            return None
        value = node[1]
        if value is None:
            return ("null", None)
        if isinstance(value, bool):
            return ("boolean", value)
        if isinstance(value, int | float):
            return ("number", float(value))
        if isinstance(value, str):
            return ("string", value)
        if isinstance(value, datetime) and value.tzinfo is None:
            return (
                "date",
                value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}",
            )
        return None

    def _truth(self, name: str) -> tuple[Cond, Cond] | None:
        if self.scope == "task" and name in ("completed", "checked"):
            cond: Cond = ("status", name)
            return cond, cond
        field = self._field(("var", name))
        if field is None:
            return None
        cond = ("truthy", self.scope, field)
        return cond, cond

    def _compare(
        self, node: tuple[Any, ...], op: str, literal: tuple[str, Any]
    ) -> tuple[Cond, Cond] | None:
        kind, value = literal
        attr = self._file_attr(node)
        if attr is not None and kind == "string" and op in ("=", "!="):
            cond: Cond = ("file", attr, "eq", value)
            return (cond, cond) if op == "=" else (_not(cond), _not(cond))
        if self.scope == "task" and node == ("var", "status") and kind == "string":
            if op in ("=", "!="):
                cond = ("status_is", value)
                return (cond, cond) if op == "=" else (_not(cond), _not(cond))
            return None
        if self.scope == "task" and node[0] == "var" and node[1] in TASK_DATES:
            cond = ("cmp", "task_date", node[1], op, kind, value)
            return (cond, ("approx", cond))
        field = self._field(node)
        if field is None:
            return None
        cond = ("cmp", self.scope, field, op, kind, value)
        return cond, ("approx", cond)

    def _call(self, name: str, first: tuple[Any, ...], second: tuple[Any, ...]
              ) -> tuple[Cond, Cond] | None:  # fmt: skip
        literal = self._literal(second)
        if literal is None or literal[0] != "string":
            return None
        needle = literal[1]
        attr = self._file_attr(first)
        ops = {"contains": "contains", "startswith": "prefix", "endswith": "suffix"}
        if attr is not None and name in ops:
            cond: Cond = ("file", attr, ops[name], needle)
            return cond, cond
        if name != "contains":
            return None
        if first == ("index", ("var", "file"), ("lit", "tags")) or (
            self.scope == "task" and first == ("var", "tags")
        ):
            return ("tags_text", self.scope if first[0] == "var" else "page", needle), FALSE
        if self.scope == "task" and first == ("var", "text"):
            cond = ("task_text", needle)
            return cond, cond
        field = self._field(first)
        if field is None:
            return None
        return ("contains", self.scope, field, needle), FALSE
