"""Tasks as Obsidian and its Tasks plugin read them: a list item whose text starts with `[c]`
(any one character: ` ` to do, `x` done, `-`, `/`, `?` ... custom), found in markdown-it's
tokens so a `- [ ]` inside a code block is never a task. The Tasks plugin's emoji fields and
Dataview's `[key:: value]` fields are read from the line as written."""

from __future__ import annotations

import re

from markdown_it.token import Token

from kbtui.models import Task
from kbtui.vault.obsidian.task_line import pack, parse_line

_BOX = re.compile(r"^\[(.)\](?:[ \t]|$)")
_DATE = r"(\d{4}-\d{2}-\d{2})"
_EMOJI_DATES = {"due": "📅", "scheduled": "⏳", "start": "🛫", "done": "✅"}
_PRIORITY = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
_DATAVIEW = re.compile(r"[\[(]\s*([A-Za-z][\w -]*?)\s*::\s*([^\])]*?)\s*[\])]")
_DATAVIEW_KEYS = {
    "due": "due",
    "scheduled": "scheduled",
    "start": "start",
    "completion": "done",
    "done": "done",
    "priority": "priority",
    "repeat": "recurrence",
}
_RECURRENCE = re.compile(r"🔁\uFE0F?\s*([^📅⏳🛫✅➕❌🔺⏫🔼🔽⏬🆔⛔^]*)")
DONE = frozenset("xX")  # Obsidian's done characters; any other is not done
VERSION = "2"  # bump when tasks read differently: the next pass re-reads every note


def find_tasks(
    tokens: list[Token],
    lines: list[str],
    first_line: int,
    hidden: frozenset[int] = frozenset(),
) -> tuple[Task, ...]:
    """Tasks among `tokens` (a markdown-it parse of the body); `lines` are the file's lines,
    `first_line` the 0-based file line where the parsed body starts and `hidden` the 0-based
    lines inside `%%` and HTML comments (Obsidian lists no task there). Each task carries the
    nearest heading above it."""
    found: list[Task] = []
    heading = ""
    for i in range(len(tokens) - 2):
        if tokens[i].type == "heading_open":
            heading = tokens[i + 1].content.strip()
            continue
        if tokens[i].type != "list_item_open" or tokens[i + 1].type != "paragraph_open":
            continue
        inline = tokens[i + 2]
        box = _BOX.match(inline.content)
        if box is None or inline.map is None:
            continue
        n = first_line + inline.map[0]
        if n >= len(lines) or n in hidden:
            continue
        found.append(task_of(n + 1, box.group(1), lines[n].rstrip("\r\n"), heading))
    return tuple(found)


def task_of(line: int, status: str, text: str, heading: str = "") -> Task:
    """A task's fields from its line."""
    fields = {k: "" for k in ("due", "scheduled", "start", "done", "priority", "recurrence")}
    for key, value in _DATAVIEW.findall(text):
        name = _DATAVIEW_KEYS.get(key.strip().lower())
        if name:
            fields[name] = value.strip()
    for name, emoji in _EMOJI_DATES.items():
        m = re.search(emoji + "\ufe0f?\\s*" + _DATE, text)
        if m:
            fields[name] = m.group(1)
    for emoji, name in _PRIORITY.items():
        if emoji in text:
            fields["priority"] = name
            break
    m = _RECURRENCE.search(text)
    if m and m.group(1).strip():
        fields["recurrence"] = m.group(1).strip()
    plugin = parse_line(text)
    packed = pack(plugin) if plugin is not None else ""
    return Task(line=line, status=status, text=text, heading=heading, plugin=packed, **fields)


def task_line(line: str) -> tuple[str, str, str] | None:
    """(prefix up to '[', status, rest after ']') when `line` is written as a task."""
    m = re.match(r"^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[)(.)(\].*)$", line, re.S)
    return (m.group(1), m.group(2), m.group(3)) if m else None
