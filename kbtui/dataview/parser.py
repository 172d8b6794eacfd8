"""Dataview's expression language parsed into a tree of tuples.

The grammar follows blacksmithgu/obsidian-dataview (MIT), src/expression/parse.ts: operators,
lowest first, `and`/`or`/`&`/`|`, comparisons, `+ -`, `* / %`, then `!`, `.field`, `[index]`
and calls; atoms are links, lists, objects, lambdas, parentheses, booleans, numbers, text,
`date(...)` and `dur(...)` literals, `null` and names. Two small differences: `true`, `false`,
`null`, `and` and `or` must end where a name would (Dataview reads `nullCount` as `null`
followed by junk and fails), so such names work.

Nodes: ("lit", value) ("date", shorthand) ("var", name) ("neg", x) ("bin", op, a, b)
("list", [x]) ("obj", [(key, x)]) ("lambda", (params), body) ("call", f, [x])
("index", obj, key).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kbtui.dataview.values import Duration, Link, date_of
from kbtui.vault.obsidian import dv_values
from kbtui.vault.obsidian.inline_fields import is_emoji, is_letter

Node = tuple[Any, ...]
KEYWORDS = ("FROM", "WHERE", "LIMIT", "GROUP", "FLATTEN")
DATE_SHORTHANDS = (
    "start-of-month", "start-of-week", "start-of-year", "end-of-month", "end-of-week",
    "end-of-year", "yesterday", "tomorrow", "today", "now", "sow", "eow", "som", "eom", "soy",
    "eoy",
)  # fmt: skip
_WS = re.compile(r"\s*")
_BOOL_OP = re.compile(r"and|or|&|\|", re.I)
_CMP_OP = re.compile(r">=|<=|!=|>|<|=")
_ADD_OP = re.compile(r"\+|-")
_MUL_OP = re.compile(r"\*|/|%")
_BOOL = re.compile(r"true|false|True|False")
_LINK = re.compile(r"\[\[([^\[\]]*?)\]\]")


class DqlSyntaxError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def _ident_start(ch: str) -> bool:
    return is_letter(ch) or is_emoji(ch)


def _ident_char(ch: str) -> bool:
    return (ch.isascii() and (ch.isdigit() or ch in "_-")) or is_letter(ch) or is_emoji(ch)


class Parser:
    """A cursor over one query's text; each rule returns a node or None (position kept)."""

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos
        self.furthest = pos  # where the deepest failed attempt stood, for errors

    # -- helpers ------------------------------------------------------------------------
    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def eat(self, s: str) -> bool:
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        self.furthest = max(self.furthest, self.pos)
        return False

    def match(self, pattern: re.Pattern[str]) -> str | None:
        m = pattern.match(self.text, self.pos)
        if m is None:
            self.furthest = max(self.furthest, self.pos)
            return None
        self.pos = m.end()
        return m.group(0)

    def word_end(self) -> bool:
        return self.pos >= len(self.text) or not _ident_char(self.text[self.pos])

    def identifier(self) -> str | None:
        t, start = self.text, self.pos
        if start >= len(t) or not _ident_start(t[start]):
            self.furthest = max(self.furthest, start)
            return None
        end = start + 1
        while end < len(t) and _ident_char(t[end]):
            end += 1
        self.pos = end
        return t[start:end]

    # -- expressions ----------------------------------------------------------------------
    def field(self) -> Node | None:
        return self._binary(self._compare, _BOOL_OP, words=True)

    def _compare(self) -> Node | None:
        return self._binary(self._add, _CMP_OP)

    def _add(self) -> Node | None:
        return self._binary(self._mul, _ADD_OP)

    def _mul(self) -> Node | None:
        return self._binary(self.index_field, _MUL_OP)

    def _binary(
        self, child: Callable[[], Node | None], op: re.Pattern[str], words: bool = False
    ) -> Node | None:
        node = child()
        if node is None:
            return None
        while True:
            back = self.pos
            self.ws()
            found = self.match(op)
            if found is None or (words and found[0].isalpha() and not self.word_end()):
                self.pos = back
                return node
            self.ws()
            right = child()
            if right is None:
                self.pos = back
                return node
            name = {"and": "&", "or": "|"}.get(found.lower(), found)
            node = ("bin", name, node, right)

    def index_field(self) -> Node | None:
        node = self.atom()
        if node is None:
            return None
        while True:
            back = self.pos
            if self.eat("."):
                name = self.identifier()
                if name is None:
                    self.pos = back
                    return node
                node = ("index", node, ("lit", name))
            elif self.eat("["):
                self.ws()
                key = self.field()
                self.ws()
                if key is None or not self.eat("]"):
                    self.pos = back
                    return node
                node = ("index", node, key)
            elif self.eat("(") or (node[0] == "var" and self._spaced_call()):
                args = self._items(")")
                if args is None and node[0] == "var" and self.text[back] == "(":
                    call = self.text[back:].split("\n", 1)[0].strip()
                    raise DqlSyntaxError(  # `name(` is a call: say which one cannot be read
                        f"cannot read the call `{node[1]}{call[:60]}`: an argument is no "
                        "expression, or its `)` is missing",
                        back,
                    )
                if args is None:
                    self.pos = back
                    return node
                node = ("call", node, args)
            else:
                return node

    def _spaced_call(self) -> bool:
        """`list (1, 2)`: a function's name, spaces, then its arguments (the Functions page
        writes one so; Dataview itself does not read it)."""
        m = re.compile(r"[ \t]+\(").match(self.text, self.pos)
        if m is None:
            return False
        self.pos = m.end()
        return True

    def _items(self, close: str) -> list[Node] | None:
        """`a, b, c` then `close` (the opening bracket eaten); None when that is not there."""
        back = self.pos
        self.ws()
        items: list[Node] = []
        first = self.field()
        if first is not None:
            items.append(first)
            while True:
                at = self.pos
                self.ws()
                if not self.eat(","):
                    self.pos = at
                    break
                self.ws()
                nxt = self.field()
                if nxt is None:
                    self.pos = at
                    break
                items.append(nxt)
        self.ws()
        if not self.eat(close):
            self.pos = back
            return None
        return items

    def atom(self) -> Node | None:
        for rule in (self._embed, self._negated, self._link, self._list, self._object,
                     self._lambda, self._parens, self._bool, self._number, self._string,
                     self._date, self._duration, self._null, self._variable):  # fmt: skip
            back = self.pos
            node = rule()
            if node is not None:
                return node
            self.pos = back
        return None

    def _embed(self) -> Node | None:
        if not self.eat("!"):
            return None
        return self._link(embed=True)

    def _link(self, embed: bool = False) -> Node | None:
        found = self.match(_LINK)
        if found is None:
            return None
        parts = dv_values.link_parts(found[2:-2], embed)
        return ("link", Link(parts["path"], parts["display"], parts["subpath"], parts["type"],
                             embed))  # fmt: skip

    def _negated(self) -> Node | None:
        if not self.eat("!"):
            return None
        inner = self.index_field()
        return ("neg", inner) if inner is not None else None

    def _list(self) -> Node | None:
        if not self.eat("["):
            return None
        items = self._items("]")
        return ("list", items) if items is not None else None

    def _object(self) -> Node | None:
        if not self.eat("{"):
            return None
        self.ws()
        entries: list[tuple[str, Node]] = []
        while True:
            key = self.identifier()
            if key is None:
                got = dv_values._string(self.text, self.pos)
                if got is None:
                    break
                key, self.pos = got
            self.ws()
            if not self.eat(":"):
                return None
            self.ws()
            value = self.field()
            if value is None:
                return None
            entries.append((key, value))
            back = self.pos
            self.ws()
            if not self.eat(","):
                self.pos = back
                break
            self.ws()
        self.ws()
        return ("obj", entries) if self.eat("}") else None

    def _lambda(self) -> Node | None:
        if not self.eat("("):
            return None
        self.ws()
        params: list[str] = []
        name = self.identifier()
        while name is not None:
            params.append(name)
            self.ws()
            if not self.eat(","):
                break
            self.ws()
            name = self.identifier()
            if name is None:
                return None
        self.ws()
        if not self.eat(")"):
            return None
        self.ws()
        if not self.eat("=>"):
            return None
        self.ws()
        body = self.field()
        return ("lambda", tuple(params), body) if body is not None else None

    def _parens(self) -> Node | None:
        if not self.eat("("):
            return None
        self.ws()
        inner = self.field()
        self.ws()
        return inner if inner is not None and self.eat(")") else None

    def _bool(self) -> Node | None:
        found = self.match(_BOOL)
        if found is None or not self.word_end():
            return None
        return ("lit", found.lower() == "true")

    def _number(self) -> Node | None:
        got = dv_values.number(self.text, self.pos)
        if got is None:
            self.furthest = max(self.furthest, self.pos)
            return None
        self.pos = got[1]
        return ("lit", got[0])

    def _string(self) -> Node | None:
        got = dv_values._string(self.text, self.pos)
        if got is None:
            self.furthest = max(self.furthest, self.pos)
            return None
        self.pos = got[1]
        return ("lit", got[0])

    def _date(self) -> Node | None:
        if not self.eat("date("):
            return None
        self.ws()
        node: Node | None = None
        for word in DATE_SHORTHANDS:
            if self.eat(word):
                node = ("date", word)
                break
        if node is None:
            got = dv_values.date(self.text, self.pos)
            if got is None:
                return None
            node, self.pos = ("lit", date_of(got[0])), got[1]
        self.ws()
        return node if self.eat(")") else None

    def _duration(self) -> Node | None:
        if not self.eat("dur("):
            return None
        self.ws()
        got = dv_values.duration(self.text, self.pos)
        if got is None:
            return None
        self.pos = got[1]
        self.ws()
        return ("lit", Duration(got[0])) if self.eat(")") else None

    def _null(self) -> Node | None:
        return ("lit", None) if self.eat("null") and self.word_end() else None

    def _variable(self) -> Node | None:
        name = self.identifier()
        if name is None or name.upper() in KEYWORDS:
            return None
        return ("var", name)


def parse_expression(text: str) -> Node:
    """One whole expression (kbtui's tests and `this`-free evaluation)."""
    p = Parser(text)
    p.ws()
    node = p.field()
    p.ws()
    if node is None or p.pos != len(text):
        raise DqlSyntaxError(f"cannot read the expression at {text[p.furthest :][:40]!r}", p.pos)
    return node
