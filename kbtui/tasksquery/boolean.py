"""Boolean filter lines, `(not done) AND ((due today) OR NOT (tag includes #x))`, read as the
plugin's BooleanField reads them: one kind of delimiter a line ((), [], {} or ""), each
delimited filter replaced by a placeholder, then the operators NOT, XOR, AND, OR in that order
of precedence."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from kbtui.tasksquery.filters import Context, Predicate, QueryError, field_filter
from kbtui.tasksquery.model import QTask

PAIRS = (("(", ")"), ("[", "]"), ("{", "}"), ('"', '"'))
ALL_OPEN, ALL_CLOSE = re.escape('([{"'), re.escape(')]}"')
LOOKS_BOOLEAN = re.compile(rf"(.*(AND|OR|XOR|NOT)\s*[{ALL_OPEN}].*|[{ALL_OPEN}].+[{ALL_CLOSE}])")


def _delimiters(line: str) -> tuple[str, str]:
    rest = re.match(r"^[A-Z ]*\s*(.*)", line.strip(), re.S)
    text = rest.group(1) if rest else ""
    for o, c in PAIRS:
        if text[:1] == o and text[-1:] == c:
            return o, c
    raise QueryError(
        "Could not interpret the following instruction as a Boolean combination: "
        f"{line}\nAll filters in a Boolean instruction must be inside one of these pairs of "
        'delimiter characters: (...) or [...] or {...} or "...". Combinations of those '
        "delimiters are no longer supported."
    )


def _split(pattern: str, parts: list[str]) -> list[str]:
    rx = re.compile(pattern)
    return [p for part in parts for p in rx.split(part) if p]


def preprocess(line: str) -> tuple[str, dict[str, str]]:
    """(simplified line with f1, f2 ... for the filters, {placeholder: filter})."""
    o, c = _delimiters(line)
    op, cl = f"[{re.escape(o)}]", f"[{re.escape(c)}]"
    parts = [p for p in re.split(rf"({cl}\s*(?:AND|OR|AND +NOT|OR +NOT|XOR)\s*{op})", line) if p]
    parts = _split(rf"(NOT\s*{op})", parts)
    parts = _split(rf"(^[{re.escape(o)} ]*)", parts)
    parts = _split(rf"([{re.escape(c)} ]*$)", parts)
    both = re.escape(o if o == c else o + c)
    operators = (
        rf"^[ {both}]+$",
        rf"^ *{cl} *(AND|OR|XOR) *{op} *$",
        rf"^(AND|OR|XOR|NOT) *{op}$",
        rf"^{cl} *(AND|OR|XOR)$",
        r"^(AND|OR|XOR|NOT)$",
    )
    simplified, filters = "", dict[str, str]()
    for part in parts:
        if any(re.search(rx, part) for rx in operators):
            simplified += part
        else:
            name = f"f{len(filters) + 1}"
            filters[name] = part
            simplified += name
    simplified = re.sub(rf"({cl})([A-Z])", r"\1 \2", simplified)
    simplified = re.sub(rf"([A-Z])({op})", r"\1 \2", simplified)
    if o == '"':  # quotes open and close alternately
        out, opening = [], True
        for ch in simplified:
            if ch == '"':
                out.append("(" if opening else ")")
                opening = not opening
            else:
                out.append(ch)
        simplified = "".join(out)
    elif o != "(":
        simplified = simplified.replace(o, "(").replace(c, ")")
    return simplified, filters


Node = Callable[[QTask, Context], bool]


def _parse(tokens: list[str], filters: dict[str, Predicate]) -> Node:
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise QueryError("malformed boolean query -- Unexpected end of expression")
        pos += 1
        return tokens[pos - 1]

    def binary(level: int) -> Node:
        ops = ("OR", "AND", "XOR")
        if level == 3:
            return unary()
        left = binary(level + 1)
        while peek() == ops[level]:
            take()
            right = binary(level + 1)
            left = _combine(ops[level], left, right)
        return left

    def unary() -> Node:
        tok = take()
        if tok == "NOT":
            inner = unary()
            return lambda t, c: not inner(t, c)
        if tok == "(":
            inner = binary(0)
            if take() != ")":
                raise QueryError("malformed boolean query -- Invalid token")
            return inner
        if tok in filters:
            return filters[tok]
        raise QueryError(f"malformed boolean query -- Invalid token {tok!r}")

    node = binary(0)
    if pos != len(tokens):
        raise QueryError(f"malformed boolean query -- Invalid token {tokens[pos]!r}")
    return node


def _combine(op: str, a: Node, b: Node) -> Node:
    if op == "OR":
        return lambda t, c: a(t, c) or b(t, c)
    if op == "AND":
        return lambda t, c: a(t, c) and b(t, c)
    return lambda t, c: a(t, c) != b(t, c)


def boolean_filter(line: str, today: dt.date) -> Predicate:
    simplified, parts = preprocess(line)
    filters: dict[str, Predicate] = {}
    for name, text in parts.items():
        found = field_filter(text.strip(), today)
        if found is None:
            raise QueryError(
                f"Could not interpret the following instruction as a Boolean combination: "
                f"{line}\ncouldn't parse sub-expression '{text.strip()}'"
            )
        filters[name] = found
    tokens = re.findall(r"\(|\)|AND|OR|XOR|NOT|f\d+|\S+", simplified)
    try:
        return _parse(tokens, filters)
    except QueryError as exc:
        raise QueryError(
            f"Could not interpret the following instruction as a Boolean combination: {line}\n"
            f"{exc} (the line read as: {simplified})"
        ) from exc


def line_filter(line: str, today: dt.date) -> Predicate | None:
    """A field's filter, else a Boolean one, else None."""
    found = field_filter(line, today)
    if found is not None:
        return found
    if LOOKS_BOOLEAN.search(line):
        return boolean_filter(line, today)
    return None
