"""What of a view's filters the index can answer: a condition the store turns into SQL, so a
process reads only the rows that may match (kbtui.store.queries.base_rows renders it).

Each filter compiles to a pair: `sup`, true for every row the filter passes (a superset), and
`sub`, true only for rows it passes (a subset). `and`/`or` pair up, `not` swaps them, and what
cannot be said exactly in SQL (formulas, `this`, `now()`, link targets other than by name, a
value whose type decides at run time) is (TRUE, FALSE): the Python evaluator decides every
candidate anyway, so the answer is the evaluator's, only over fewer rows.

A condition is a small tuple (no SQL text here):
("true",) ("false",) ("and", [c]) ("or", [c]) ("not", c)
("tag", words)                   a note tag equal to a word or below it (`#a/b` for `a`)
("text", field, op, value)       field path|name|folder; op eq|prefix|suffix|contains
("ext", ext, exact)              the extension; `exact` False: by lower case (a superset)
("has_prop", name)               the frontmatter has the key as written
("prop", name, test, loose)      the property (a key in another case: `loose`) passes `test`:
    ("truthy",) ("num", op, x) ("str_eq", text, exact_when_equal) ("date", op, day, exact)
    ("contains_text", keys)      op: eq lt le gt ge; `loose` is what an undecided value gives
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kbtui.bases.parser import Node
from kbtui.bases.rows import DATE_TYPES, WIKILINK, FileRow
from kbtui.bases.syntax import Base, Filter, View
from kbtui.bases.values import Date, parse_date, to_text

Cond = tuple[Any, ...]
TRUE: Cond = ("true",)
FALSE: Cond = ("false",)
LOOSE: tuple[Cond, Cond] = (TRUE, FALSE)
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_OPS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq"}
_FILE_TEXT = ("path", "name", "folder")
_STRING_TESTS = {"contains": "contains", "startsWith": "prefix", "endsWith": "suffix"}
_NAMESPACES = ("file", "this", "note", "formula")


def _and(a: Cond, b: Cond) -> Cond:
    if a == FALSE or b == FALSE:
        return FALSE
    if a == TRUE:
        return b
    return a if b == TRUE else ("and", [a, b])


def _or(a: Cond, b: Cond) -> Cond:
    if a == TRUE or b == TRUE:
        return TRUE
    if a == FALSE:
        return b
    return a if b == FALSE else ("or", [a, b])


def _not(a: Cond) -> Cond:
    return FALSE if a == TRUE else TRUE if a == FALSE else ("not", a)


class Compiler:
    """Compiles one base's filters; `link_keys(text)` gives the lower-case names that may stand
    for the file a `link(text)` resolves to (its path, file name, title, aliases, the text)."""

    def __init__(self, types: dict[str, str], link_keys: Callable[[str], set[str]]) -> None:
        self.types = {k.lower(): v for k, v in types.items()}
        self.link_keys = link_keys
        self.may_raise = False  # whether the expression being compiled may raise somewhere

    def loose(self) -> tuple[Cond, Cond]:
        """What SQL cannot decide (it may also raise, which makes the whole expression false)."""
        self.may_raise = True
        return LOOSE

    def filters(self, *trees: Filter | None) -> Cond:
        """The superset condition of all the filters at once (they are ANDed)."""
        out = TRUE
        for tree in trees:
            if tree is not None:
                out = _and(out, self.pair(tree)[0])
        return out

    def proofs(self, *trees: Filter | None) -> list[tuple[str, Cond]]:
        """(filter key, subset condition) of each conjunct of the filters that SQL can prove
        for some rows: the evaluator takes a proven conjunct as passed for those rows."""
        out: list[tuple[str, Cond]] = []
        for tree in trees:
            if tree is None:
                continue
            if tree[0] == "and":
                out += self.proofs(*tree[1])
            elif tree[-1] is not None:
                sub = self.pair(tree)[1]
                if sub != FALSE:
                    out.append((str(tree[-1]), sub))
        return out

    def pair(self, f: Filter) -> tuple[Cond, Cond]:
        kind = f[0]
        if kind == "expr":  # an expression that may raise somewhere is false as a whole
            self.may_raise = False
            sup, sub = self.expr(f[1])
            return sup, FALSE if self.may_raise else sub
        subs = [self.pair(s) for s in f[1]]
        sup, sub = (TRUE, TRUE) if kind == "and" else (FALSE, FALSE)
        for a, b in subs:
            if kind == "and":
                sup, sub = _and(sup, a), _and(sub, b)
            else:
                sup, sub = _or(sup, a), _or(sub, b)
        if kind == "not":  # none of them
            return _not(sub), _not(sup)
        return sup, sub

    def expr(self, node: Node) -> tuple[Cond, Cond]:
        """(superset, subset) of the rows for which `node` is truthy."""
        kind = node[0]
        if kind == "lit":
            return (TRUE, TRUE) if _truthy_literal(node[1]) else (FALSE, FALSE)
        if kind == "unary" and node[1] == "!":
            sup, sub = self.expr(node[2])
            return _not(sub), _not(sup)
        if kind == "binary" and node[1] in ("&&", "||"):
            (a, b), (c, d) = self.expr(node[2]), self.expr(node[3])
            join = _and if node[1] == "&&" else _or
            return join(a, c), join(b, d)
        if kind == "binary" and node[1] in _FLIP:
            return self.compare(node[1], node[2], node[3])
        if kind == "call":
            return self.call(node[1], node[2])
        name = _prop_name(node)
        if name is not None:
            return self.prop(name, ("truthy",))
        return self.loose()

    def prop(self, name: str, test: tuple[Any, ...]) -> tuple[Cond, Cond]:
        return ("prop", name, test, True), ("prop", name, test, False)

    def compare(self, op: str, left: Node, right: Node) -> tuple[Cond, Cond]:
        lit = _literal(right)
        if lit is _NONE:
            lit, left, op = _literal(left), right, _FLIP[op]
        if lit is _NONE:
            return self.loose()
        if op == "!=":
            sup, sub = self.compare("==", left, ("lit", lit))
            return _not(sub), _not(sup)
        field = _file_field(left)
        if field in _FILE_TEXT and op == "==":
            exact = ("text", field, "eq", lit) if isinstance(lit, str) else FALSE
            return exact, exact
        if field == "ext" and op == "==" and isinstance(lit, str):
            return self.ext(lit)
        name = _prop_name(left)
        if name is None:
            return self.loose()
        if isinstance(lit, bool) or lit is None:
            return self.loose()
        if isinstance(lit, (int, float)):
            return self.prop(name, ("num", _OPS[op], float(lit)))
        if isinstance(lit, Date):
            day = lit.at.strftime("%Y-%m-%d")
            if not 1000 <= lit.at.year <= 9999:
                return self.loose()
            midnight = lit.at.hour == lit.at.minute == lit.at.second == lit.at.microsecond == 0
            return ("prop", name, ("date", _OPS[op], day, False), True), (
                ("prop", name, ("date", _OPS[op], day, True), False) if midnight else FALSE
            )
        if isinstance(lit, str) and op == "==":
            may_change = lit.strip()[:1].isdigit() or self.types.get(name.lower()) in DATE_TYPES
            return self.prop(name, ("str_eq", lit, not may_change))
        return self.loose()

    def ext(self, lit: str) -> tuple[Cond, Cond]:
        if not lit or not lit.isascii() or not lit.isalnum():
            return self.loose()
        return ("ext", lit.lower(), False), (("ext", lit, True) if lit.islower() or
                                              lit.isdigit() else FALSE)  # fmt: skip

    def call(self, callee: Node, args: list[Node]) -> tuple[Cond, Cond]:
        if callee[0] != "member":
            return self.loose()
        target, method = callee[1], callee[2]
        lits = [_literal(a) for a in args]
        plain = all(v is not _NONE and isinstance(v, (str, int, float)) for v in lits)
        if target == ("name", "file") and plain and not any(isinstance(v, bool) for v in lits):
            words = [to_text(v) for v in lits]
            if method == "hasTag":
                tags = tuple(sorted({w.lstrip("#").lower() for w in words}))
                return (("tag", tags),) * 2 if tags else (FALSE, FALSE)
            if method == "inFolder" and len(words) == 1:
                folder = words[0].strip("/")
                cond = ("text", "path", "prefix", folder + "/") if folder else TRUE
                return cond, cond
            if method == "hasProperty" and len(words) == 1:
                return ("has_prop", words[0]), ("has_prop", words[0])
            return self.loose()
        field = _file_field(target)
        if field and method in _STRING_TESTS and len(args) == 1 and isinstance(lits[0], str):
            op = _STRING_TESTS[method]
            if field in _FILE_TEXT:
                return ("text", field, op, lits[0]), ("text", field, op, lits[0])
            if field == "basename" and op != "suffix":
                return ("text", "name", op, lits[0]), FALSE
            return self.loose()
        name = _prop_name(target)
        if name is not None and method == "contains" and len(args) == 1:
            keys = self._contains_keys(args[0], lits[0])
            if keys is not None and self._tag_list(name):  # `#` optional (TagList)
                keys = {k.lstrip("#") for k in keys}
            if keys is not None:
                self.may_raise = True  # on a number or an object
                return ("prop", name, ("contains_text", tuple(sorted(keys))), True), FALSE
        return self.loose()

    def _tag_list(self, name: str) -> bool:
        return name.lower() == "tags" or self.types.get(name.lower()) == "tags"

    def _contains_keys(self, arg: Node, lit: Any) -> set[str] | None:
        """Lower-case texts one of which a list element (or the text) holds when it equals the
        argument: a string's own text, or every name of the file a `link("X")` resolves to."""
        if isinstance(lit, str):
            return {lit.strip().removeprefix("[[").removesuffix("]]").lower()}
        if (arg[0] == "call" and arg[1] == ("name", "link") and len(arg[2]) == 1
                and arg[2][0][0] == "lit" and isinstance(arg[2][0][1], str)):  # fmt: skip
            return self.link_keys(arg[2][0][1])
        return None


_NONE = object()


def _literal(node: Node) -> Any:
    """A literal's value (a negated number, `date("...")` as a Date), else _NONE."""
    if node[0] == "lit":
        return node[1]
    if node[0] == "unary" and node[1] == "-" and node[2][0] == "lit":
        value = node[2][1]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if node[0] == "call" and node[1] == ("name", "date") and len(node[2]) == 1:
        arg = node[2][0]
        if arg[0] == "lit" and isinstance(arg[1], str):
            return parse_date(arg[1]) or _NONE
    return _NONE


def _truthy_literal(value: Any) -> bool:
    if isinstance(value, (str, list, dict)):
        return len(value) > 0
    if isinstance(value, float) and value != value:
        return False
    return bool(value)


def _prop_name(node: Node) -> str | None:
    """The note property a node reads as it is: `x`, `note.x`, `note["x"]`."""
    if node[0] == "name" and node[1] not in _NAMESPACES[:3]:
        return str(node[1])
    if node[0] == "member" and node[1] == ("name", "note") and node[2] != "file":
        return str(node[2])
    if node[0] == "index" and node[1] == ("name", "note") and node[2][0] == "lit":
        key = node[2][1]
        return key if isinstance(key, str) and key != "file" else None
    return None


def _file_field(node: Node) -> str | None:
    if node[0] == "member" and node[1] == ("name", "file"):
        return str(node[2])
    return None


def reads_every_row(base: Base, view: View) -> bool:
    """Whether the view can read rows a filter cannot name: `file.backlinks` looks at every
    note's links, so such a view is run over every row."""
    return _mentions(_parts(base, view), "backlinks")


def reads_links(base: Base, view: View) -> bool:
    """Whether the view may resolve a note's links (`file.links`, `hasLink()` ...), not only
    its wikilink properties: their names are then read along with the rows."""
    return any(_mentions(_parts(base, view), w) for w in ("links", "embeds", "Link", "linksTo"))


def _parts(base: Base, view: View) -> list[Any]:
    return [base.filters, view.filters, list(base.formulas.values()),
            list(base.summaries.values()), view.order, view.sort, view.group_by,
            [str(v) for v in view.settings.values()]]  # fmt: skip


def _mentions(node: Any, word: str) -> bool:
    if isinstance(node, str):
        return word in node
    if isinstance(node, (tuple, list)):
        return any(_mentions(part, word) for part in node)
    return False


def _exprs(f: Filter | None) -> Iterable[Node]:
    if f is None:
        return
    if f[0] == "expr":
        yield f[1]
    else:
        for sub in f[1]:
            yield from _exprs(sub)


def literal_links(base: Base) -> set[str]:
    """The texts of `link("X")` calls with a literal, whose names a query looks up first."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, (tuple, list)):
            if (len(node) == 3 and node[0] == "call" and node[1] == ("name", "link")
                    and node[2] and node[2][0][0] == "lit"):  # fmt: skip
                found.add(str(node[2][0][1]))
            for part in node:
                walk(part)

    for tree in [base.filters, *(v.filters for v in base.views)]:
        for n in _exprs(tree):
            walk(n)
    for n in base.formulas.values():
        walk(n)
    return found


def wikilink_targets(row: FileRow, links: bool = True) -> list[str]:
    """The targets a row's wikilink properties (and `links`: its links) name, to read their
    names at once."""
    out = (
        [t.split("#", 1)[0].split("|", 1)[0].strip() for t, _, _ in row.link_rows] if links else []
    )
    if row.fm and "[[" in row.fm:
        stack: list[Any] = list(row.raw.values())
        while stack:
            value = stack.pop()
            if isinstance(value, (list, dict)):
                stack.extend(value.values() if isinstance(value, dict) else value)
            elif isinstance(value, str) and (m := WIKILINK.match(value.strip())):
                out.append(m.group(1).strip())
    return out
