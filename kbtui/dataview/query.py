"""A DQL query read into its parts: the query type (LIST, TABLE with its columns, TASK), the
FROM source, then the data commands in order (WHERE, SORT, GROUP BY, FLATTEN, LIMIT);
`//` comments between them.

Grammar after blacksmithgu/obsidian-dataview (MIT), src/query/parse.ts and the `source` rules
of src/expression/parse.ts. One difference: a command word (`SORT`, `WHERE` ...) right after
`LIST` or `TABLE` starts the command; Dataview reads `LIST\\nSORT x` as a LIST of a field
called SORT and fails (its open issue #1569).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kbtui.dataview.parser import DqlSyntaxError, Node, Parser
from kbtui.dataview.values import Link
from kbtui.vault.obsidian import dv_values

_COMMAND = re.compile(r"(FROM|WHERE|SORT|LIMIT|GROUP\s+BY|FLATTEN)(?=\s|$)", re.I)
_TYPE = re.compile(r"(TABLE|LIST|TASK|CALENDAR)(?=\s|$|//)", re.I)


class DqlError(Exception):
    """A query that cannot run: a syntax error or a construct kbtui does not support, named."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


@dataclass
class Named:
    name: str
    node: Node


@dataclass
class Query:
    kind: str  # list, table, task
    show_id: bool = True
    columns: list[Named] = field(default_factory=list)  # TABLE's
    format: Node | None = None  # LIST's one value
    source: Any = None  # None: every page
    ops: list[tuple[Any, ...]] = field(default_factory=list)


class QueryParser(Parser):
    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def fail(self, what: str, pos: int | None = None) -> DqlError:
        at = self.pos if pos is None else pos
        while 0 < at < len(self.text) and (self.text[at - 1] + self.text[at]).isalnum():
            at -= 1  # the whole word named (`ASCC`, not the `C` left after ASC)
        rest = self.text[at:].split("\n", 1)[0].strip()
        where = f" at `{rest[:60]}`" if rest else " at the end"
        return DqlError(f"{what}{where}", self.line_of(at))

    def gap(self) -> None:
        """Whitespace and `//` comments."""
        while True:
            self.ws()
            if self.peek("//"):
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
                continue
            return

    def need_space(self) -> bool:
        back = self.pos
        self.ws()
        return self.pos > back or self.pos == len(self.text)

    def named(self) -> Named | None:
        start = self.pos
        node = self.field()
        if node is None:
            return None
        raw_end = self.pos
        back = self.pos
        if self.need_space() and (m := re.compile(r"AS\s+", re.I).match(self.text, self.pos)):
            self.pos = m.end()
            name = self.identifier()
            if name is None:
                got = dv_values._string(self.text, self.pos)
                if got is not None:
                    name, self.pos = got
            if name is not None:
                return Named(name, node)
        self.pos = back
        raw = "".join(line.strip() for line in self.text[start:raw_end].splitlines())
        return Named(raw, node)

    def at_command(self) -> bool:
        return _COMMAND.match(self.text, self.pos) is not None

    def header(self) -> Query:
        found = self.match(_TYPE)
        if found is None:
            raise self.fail("a query starts with LIST, TABLE or TASK")
        kind = found.lower()
        if kind == "calendar":
            raise DqlError("CALENDAR queries are not supported (LIST, TABLE and TASK are)", 1)
        query = Query(kind)
        if kind == "task":
            return query
        if not self.need_space():
            raise self.fail(f"{found} must be followed by a space")
        if m := re.compile(r"WITHOUT\s+ID", re.I).match(self.text, self.pos):
            self.pos = m.end()
            query.show_id = False
            self.ws()
        if self.at_command() or self.pos == len(self.text) or self.peek("//"):
            return query
        if kind == "list":
            query.format = self.field()
            return query
        while True:
            column = self.named()
            if column is None:
                break
            query.columns.append(column)
            back = self.pos
            self.ws()
            if not self.eat(","):
                self.pos = back
                break
            self.ws()
        return query

    def source(self) -> Any:
        node = self._source_atom()
        if node is None:
            return None
        while True:
            back = self.pos
            self.ws()
            op = self.match(re.compile(r"and|or|&|\|", re.I))
            if op is None or (op[0].isalpha() and not self.word_end()):
                self.pos = back
                return node
            self.ws()
            right = self._source_atom()
            if right is None:
                self.pos = back
                return node
            node = ("and" if op.lower() in ("and", "&") else "or", node, right)

    def _source_atom(self) -> Any:
        t = self.text
        if self.eat("("):
            self.ws()
            inner = self.source()
            self.ws()
            if inner is None or not self.eat(")"):
                raise self.fail("a source in parentheses is not closed")
            return inner
        if self.peek("-") or self.peek("!"):
            self.pos += 1
            inner = self._source_atom()
            if inner is None:
                raise self.fail("`-` must be followed by a source")
            return ("not", inner)
        if self.eat("outgoing("):
            self.ws()
            link = self._link()
            self.ws()
            if link is None or not self.eat(")"):
                raise self.fail("outgoing() takes a [[link]]")
            return ("outgoing", link[1])
        if self.peek("csv("):
            raise self.fail("csv() sources are not supported")
        if self.peek("[["):
            link = self._link()
            if link is not None:
                return ("incoming", link[1])
        if self.peek('"'):
            got = dv_values._string(t, self.pos)
            if got is None:
                raise self.fail("a folder name's quote is not closed")
            self.pos = got[1]
            return ("folder", got[0])
        if self.peek("#"):
            got = dv_values.tag(t, self.pos)
            if got is not None:
                self.pos = got[1]
                return ("tag", got[0])
        return None

    def sort_fields(self) -> list[tuple[Node, bool]]:
        fields: list[tuple[Node, bool]] = []
        while True:
            node = self.field()
            if node is None:
                raise self.fail("SORT needs a field")
            back = self.pos
            self.ws()
            m = re.compile(r"ASCENDING|DESCENDING|ASC|DESC", re.I).match(self.text, self.pos)
            if m:
                self.pos = m.end()
            else:
                self.pos = back
            fields.append((node, not (m and m.group(0).lower().startswith("desc"))))
            back = self.pos
            self.ws()
            if not self.eat(","):
                self.pos = back
                return fields
            self.ws()

    def command(self, query: Query) -> None:
        m = _COMMAND.match(self.text, self.pos)
        if m is None:
            raise self.fail("expected FROM, WHERE, SORT, GROUP BY, FLATTEN or LIMIT")
        word = m.group(1).upper()
        start = self.pos
        self.pos = m.end()
        self.ws()
        if word == "FROM":
            if query.ops or query.source is not None:
                raise DqlError("FROM comes once, right after the query type", self.line_of(start))
            query.source = self.source()
            if query.source is None:
                raise self.fail('FROM needs a source: a "folder", a #tag or a [[link]]')
        elif word in ("WHERE", "LIMIT"):
            node = self.field()
            if node is None:
                raise self.fail(f"{word} needs an expression")
            query.ops.append((word.lower(), node))
        elif word == "SORT":
            query.ops.append(("sort", self.sort_fields()))
        else:
            named = self.named()
            if named is None:
                raise self.fail(f"{word.split()[0]} needs a field")
            query.ops.append(("group" if word.startswith("GROUP") else "flatten", named))


def parse_query(text: str) -> Query:
    """The query, or DqlError naming what cannot be read or run, with its line."""
    p = QueryParser(text)
    try:
        p.gap()
        query = p.header()
        while True:
            p.gap()
            if p.pos >= len(text):
                return query
            p.command(query)
    except DqlSyntaxError as exc:
        raise DqlError(exc.message, p.line_of(exc.pos)) from None


def literal_links(query: Query) -> list[Link]:
    """The [[links]] a query's FROM names."""
    found: list[Link] = []

    def walk(s: Any) -> None:
        if isinstance(s, tuple) and s and s[0] in ("incoming", "outgoing"):
            found.append(s[1])
        elif isinstance(s, tuple) and s and s[0] in ("and", "or", "not"):
            for part in s[1:]:
                walk(part)

    walk(query.source)
    return found
