"""Pages and list items as Dataview queries see them, built from the index's rows: a page's
fields (properties and inline fields) beside its implicit `file` object (name, folder, path,
ext, link, size, ctime, cday, mtime, mday, tags, etags, inlinks, outlinks, aliases, tasks,
lists, frontmatter, day, starred); a list item's own fields beside its implicit ones (status,
checked, completed, fullyCompleted, text, line, path, section, link, children, parent ...).

After blacksmithgu/obsidian-dataview (MIT), src/data-model/markdown.ts (`serialize`).
Links in a page point at the file they reach, resolved as Obsidian resolves them from the page
(kbtui.store.queries.dv_rows.dv_names); `line` is 0-based as in Dataview.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kbtui.dataview.values import Duration, Link, date_of, date_of_ms, start_of_day
from kbtui.store.graph.links import link_key
from kbtui.vault.linked_files import folder_steps
from kbtui.vault.obsidian.dv_values import header_text

Row = dict[str, Any]
FILE_KEYS = frozenset(
    [
        "path",
        "folder",
        "name",
        "link",
        "outlinks",
        "inlinks",
        "etags",
        "tags",
        "aliases",
        "lists",
        "tasks",
        "ctime",
        "cday",
        "mtime",
        "mday",
        "size",
        "starred",
        "frontmatter",
        "ext",
        "day",
    ]
)
_DATES = {"created": ("created", "ctime", "cday"), "due": ("due", "duetime", "dueday"),
          "completion": ("completed", "completion", "comptime", "compday"),
          "start": ("start",), "scheduled": ("scheduled",)}  # fmt: skip


@dataclass
class Need:
    """What of a page a query reads beyond its fields and cheap file facts."""

    items: bool = False
    outlinks: bool = False
    inlinks: bool = False
    frontmatter: bool = False  # file.frontmatter, file.aliases
    fields: frozenset[str] | None = None  # the page's fields the query names; None: all
    all_items: bool = True  # file.lists and file.tasks whole (else a TASK query's own tasks)
    file_keys: frozenset[str] | None = None  # file.* facts beyond its names; None: all

    @classmethod
    def everything(cls) -> Need:
        return cls(True, True, True, True, None, True, None)


class Names:
    """Link targets resolved as Obsidian resolves them: by path, end of a path, file name;
    among notes sharing the name, the nearest one (kbtui.store.graph.vault_facts)."""

    def __init__(self, rows: Iterable[tuple[str, int, str]]) -> None:
        self.by_key: dict[str, list[tuple[int, str]]] = {}
        for key, priority, path in rows:
            self.by_key.setdefault(key, []).append((priority, path))
        self.seen: dict[tuple[str, str], str | None] = {}

    def resolve(self, target: str, source: str = "") -> str | None:
        key = link_key(target)
        found = self.by_key.get(key)
        if not found:
            return None
        if len(found) == 1:
            return found[0][1]
        folder = posixpath.dirname(source)
        if (key, folder) in self.seen:
            return self.seen[(key, folder)]
        best = min(p for p, _ in found)
        paths = sorted({path for p, path in found if p == best})
        here = [s for s in folder.split("/") if s]
        chosen = min(paths, key=lambda p: (folder_steps(here, _folders(p)), p))
        self.seen[(key, folder)] = chosen
        return chosen


def _folders(path: str) -> list[str]:
    return [s for s in posixpath.dirname(path).split("/") if s]


def link_targets(values: Iterable[Any]) -> set[str]:
    """The link keys stored values hold (to resolve them all in one read)."""
    keys: set[str] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict):
            if "$link" in v and len(v) == 1:
                keys.add(link_key(v["$link"]["path"]))
            else:
                stack.extend(v.get("$obj", v).values())
    return keys


def decode(value: Any, link: Callable[[dict[str, Any]], Link]) -> Any:
    """A stored value (kbtui.vault.obsidian.dv_values' encoding) as a query value."""
    if isinstance(value, list):
        return [decode(v, link) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            if "$date" in value:
                return date_of(value["$date"])
            if "$dur" in value:
                return Duration(dict(value["$dur"]))
            if "$link" in value:
                return link(value["$link"])
            if "$obj" in value:
                return {k: decode(v, link) for k, v in value["$obj"].items()}
        return {k: decode(v, link) for k, v in value.items()}
    return value


def _json(text: str) -> Any:
    """JSON text, the empty list and object (most items' tags, links, fields) without a parse."""
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return json.loads(text)


def _aliases(meta: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in meta.items():
        if key.lower() not in ("alias", "aliases") or not value:
            continue
        if isinstance(value, list):
            out += [str(v).strip() for v in value]
        else:
            out += [s.strip() for s in str(value).split(",") if s.strip()]
    return list(dict.fromkeys(out))


def _subtags(tags: Sequence[str]) -> list[str]:
    full: list[str] = []
    for tag in tags:
        while True:
            if tag not in full:
                full.append(tag)
            if "/" not in tag:
                break
            tag = tag.rsplit("/", 1)[0]
    return full


class PageBuilder:
    """Page rows from the index's rows, links resolved through `names`."""

    def __init__(self, names: Names, need: Need | None = None) -> None:
        self.names = names
        self.need = need or Need.everything()
        self.raw: dict[tuple[str, int], str] = {}  # (path, 0-based line) -> a task's line
        self.sections: dict[tuple[str, str], Link] = {}

    def linker(self, source: str) -> Callable[[dict[str, Any]], Link]:
        def make(parts: dict[str, Any]) -> Link:
            raw = parts["path"]
            path = (self.names.resolve(raw, source) if raw else source) or raw
            return Link(path, parts.get("display"), parts.get("subpath"),
                        parts.get("type", "file"), bool(parts.get("embed")))  # fmt: skip

        return make

    def page(
        self,
        row: Sequence[Any],
        fields: dict[str, Any],
        tags: list[str],
        links: Sequence[tuple[str, str, str, str]] = (),
        inlinks: Sequence[str] = (),
        items: Sequence[Sequence[Any]] = (),
        only: set[int] | None = None,
    ) -> Row:
        path, _eid, size, mtime_ns, ctime_ns, fm, _fields, _tags, day = row
        make = self.linker(path)
        name = path.rsplit("/", 1)[-1]
        file: Row = {
            "path": path,
            "folder": path.rsplit("/", 1)[0] if "/" in path else "",
            "name": name[:-3] if name.endswith(".md") else name,
            "link": Link(path),
        }
        want = self.need.file_keys
        if want is None or "outlinks" in want:
            file["outlinks"] = [self._outlink(make, *lk) for lk in links]
        if want is None or "inlinks" in want:
            file["inlinks"] = [Link(p) for p in inlinks]
        if want is None or want & {"etags", "tags"}:
            file["etags"] = tags
            file["tags"] = _subtags(tags)
        meta: dict[str, Any] = {}
        if self.need.frontmatter and fm:
            loaded = json.loads(fm)
            meta = loaded if isinstance(loaded, dict) else {}
        if want is None or "aliases" in want:
            file["aliases"] = _aliases(meta)
        if want is None or want & {"lists", "tasks"} or self.need.items:
            lists = self.items(path, items, only)
            file["lists"] = lists
            file["tasks"] = [it for it in lists if it["task"]]
        if want is None or want & {"ctime", "cday"}:
            ctime = date_of_ms(int(ctime_ns) // 1_000_000)
            file["ctime"], file["cday"] = ctime, start_of_day(ctime)
        if want is None or want & {"mtime", "mday"}:
            mtime = date_of_ms(int(mtime_ns) // 1_000_000)
            file["mtime"], file["mday"] = mtime, start_of_day(mtime)
        file["size"] = int(size)
        file["starred"] = False
        if want is None or "frontmatter" in want:
            file["frontmatter"] = meta
        file["ext"] = name.rsplit(".", 1)[-1] if "." in name else ""
        if day:
            file["day"] = date_of(day)
        out: Row = {"file": file}
        for key, value in fields.items():
            if key != "file":
                out[key] = decode(value, make)
        return out

    @staticmethod
    def _outlink(
        make: Callable[[dict[str, Any]], Link], target: str, rel: str, heading: str, label: str
    ) -> Link:
        kind, sub = "file", None
        if heading.startswith("^"):
            kind, sub = "block", heading[1:]
        elif heading:
            kind, sub = "header", header_text(heading)
        parts = {"path": target, "display": label or None, "subpath": sub, "type": kind,
                 "embed": rel == "embeds"}  # fmt: skip
        return make(parts)

    def items(
        self, path: str, rows: Sequence[Sequence[Any]], only: set[int] | None = None
    ) -> list[Row]:
        """List item rows (kbtui.store.queries.dv_rows.dv_items, their JSON columns parsed)
        as Dataview's items; with `only` (1-based lines), those and the items under them."""
        if only is not None:
            keep = set(only)
            for r in rows:  # in line order: a parent comes before its children
                if r[2] in keep:
                    keep.add(r[1])
            rows = [r for r in rows if r[1] in keep]
        make = self.linker(path)
        out: list[Row] = []
        by_line: dict[int, Row] = {}
        for r in rows:
            line, parent, list_line, symbol, status, text, count, section, block = r[1:10]
            fields: dict[str, list[Any]] = r[10]
            at = self.sections.get((path, section))
            if at is None:
                at = Link(path, None, header_text(section), "header") if section else Link(path)
                self.sections[(path, section)] = at
            children: list[Row] = []
            item: Row = {
                "symbol": symbol,
                "link": Link(path, None, block, "block") if block else at,
                "section": at,
                "text": text,
                "tags": r[11],
                "line": line - 1,
                "lineCount": count,
                "list": list_line - 1,
                "outlinks": [decode(v, make) for v in r[12]],
                "path": path,
                "children": children,
                "task": status is not None,
                "annotated": bool(fields),
                "position": {"start": {"line": line - 1, "col": 0, "offset": 0},
                             "end": {"line": line + count - 2, "col": 0, "offset": 0}},
                "subtasks": children,
                "real": status is not None,
                "header": at,
            }  # fmt: skip
            if parent:
                item["parent"] = parent - 1
            if block:
                item["blockId"] = block
            for key, values in fields.items():
                if key not in item:
                    value = [decode(v, make) for v in values]
                    item[key] = value[0] if len(value) == 1 else value
            if status is not None:
                item["status"] = status
                item["checked"] = status not in ("", " ")
                item["completed"] = status in ("x", "X")
                item["fullyCompleted"] = item["completed"]
                if fields:
                    for name, keys in _DATES.items():
                        first = next((fields[k][0] for k in keys if fields.get(k)), None)
                        if first is not None:
                            item[name] = decode(first, make)
            if r[13]:
                self.raw[(path, line - 1)] = r[13]
            by_line[line] = item
            out.append(item)
        for item in out:
            parent = by_line.get(item.get("parent", -2) + 1)
            if parent is not None:
                parent["children"].append(item)
        for item in out:  # a task is fully completed when it and every task below it are
            if item["task"] and not item["completed"]:
                up: Row | None = item
                while up is not None:
                    if up["task"]:
                        up["fullyCompleted"] = False
                    up = by_line.get(up.get("parent", -2) + 1)
        return out
