"""The rows a base view may match, found in SQL (kbtui.bases.prefilter builds the condition),
and what a query reads of the others: the names a link may resolve by, one file's titles.

The condition is rendered with parameters, never with its values in the text. A case-folding
test compares DuckDB's lower() with Python's only on plain ASCII; any other text passes it, so
a fold never drops a row Python would keep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import duckdb

# Every vault file once: its path, and a note's id and frontmatter (NULL for other files).
_ALL = """(SELECT coalesce(n.path, vf.path) AS path, n.entity_id, n.frontmatter AS fm,
                  n.size AS note_size, n.mtime_ns AS note_mtime,
                  epoch_ms(n.created_at::TIMESTAMP) AS created, n.title, n.aliases,
                  vf.path AS file_path, vf.size, vf.mtime_ns, vf.ctime_ns
           FROM notes n FULL JOIN vault_files vf ON vf.path = n.path) r"""
_ROW = ("r.path, r.entity_id, r.fm::VARCHAR, r.note_size, r.note_mtime, r.created, r.title, "
        "r.aliases, r.file_path, r.size, r.mtime_ns, r.ctime_ns")  # fmt: skip
_NAME = "regexp_extract(r.path, '[^/]*$')"
_FOLDER = (
    "CASE WHEN contains(r.path, '/') THEN regexp_extract(r.path, '(?s)^(.*)/', 1) ELSE '/' END"
)
_FIELDS = {"path": "r.path", "name": _NAME, "folder": _FOLDER}
_TEXT_OPS = {"eq": "{f} = {x}", "prefix": "starts_with({f}, {x})", "suffix": "suffix({f}, {x})",
             "contains": "contains({f}, {x})"}  # fmt: skip
_CMP = {"eq": "=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_NUMERIC = "('BIGINT', 'UBIGINT', 'DOUBLE', 'HUGEINT')"


def _plain(expr: str) -> str:
    """Plain ASCII text: lower() means one thing in DuckDB and Python."""
    return f"regexp_full_match({expr}, '[ -~]*')"


def _odd(expr: str) -> str:
    """Plain ASCII without space at either end (link_key strips it): its key is lower()."""
    return f"regexp_full_match({expr}, '[!-~]([ -~]*[!-~])?')"


def _plain_key(key: str) -> bool:
    """A key found the same in a JSON text as in the value it encodes."""
    return key.isascii() and key.isprintable() and '"' not in key and "\\" not in key


class Params(dict[str, Any]):
    """Named parameters: each value gets its own `$pN`; `pointers`, the properties a
    condition reads, each parsed out of the frontmatter once per row (`r.v[i]`)."""

    def __init__(self) -> None:
        super().__init__()
        self.pointers: list[str] = []

    def __call__(self, value: Any) -> str:
        name = f"p{len(self)}"
        self[name] = value
        return "$" + name


def render(cond: tuple[Any, ...], p: Params) -> str:
    """SQL (a boolean, never NULL) for a prefilter condition over `_ALL`."""
    kind = cond[0]
    if kind in ("true", "false"):
        return str(kind)
    if kind in ("and", "or"):
        return "(" + f" {kind.upper()} ".join(render(c, p) for c in cond[1]) + ")"
    if kind == "not":
        return f"(NOT {render(cond[1], p)})"
    return f"coalesce({_atom(cond, p)}, false)"


def _atom(cond: tuple[Any, ...], p: Params) -> str:
    kind = cond[0]
    if kind == "tag":
        words = list(cond[1])
        return (f"r.entity_id IN (SELECT entity_id FROM tags WHERE list_contains({p(words)}, tag)"
                f" OR list_bool_or(list_transform({p([w + '/' for w in words])}, "
                f"w -> starts_with(tag, w))))")  # fmt: skip
    if kind == "text":
        field = _FIELDS[cond[1]]
        return _TEXT_OPS[cond[2]].format(f=field, x=p(cond[3]))
    if kind == "ext":
        if cond[2]:  # exactly: a name with something but dots before the suffix
            pattern = r"(?s)(.*/)?[^/]*[^/.][^/]*\." + re.escape(cond[1])
            return f"regexp_full_match(r.path, {p(pattern)})"
        return f"(suffix(lower(r.path), {p('.' + cond[1])}) OR NOT {_plain('r.path')})"
    if kind == "has_prop":
        key = p(_pointer(cond[1]))
        return f"(json_type(r.fm) = 'OBJECT' AND json_extract(r.fm, {key}) IS NOT NULL)"
    if kind == "prop":
        return _prop(cond[1], cond[2], "true" if cond[3] else "false", p)
    raise ValueError(f"unknown prefilter condition {kind!r}")


def _pointer(name: str) -> str:
    return "/" + name.replace("~", "~0").replace("/", "~1")


def _prop(name: str, test: tuple[Any, ...], loose: str, p: Params) -> str:
    """The key as written decides; else a key in another case may (`loose`); else missing."""
    if _pointer(name) not in p.pointers:
        p.pointers.append(_pointer(name))
    i = p.pointers.index(_pointer(name)) + 1
    t, text = f"r.tl[{i + 1}]", f"r.sl[{i}]"
    body = _test(test, loose, p).format(t=t, s=text)
    other_case = (f"list_bool_or(list_transform(json_keys(r.fm), k -> lower(k) = {p(name.lower())}"
                  f" OR NOT {_plain('k')}))")  # fmt: skip
    return (f"CASE WHEN r.tl[1] IS DISTINCT FROM 'OBJECT' THEN false WHEN {t} IS NOT NULL "
            f"THEN {body} WHEN {other_case} THEN {loose} ELSE false END")  # fmt: skip


def _test(test: tuple[Any, ...], loose: str, p: Params) -> str:
    """A test of one JSON value of type {t}, {s} its text (a string's own, else its JSON);
    a null fails every test."""
    kind = test[0]
    number = f"{{t}} IN {_NUMERIC}"
    if kind == "truthy":
        return ("CASE {t} WHEN 'NULL' THEN false WHEN 'BOOLEAN' THEN {s} = 'true' "
                "WHEN 'VARCHAR' THEN length({s}) > 0 WHEN 'ARRAY' THEN {s} <> '[]' "
                "WHEN 'OBJECT' THEN {s} <> '{{}}' "
                f"ELSE ({number} AND TRY_CAST({{s}} AS DOUBLE) <> 0) END")  # fmt: skip
    if kind == "num":
        op, x = _CMP[test[1]], p(test[2])
        boolean = "false" if op == "=" else f"({{s}} = 'true')::INTEGER {op} {x}"
        other = "false" if op == "=" else loose
        return (f"CASE WHEN {number} THEN TRY_CAST({{s}} AS DOUBLE) {op} {x} "
                f"WHEN {{t}} = 'BOOLEAN' THEN {boolean} WHEN {{t}} = 'NULL' THEN false "
                f"ELSE {other} END")  # fmt: skip
    if kind == "str_eq":
        equal = "true" if test[2] else loose
        return (
            f"CASE WHEN {{t}} <> 'VARCHAR' THEN false WHEN contains({{s}}, '[[') "
            f"THEN {loose} WHEN {{s}} = {p(test[1])} THEN {equal} ELSE false END"
        )
    if kind == "date":
        op, day, exact = _CMP[test[1]], p(test[2]), test[3]
        if exact:  # a plain day compares as its text
            return ("CASE WHEN {t} = 'VARCHAR' THEN regexp_full_match({s}, "
                    f"'[0-9]{{{{4}}}}-[0-9]{{{{2}}}}-[0-9]{{{{2}}}}') AND {{s}} {op} {day} "
                    "ELSE false END")  # fmt: skip
        bound = {"=": "=", "<": "<=", "<=": "<=", ">": ">=", ">=": ">="}[op]
        return (f"CASE WHEN {{t}} = 'NULL' THEN false WHEN {{t}} <> 'VARCHAR' THEN {loose} "
                f"WHEN regexp_matches({{s}}, '^[0-9]') THEN left({{s}}, 10) {bound} {day} "
                f"ELSE {loose} END")  # fmt: skip
    if kind == "contains_text":  # list items are looked for in the list's JSON text
        if not all(_plain_key(k) for k in test[1]):
            return f"CASE WHEN {{t}} = 'NULL' THEN false ELSE {loose} END"
        found = "(" + " OR ".join(f"contains(lower({{s}}), {p(k)})" for k in test[1]) + ")"
        return (f"CASE {{t}} WHEN 'VARCHAR' THEN (NOT {_plain('{s}')} OR {found})"
                f" WHEN 'ARRAY' THEN (NOT {_plain('{s}')} OR contains({{s}}, '\\u') OR {found})"
                f" WHEN 'OBJECT' THEN {loose} ELSE false END")  # fmt: skip
    raise ValueError(f"unknown prefilter test {kind!r}")


class BaseRowQueries:
    """Mixed into Store (through VaultFileQueries): what a base query reads of the index."""

    con: duckdb.DuckDBPyConnection

    def base_candidates(
        self, cond: tuple[Any, ...], proofs: Sequence[tuple[Any, ...]] = ()
    ) -> tuple[list[tuple[Any, ...]], list[tuple[str, int, int, int]], dict[str, list[bool]]]:
        """The vault files that may pass a prefilter condition, in path order: note rows (as
        base_note_rows gives them), file facts, and per path which `proofs` (conditions that
        imply a filter) hold."""
        p = Params()
        where = render(cond, p)
        checks = "".join(f", {render(c, p)}" for c in proofs)
        source = _ALL
        if p.pointers:  # each row's frontmatter parsed twice for all the properties read
            types, texts = p(["$", *p.pointers]), p(p.pointers)
            source = (f"(SELECT r.*, json_type(r.fm, {types}) AS tl, "
                      f"json_extract_string(r.fm, {texts}) AS sl FROM {_ALL}) r")  # fmt: skip
        found = self.con.execute(
            f"SELECT {_ROW}{checks} FROM {source} WHERE {where} ORDER BY 1", p
        ).fetchall()
        notes = [r[:8] for r in found if r[1] is not None]
        files = [(r[0], int(r[9]), int(r[10]), int(r[11])) for r in found if r[8] is not None]
        proven = {r[0]: list(r[12:]) for r in found}
        return self._with_tags_links(notes), files, proven

    def base_rows_at(
        self, paths: Sequence[str]
    ) -> tuple[list[tuple[Any, ...]], list[tuple[str, int, int, int]]]:
        """The note rows (as base_note_rows gives them) and the file facts of `paths`."""
        if not paths:
            return [], []
        p = {"p": list(paths)}
        files = self.con.execute(
            "SELECT path, size, mtime_ns, ctime_ns FROM vault_files "
            "WHERE path IN (SELECT unnest($p)) ORDER BY path", p).fetchall()  # fmt: skip
        notes = self.con.execute(
            """SELECT path, entity_id, frontmatter::VARCHAR, size, mtime_ns,
                      epoch_ms(created_at::TIMESTAMP), title, aliases FROM notes
               WHERE path IN (SELECT unnest($p)) ORDER BY path""", p).fetchall()  # fmt: skip
        facts = [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in files]
        return self._with_tags_links(notes), facts

    def _with_tags_links(self, notes: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """(path, entity id, frontmatter, size, mtime_ns, created ms, title, aliases) rows with
        their tags and links, as base_note_rows gives them."""
        e = {"e": [n[1] for n in notes]}
        tags: dict[str, list[str]] = {}
        for eid, tag in self.con.execute(
            "SELECT entity_id, tag FROM file_tags WHERE entity_id IN (SELECT unnest($e)) "
            "ORDER BY entity_id, pos",
            e,
        ).fetchall():
            tags.setdefault(eid, []).append(tag)
        links: dict[str, list[tuple[str, str, str]]] = {}
        for eid, *link in self.con.execute(
            "SELECT entity_id, target, rel, heading FROM links "
            "WHERE entity_id IN (SELECT unnest($e)) ORDER BY rowid", e).fetchall():  # fmt: skip
            links.setdefault(eid, []).append(tuple(link))
        return [(n[0], *n[2:], tags.get(n[1], []), links.get(n[1], []), n[1]) for n in notes]

    def base_name_rows(self, keys: Sequence[str]) -> list[tuple[str, str | None, list[str]]]:
        """(path, title, aliases) of every file a link by one of `keys` (lower case, as
        kbtui.store.graph.links.link_key makes them) may resolve to: by path, file name,
        title or alias. A superset: names that are not plain ASCII come along too."""
        if not keys:
            return []
        wanted = sorted({*keys, *(k + ".md" for k in keys)})
        rows = self.con.execute(
            r"""WITH k AS (SELECT unnest($k) AS key),
                f AS (SELECT coalesce(n.path, vf.path) AS path, n.title, n.aliases,
                             lower(coalesce(n.path, vf.path)) AS lp
                      FROM notes n FULL JOIN vault_files vf ON vf.path = n.path)
                SELECT path, title, aliases FROM f
                WHERE lp IN (SELECT key FROM k)
                   OR split_part(lp, '/', -1) IN (SELECT key FROM k)
                   OR lower(title) IN (SELECT key FROM k)
                   OR (len(aliases) > 0
                       AND (list_has_any(list_transform(aliases, a -> lower(a)), $k)
                            OR list_bool_or(list_transform(aliases, a -> strlen(a) <> length(a)
                               OR regexp_matches(a, '^[\x00-\x20/]|[\x00-\x20/]$|/\.[mM][dD]$'
                                                    || '|\.[mM][dD]\.[mM][dD]$')))))
                   OR strlen(path) <> length(path) OR strlen(title) <> length(title)
                   OR regexp_matches(path, '(^|/)[\x00-\x20]|[\x00-\x20](/|$|\.[mM][dD]$)')
                   OR lp LIKE '%.md.md' OR lp LIKE '%/.md' OR lp = '.md'
                   OR regexp_matches(title, '^[\x00-\x20/]|[\x00-\x20/]$|/\.[mM][dD]$'
                                            || '|\.[mM][dD]\.[mM][dD]$')
                ORDER BY path""",
            {"k": wanted},
        ).fetchall()
        return [(r[0], r[1], list(r[2] or [])) for r in rows]

    def base_path_of(self, name: str, by_id: bool = True) -> str | None:
        """The vault path of a file given by path, or of a note given by its entity id."""
        if not by_id:
            row = self.con.execute(
                "SELECT path FROM vault_files WHERE path = $n UNION SELECT path FROM notes "
                "WHERE path = $n", {"n": name}).fetchone()  # fmt: skip
            return row[0] if row else None
        row = self.con.execute(
            """SELECT path FROM (SELECT path, 0 AS o FROM vault_files WHERE path = $n
               UNION ALL SELECT path, 1 FROM notes WHERE path = $n
               UNION ALL SELECT path, 2 FROM notes WHERE entity_id = $n) ORDER BY o LIMIT 1""",
            {"n": name},
        ).fetchone()
        return row[0] if row else None

    def vault_file_count(self) -> int:
        row = self.con.execute("SELECT count(*) FROM vault_files").fetchone()
        return int(row[0]) if row else 0

    def base_file_paths(self) -> list[str]:
        """Paths that may be .base files (lower case .base, or not plain ASCII), in order."""
        rows = self.con.execute(
            """SELECT path FROM vault_files WHERE lower(path) LIKE '%.base'
               OR NOT regexp_full_match(path, '[ -~]*') ORDER BY path"""
        ).fetchall()
        return [r[0] for r in rows]
