"""A `.base` file (YAML) read into a Base: filters, formulas, property names, summaries, views.

Every expression is parsed and checked when the base is read, so an unknown function, an
unknown formula or formulas that refer to each other in a cycle are refused with the line
of the base that holds them, before any row is evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kbtui.bases.errors import BaseError
from kbtui.bases.functions import ALL_GLOBALS
from kbtui.bases.methods import ALL_METHODS
from kbtui.bases.parser import Node, parse

VIEW_TYPES = ("table", "cards", "list", "map")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BLOCK = re.compile(r"^(`{3,}|~{3,})base[ \t]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)

# ("and"|"or"|"not", [Filter], key) or ("expr", Node, line, key); `key` names a filter whose
# result for a row depends on the index alone (kept per row between queries), else None.
Filter = tuple[Any, ...]


class Text(str):
    """A YAML string that remembers its line in the base."""

    line: int | None = None


@dataclass
class View:
    type: str
    name: str
    filters: Filter | None
    order: list[str]
    sort: list[tuple[str, bool]]  # (property id, descending)
    group_by: tuple[str, bool] | None
    limit: int | None
    summaries: dict[str, str]
    settings: dict[str, Any] = field(default_factory=dict)  # image, coordinates, ...
    error: BaseError | None = None  # a view that cannot run; the others still answer


@dataclass
class Base:
    filters: Filter | None
    formulas: dict[str, Node]
    formula_lines: dict[str, int | None]
    display: dict[str, str]
    summaries: dict[str, Node]
    views: list[View]

    def view(self, name: str | None) -> View:
        if name is None:
            return self.views[0]
        for view in self.views:
            if view.name == name:
                return view
        for view in self.views:
            if view.name.lower() == name.lower():
                return view
        raise BaseError(f"no view named {name!r}; views: " + ", ".join(v.name for v in self.views))


def property_id(name: str) -> str:
    """`author` -> `note.author`; `file.x`, `formula.x`, `note.x` as they are."""
    name = str(name).strip()
    if name.startswith(("file.", "formula.", "note.")):
        return name
    return f"note.{name}"


def property_node(pid: str) -> Node:
    space, _, name = pid.partition(".")
    return ("member", ("name", space), name)


def _to_python(node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return {str(_to_python(k)): _to_python(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(v) for v in node.value]
    value = yaml.load(yaml.serialize(node), Loader=LOADER)  # the scalar's own type
    if isinstance(value, str):
        text = Text(value)
        text.line = node.start_mark.line + 1
        return text
    return value


def _error_line(exc: yaml.YAMLError, text: str) -> int | None:
    """The 0-based line of the text a YAML error is on. At the end of the text (an unclosed
    bracket) the parser's mark is past the last line: the construct's start is the line to fix."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return None
    last = max(len(text.splitlines()) - 1, 0)
    line: int = mark.line
    if line > last:
        context = getattr(exc, "context_mark", None)
        line = context.line if context is not None else last
    return min(line, last)


def load_yaml(text: str, first_line: int = 0) -> dict[str, Any]:
    try:
        node = yaml.compose(text, Loader=LOADER)
    except yaml.YAMLError as exc:
        line = _error_line(exc, text)
        line = line + 1 + first_line if line is not None else None
        raise BaseError(f"not valid YAML: {getattr(exc, 'problem', None) or exc}", line) from None
    data = _to_python(node) if node is not None else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BaseError("a base is a YAML mapping (filters, formulas, properties, views)", 1)
    return data


def _line(value: Any) -> int | None:
    return getattr(value, "line", None)


def _expr(value: Any, where: str) -> Node:
    if isinstance(value, bool):
        return ("lit", value)
    if isinstance(value, (int, float)):
        return ("lit", value)
    if not isinstance(value, str):
        raise BaseError(f"{where}: expected an expression, found {type(value).__name__}")
    return parse(value, _line(value))


def _filters(value: Any, where: str) -> Filter | None:
    if value is None:
        return None
    if isinstance(value, (str, bool, int, float)):
        node = _expr(value, where)
        return ("expr", node, _line(value), str(value) if _stable(node) else None)
    if isinstance(value, dict) and len(value) == 1:
        ((key, items),) = value.items()
        if key in ("and", "or", "not"):
            items = items if isinstance(items, list) else [items]
            subs = [f for f in (_filters(i, where) for i in items) if f is not None]
            keys = [s[-1] for s in subs]
            whole = None if None in keys else f"{key}({'|'.join(str(k) for k in keys)})"
            return (key, subs, whole)
    if isinstance(value, dict) and not value:
        return None
    raise BaseError(f"{where}: a filter is an expression or one of and/or/not with a list, "
                    f"found {value!r}")  # fmt: skip


UNSTABLE = frozenset({"now", "today", "random", "this"})


def _stable(node: Node) -> bool:
    """True when an expression's value for a row depends on the index alone (no `this`, no
    clock, no formula, which may use either): its result can be kept per row between queries."""
    return not any(n[0] == "name" and n[1] in UNSTABLE | {"formula"} for n in _walk(node))


def _walk(node: Node) -> list[Node]:
    out = [node]
    for part in node[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            out += _walk(part)
        elif isinstance(part, list):
            for item in part:
                pair = isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], tuple)
                if pair:  # an object's (key, value)
                    out += _walk(item[1])
                elif isinstance(item, tuple):
                    out += _walk(item)
    return out


def check(node: Node, line: int | None, formulas: dict[str, Node]) -> set[str]:
    """Refuse unknown functions and formulas; return the formulas `node` reads."""
    used: set[str] = set()
    for n in _walk(node):
        if n[0] == "call" and n[1][0] == "name" and n[1][1] not in ALL_GLOBALS:
            raise BaseError(f"unsupported function `{n[1][1]}()`", line)
        if n[0] == "call" and n[1][0] == "member" and n[1][2] not in ALL_METHODS:
            raise BaseError(f"unsupported function `.{n[1][2]}()`", line)
        if n[0] == "member" and n[1] == ("name", "formula"):
            if n[2] not in formulas:
                raise BaseError(f"unknown formula `formula.{n[2]}`", line)
            used.add(n[2])
    return used


def _cycles(deps: dict[str, set[str]], lines: dict[str, int | None]) -> None:
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = [*path[path.index(name) :], name]
            named = " -> ".join(f"formula.{c}" for c in cycle)
            raise BaseError(f"formulas refer to each other in a cycle: {named}", lines.get(name))
        state[name] = 1
        for dep in sorted(deps.get(name, ())):
            visit(dep, [*path, name])
        state[name] = 2

    for name in deps:
        visit(name, [])


def _sort(items: Any, where: str) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for item in items or []:
        if not isinstance(item, dict):
            raise BaseError(f"{where}: a sort entry is property + direction, found {item!r}",
                            _line(item))  # fmt: skip
        prop = item.get("property", item.get("column"))
        if not prop:
            raise BaseError(f"{where}: a sort entry without a property", None)
        out.append((property_id(prop), str(item.get("direction", "ASC")).upper() == "DESC"))
    return out


def _view(raw: Any, i: int, formulas: dict[str, Node], summaries: dict[str, Node]) -> View:
    if not isinstance(raw, dict):
        raise BaseError(f"view {i + 1} is not a mapping")
    kind = str(raw.get("type", "table"))
    name = str(raw.get("name") or f"View {i + 1}")
    if kind not in VIEW_TYPES:
        raise BaseError(f"view {name!r} has an unknown type {kind!r} (known: "
                        + ", ".join(VIEW_TYPES) + ")", _line(raw.get("type")))  # fmt: skip
    where = f"view {name!r}"
    filters = _filters(raw.get("filters"), where)
    _check_filter(filters, formulas)
    group = raw.get("groupBy")
    group_by = None
    if isinstance(group, dict) and group.get("property"):
        group_by = (property_id(group["property"]),
                    str(group.get("direction", "ASC")).upper() == "DESC")  # fmt: skip
    elif isinstance(group, str):
        group_by = (property_id(group), False)
    limit = raw.get("limit")
    view_summaries = {property_id(k): str(v) for k, v in (raw.get("summaries") or {}).items()}
    for pid, summary in view_summaries.items():
        if summary not in DEFAULT_SUMMARIES and summary not in summaries:
            raise BaseError(f"{where}: unknown summary {summary!r} for {pid}", _line(summary))
    order = [property_id(p) for p in raw.get("order") or []]
    sort = _sort(raw.get("sort"), where)
    for pid in [*order, *(p for p, _ in sort), *([group_by[0]] if group_by else [])]:
        check(property_node(pid), None, formulas)
    skip = {"type", "name", "filters", "order", "sort", "groupBy", "limit", "summaries"}
    return View(kind, name, filters, order, sort, group_by,
                int(limit) if isinstance(limit, (int, float)) and limit > 0 else None,
                view_summaries, {k: v for k, v in raw.items() if k not in skip})  # fmt: skip


def _safe_view(raw: Any, i: int, formulas: dict[str, Node], summaries: dict[str, Node]) -> View:
    try:
        return _view(raw, i, formulas, summaries)
    except BaseError as exc:
        name = str(raw.get("name") or f"View {i + 1}") if isinstance(raw, dict) else f"View {i + 1}"
        kind = str(raw.get("type", "table")) if isinstance(raw, dict) else "table"
        return View(kind, name, None, [], [], None, None, {}, {}, exc)


def _check_filter(f: Filter | None, formulas: dict[str, Node]) -> None:
    if f is None:
        return
    if f[0] == "expr":
        check(f[1], f[2], formulas)
    else:
        for sub in f[1]:
            _check_filter(sub, formulas)


DEFAULT_SUMMARIES = (
    "Average", "Min", "Max", "Sum", "Range", "Median", "Stddev", "Earliest", "Latest",
    "Checked", "Unchecked", "Empty", "Filled", "Unique",
)  # fmt: skip


def read_base(text: str, first_line: int = 0) -> Base:
    """The base a `.base` file (or a ```base block starting after `first_line`) holds."""
    data = load_yaml(text, first_line)
    try:
        base = _read(data)
    except BaseError as exc:
        if exc.line is not None and first_line:
            raise BaseError(exc.message, exc.line + first_line) from None
        raise
    for view in base.views:  # a view that cannot run names the note's line, not the block's
        if view.error is not None and view.error.line is not None and first_line:
            view.error = BaseError(view.error.message, view.error.line + first_line)
    return base


def _read(data: dict[str, Any]) -> Base:
    raw_formulas = data.get("formulas") or {}
    if not isinstance(raw_formulas, dict):
        raise BaseError("`formulas` is a mapping of name: expression", None)
    formulas = {str(k): _expr(v, f"formula {k!r}") for k, v in raw_formulas.items()}
    lines = {str(k): _line(v) for k, v in raw_formulas.items()}
    deps = {k: check(n, lines[k], formulas) for k, n in formulas.items()}
    _cycles(deps, lines)
    display: dict[str, str] = {}
    for key, conf in (data.get("properties") or {}).items():
        if isinstance(conf, dict) and conf.get("displayName") is not None:
            display[property_id(key)] = str(conf["displayName"])
    for key, name in (data.get("display") or {}).items():  # the early (2025 beta) form
        display.setdefault(property_id(key), str(name))
    summaries = {
        str(k): _expr(v, f"summary {k!r}") for k, v in (data.get("summaries") or {}).items()
    }
    for node in summaries.values():
        check(node, None, formulas)
    filters = _filters(data.get("filters"), "filters")
    _check_filter(filters, formulas)
    raw_views = data.get("views") or [{"type": "table", "name": "Table"}]
    if not isinstance(raw_views, list):
        raise BaseError("`views` is a list", None)
    views = [_safe_view(v, i, formulas, summaries) for i, v in enumerate(raw_views)]
    return Base(filters, formulas, lines, display, summaries, views)


def base_blocks(markdown: str) -> list[tuple[int, str]]:
    """(line before the block's YAML, YAML) of each ```base block in a note."""
    return [(markdown.count("\n", 0, m.start(2)), m.group(2)) for m in _BLOCK.finditer(markdown)]
