"""The expression language of Bases: tokens, then a Pratt parser into small tuples.

Precedence (lowest first): `||`, `&&`, `== !=`, `< <= > >=`, `+ -`, `* / %`, unary `! -`,
then postfix member access `.x`, index `[i]` and calls `f(...)`.
Nodes: ("lit", v) ("regex", src, flags) ("list", [n]) ("obj", [(k, n)]) ("name", x)
("member", n, x) ("index", n, n) ("call", n, [n]) ("unary", op, n) ("binary", op, n, n).
"""

from __future__ import annotations

import re
from typing import Any

from kbtui.bases.errors import BaseError

Node = tuple[Any, ...]
_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      |(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      |(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      |(?P<name>[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*)
      |(?P<op>==|!=|<=|>=|&&|\|\||[-+*/%!<>()\[\]{},.:?])""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "/": "/"}
BINARY = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "+": 5, "-": 5, "*": 6, "/": 6, "%": 6,
}  # fmt: skip


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def tokenize(text: str, line: int | None = None) -> list[tuple[str, Any]]:
    """(kind, value) pairs; a regex literal is recognised where an operand may start."""
    out: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(text):
        operand_here = not out or (out[-1][0] == "op" and out[-1][1] not in (")", "]", "}"))
        if text[pos] == "/" and operand_here:
            m = re.compile(r"/((?:[^/\\\n]|\\.)+)/([a-z]*)").match(text, pos)
            if m:
                out.append(("regex", (m.group(1), m.group(2))))
                pos = m.end()
                continue
        m = _TOKEN.match(text, pos)
        if not m:
            raise BaseError(f"unexpected character {text[pos]!r} in `{text}`", line)
        kind = m.lastgroup or ""
        value = m.group()
        pos = m.end()
        if kind == "ws":
            continue
        if kind == "num":
            out.append(("num", float(value) if any(c in value for c in ".eE") else int(value)))
        elif kind == "str":
            out.append(("str", _unescape(value[1:-1])))
        else:
            out.append((kind, value))
    out.append(("end", None))
    return out


class _Parser:
    def __init__(self, text: str, line: int | None) -> None:
        self.text = text
        self.line = line
        self.tokens = tokenize(text, line)
        self.pos = 0

    def error(self, what: str) -> BaseError:
        return BaseError(f"{what} in `{self.text}`", self.line)

    def peek(self) -> tuple[str, Any]:
        return self.tokens[self.pos]

    def take(self) -> tuple[str, Any]:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, op: str) -> None:
        kind, value = self.take()
        if kind != "op" or value != op:
            raise self.error(f"expected `{op}`, found {value!r}")

    def at(self, op: str) -> bool:
        kind, value = self.peek()
        return kind == "op" and value == op

    def expression(self, min_prec: int = 1) -> Node:
        left = self.unary()
        while True:
            kind, op = self.peek()
            prec = BINARY.get(op, 0) if kind == "op" else 0
            if prec < min_prec:
                return left
            self.take()
            left = ("binary", op, left, self.expression(prec + 1))

    def unary(self) -> Node:
        if self.at("!") or self.at("-") or self.at("+"):
            op = self.take()[1]
            return ("unary", op, self.unary())
        return self.postfix(self.primary())

    def postfix(self, node: Node) -> Node:
        while True:
            if self.at("."):
                self.take()
                kind, name = self.take()
                if kind != "name":
                    raise self.error(f"a property name after `.`, found {name!r}")
                node = ("member", node, name)
            elif self.at("["):
                self.take()
                index = self.expression()
                self.expect("]")
                node = ("index", node, index)
            elif self.at("("):
                self.take()
                node = ("call", node, self.arguments(")"))
            else:
                return node

    def arguments(self, close: str) -> list[Node]:
        args: list[Node] = []
        if self.at(close):
            self.take()
            return args
        while True:
            args.append(self.expression())
            if self.at(","):
                self.take()
                if self.at(close):  # trailing comma
                    self.take()
                    return args
                continue
            self.expect(close)
            return args

    def primary(self) -> Node:
        kind, value = self.take()
        if kind == "num":
            return ("lit", value)
        if kind == "str":
            return ("lit", value)
        if kind == "regex":
            return ("regex", value[0], value[1])
        if kind == "name":
            if value in ("true", "false"):
                return ("lit", value == "true")
            if value in ("null", "undefined"):
                return ("lit", None)
            return ("name", value)
        if kind == "op" and value == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        if kind == "op" and value == "[":
            return ("list", self.arguments("]"))
        if kind == "op" and value == "{":
            return ("obj", self.object_items())
        if kind == "end":
            raise self.error("the expression ends too early")
        raise self.error(f"unexpected {value!r}")

    def object_items(self) -> list[tuple[str, Node]]:
        items: list[tuple[str, Node]] = []
        while not self.at("}"):
            kind, key = self.take()
            if kind not in ("str", "name", "num"):
                raise self.error(f"an object key, found {key!r}")
            self.expect(":")
            items.append((str(key), self.expression()))
            if self.at(","):
                self.take()
            elif not self.at("}"):
                raise self.error("expected `,` or `}` in an object")
        self.take()
        return items


def parse(text: str, line: int | None = None) -> Node:
    """The tree of one expression, or BaseError naming what is wrong and the base's line."""
    if not isinstance(text, str):
        text = str(text)
    if not text.strip():
        raise BaseError("an empty expression", line)
    parser = _Parser(text, line)
    node = parser.expression()
    kind, value = parser.peek()
    if kind != "end":
        raise parser.error(f"unexpected {value!r} after the expression")
    return node
