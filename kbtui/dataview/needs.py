"""What of each page a query reads, found by walking its expressions before any page is read:
list items, links, backlinks, properties as written, which fields and which `file` facts. A
page is then built with only those (the rest of its row is never parsed)."""

from __future__ import annotations

from typing import Any

from kbtui.dataview.pages import FILE_KEYS, Need
from kbtui.dataview.query import Query

_KINDS = {"lit", "link", "date", "var", "neg", "bin", "list", "obj", "lambda", "call", "index"}


def query_nodes(query: Query) -> list[Any]:
    """Every expression of the query: columns, LIST's value, each command's."""
    nodes: list[Any] = [c.node for c in query.columns]
    nodes += [query.format] if query.format is not None else []
    for op in query.ops:
        if op[0] in ("where", "limit"):
            nodes.append(op[1])
        elif op[0] == "sort":
            nodes += [n for n, _ in op[1]]
        else:
            nodes.append(op[1].node)
    return nodes


class _Walk:
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.strings: set[str] = set()
        self.whole = False  # a page or `file` used as a whole object

    def walk(self, x: Any, keyed: bool = False) -> None:
        """`keyed`: `x` is indexed by a literal key (`x.name`), so it is not used whole."""
        if isinstance(x, list):
            for y in x:
                self.walk(y)
            return
        if not isinstance(x, tuple) or not x:
            return
        if not (isinstance(x[0], str) and x[0] in _KINDS):  # an object literal's (key, value)
            for part in x:
                self.walk(part)
            return
        kind = x[0]
        if kind == "var":
            self.names.add(x[1])
            self.whole |= x[1] == "row" or (x[1] == "file" and not keyed)
        elif kind == "lit":
            if isinstance(x[1], str):
                self.strings.add(x[1])
        elif kind == "index":
            literal = x[2][0] == "lit" and isinstance(x[2][1], str)
            self.whole |= literal and x[2][1] == "file" and not keyed
            if literal and not _is_file(x[1]):  # `rows.rating`, `(r) => r.rating`: a field
                self.names.add(x[2][1])  # of the pages a group or lambda holds
            self.walk(x[1], literal)
            self.walk(x[2])
        elif kind != "lambda":
            for part in x[1:]:
                self.walk(part)
        else:
            self.walk(x[2])


def _is_file(x: Any) -> bool:
    """`file` or `<something>.file`: its keys are file facts, not fields."""
    if x[0] == "var":
        return bool(x[1] == "file")
    return bool(x[0] == "index" and x[2][0] == "lit" and x[2][1] == "file")


def needs(query: Query) -> Need:
    """What of each page the query reads."""
    found = _Walk()
    for node in query_nodes(query):
        found.walk(node)
    if found.whole:
        return Need.everything()
    strings = found.strings
    lists = bool(strings & {"tasks", "lists"})
    return Need(
        items=query.kind == "task" or lists,
        outlinks="outlinks" in strings,
        inlinks="inlinks" in strings,
        frontmatter=bool(strings & {"frontmatter", "aliases"}),
        fields=frozenset(found.names),
        all_items=lists,
        file_keys=frozenset(strings & FILE_KEYS),
    )
