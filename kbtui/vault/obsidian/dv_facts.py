"""What the Dataview plugin reads from a note beside its properties: inline fields on the
note's lines and on its list items, every list item (tasks among them) with its parent, section,
tags, links and fields, the note's tags as written, and the day it is about.

After blacksmithgu/obsidian-dataview (MIT), src/data-import/markdown-file.ts (`parsePage`,
`parseMarkdown`, `parseLists`, `finalizeInlineFields`, `findDate`). One deliberate difference:
fields inside fenced or indented code blocks are not read (the plugin reads them, its open issue
#2561 calls that a bug); list items in code are not list items to either.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from markdown_it.token import Token

from kbtui.models import DataviewPage, ListItem
from kbtui.vault.obsidian.dv_values import inline_value, link_parts, property_value, tag
from kbtui.vault.obsidian.inline_fields import bracket_fields, canonical, full_line_field
from kbtui.vault.obsidian.mdlinks import md_target

LIST_ITEM = re.compile(r"^[\s>]*(\d+\.|\d+\)|\*|-|\+)\s*(\[.?\])?\s*(.*)$")
_BOX = re.compile(r"^\[(.)\](?:[ \t]|$)")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$")
_TAG_LIKE = re.compile(r"""#[^\s,;.:!?'"`()\[\]{}]+""")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]]*?)\]\]")
_MD_LINK = re.compile(r"(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?\s*\)")
# a task's dates and the fields Dataview takes each from, first found first (data-model/markdown.ts)
TASK_DATES = (("due", "duetime", "dueday"), ("completed", "completion", "comptime", "compday"),
              ("created", "ctime", "cday"), ("start",), ("scheduled",))  # fmt: skip
_DATE_IN_NAME = (re.compile(r"(\d{4})-(\d{2})-(\d{2})"), re.compile(r"(\d{4})(\d{2})(\d{2})"))
Fields = dict[str, list[Any]]


def dataview_page(
    path: str,
    tokens: list[Token],
    lines: list[str],
    first_line: int,
    meta: dict[str, Any],
    etags: list[str],
) -> DataviewPage:
    """A markdown note's Dataview facts. `tokens` parse the body, which starts at the 0-based
    file line `first_line` of `lines`; `meta` are its properties (JSON values), `etags` its
    tags as written, body tags first."""
    skip: set[int] = set()  # file lines (0-based) no page field is read from
    headings: list[tuple[int, str]] = []
    items: list[ListItem] = []
    item_fields: list[Fields] = []
    stack: list[int] = []
    lists = 0
    list_line = 0
    for i, tok in enumerate(tokens):
        kind, span = tok.type, tok.map
        if span is not None:
            span = [first_line + span[0], first_line + span[1]]
        if kind in ("fence", "code_block", "hr") and span:
            skip.update(range(*span))
        elif kind == "heading_open" and span and i + 1 < len(tokens):
            headings.append((span[0], tokens[i + 1].content.strip()))
        elif kind in ("bullet_list_open", "ordered_list_open"):
            if span and tok.level == 0:
                skip.update(range(*span))
            if lists == 0 and span:
                list_line = span[0] + 1
            lists += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
        elif kind == "list_item_open" and span:
            item, own = _item(path, tokens, i, span, lines, stack, list_line, headings)
            stack.append(item.line)
            skip.update(range(item.line - 1, item.line - 1 + item.line_count))
            items.append(item)
            item_fields.append(own)
        elif kind == "list_item_close" and stack:
            stack.pop()
    found: Fields = {}
    for item, own in zip(items, item_fields, strict=True):
        if item.status is None:  # a plain item's fields are the page's too; a task's are its own
            _merge(found, own)
    for n in range(first_line, len(lines)):
        line = lines[n]
        if n in skip or "::" not in line or len(line) > 32768:
            continue
        _merge(found, _line_fields(line.strip()))
    fields: Fields = {}
    for key, value in meta.items():
        if key != "position":
            fields.setdefault(key, []).append(property_value(value))
    _merge(fields, found)
    return DataviewPage(
        fields=json.dumps(_finalised(fields), ensure_ascii=False),
        tags=tuple(dict.fromkeys("#" + t.lstrip("#") for t in etags if t.lstrip("#"))),
        day=_day(path, fields),
        items=tuple(items),
    )


def _item(
    path: str,
    tokens: list[Token],
    i: int,
    span: list[int],
    lines: list[str],
    stack: list[int],
    list_line: int,
    headings: list[tuple[int, str]],
) -> tuple[ListItem, Fields]:
    start = span[0]
    end = start + 1
    status: str | None = None
    if i + 2 < len(tokens) and tokens[i + 1].type == "paragraph_open":
        inline = tokens[i + 2]
        if tokens[i + 1].map is not None:
            end = start + (tokens[i + 1].map[1] - tokens[i + 1].map[0])  # type: ignore[index]
        box = _BOX.match(inline.content)
        status = box.group(1) if box else None
    end = min(max(end, start + 1), len(lines))
    first = lines[start].rstrip("\r") if start < len(lines) else ""
    m = LIST_ITEM.match(first)
    symbol, head = (m.group(1), m.group(3)) if m else ("-", first.strip())
    parts = [head] + [ln.strip() for ln in lines[start + 1 : end]]
    text, flat = "\n".join(parts).rstrip(), " ".join(parts).strip()
    fields: Fields = {}
    for f in bracket_fields(flat, task_fields=True):
        fields.setdefault(f.key, []).append(inline_value(f.value))
    if status is None and not fields:
        whole = full_line_field(flat)
        if whole is not None and whole.key:
            fields[whole.key] = [inline_value(whole.value)]
    block = _BLOCK_ID.search(parts[-1])
    section = next((h for line, h in reversed(headings) if line <= start), "")
    item = ListItem(
        line=start + 1,
        parent=stack[-1] if stack else 0,
        list_line=list_line,
        symbol=symbol,
        status=status,
        text=text,
        line_count=end - start,
        section=section,
        block_id=block.group(1) if block else "",
        fields=json.dumps(fields, ensure_ascii=False),
        tags=tuple(_tags(flat)),
        links=json.dumps(_links(flat, path), ensure_ascii=False),
        dates=_task_dates(fields) if status is not None else ("", "", "", "", ""),
    )
    return item, fields


def _task_dates(fields: Fields) -> tuple[str, str, str, str, str]:
    out = []
    for keys in TASK_DATES:
        first = next((fields[k][0] for k in keys if fields.get(k)), None)
        if first is None:
            out.append("")
        elif isinstance(first, dict) and len(str(first.get("$date", ""))) == 23:
            out.append(str(first["$date"]))
        else:
            out.append("?")
    return out[0], out[1], out[2], out[3], out[4]


def _line_fields(line: str) -> Fields:
    found: Fields = {}
    fields = bracket_fields(line)
    if not fields:
        whole = full_line_field(line)
        fields = [whole] if whole is not None and whole.key else []
    for f in fields:
        found.setdefault(f.key, []).append(inline_value(f.value))
    return found


def _merge(into: Fields, more: Fields) -> None:
    for key, values in more.items():
        into.setdefault(key, []).extend(values)


def _finalised(fields: Fields) -> dict[str, Any]:
    """Each key once: one value as itself, several as a list; keys also under their
    simplified name (when no key is already called that), values of every spelling joined."""
    normal: Fields = {}
    for key, values in fields.items():
        name = canonical(key)
        if name and name not in fields:
            normal.setdefault(name, []).extend(values)
    merged = {**fields, **normal}
    return {k: v[0] if len(v) == 1 else v for k, v in merged.items()}


def _tags(text: str) -> list[str]:
    found = []
    for m in _TAG_LIKE.finditer(text):
        parsed = tag(m.group(0), 0)
        if parsed and parsed[1] == len(m.group(0)) and m.group(0) not in found:
            found.append(m.group(0))
    return found


def _links(text: str, path: str) -> list[dict[str, Any]]:
    out = [{"$link": link_parts(m.group(2), bool(m.group(1)))} for m in _WIKILINK.finditer(text)]
    for m in _MD_LINK.finditer(text):
        target = md_target(m.group(2), path)
        if target is not None:
            parts = link_parts(target[0] + (f"#{target[1]}" if target[1] else ""), bool(m.group(1)))
            out.append({"$link": parts})
    return out


def _day(path: str, fields: Fields) -> str | None:
    for key, values in fields.items():
        if key.lower() in ("date", "day") and values:
            first = values[0]
            if isinstance(first, dict) and "$date" in first:
                return str(first["$date"])
    name = path.rsplit("/", 1)[-1]
    name = name[:-3] if name.endswith(".md") else name
    for pattern in _DATE_IN_NAME:
        m = pattern.search(name)
        if m:
            y, mo, d = (int(g) for g in m.groups())
            try:
                dt.date(y, mo, d)
            except ValueError:
                return None
            return f"{y:04d}-{mo:02d}-{d:02d}T00:00:00.000"
    return None
