"""Dataview's inline fields, read from a line as the Dataview plugin reads them: `[key:: value]`
and `(key:: value)` anywhere in a line, `Key:: value` filling a line, the Tasks plugin's date
emoji on list items, and the lower-case name Dataview also files a key under.

Follows blacksmithgu/obsidian-dataview (MIT), src/data-import/inline-field.ts and
src/util/normalize.ts (`canonicalizeVarName`), and its tests (src/test/parse/parse.inline.test.ts,
src/test/util/normalize.test.ts).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

WRAPPERS = {"[": "]", "(": ")"}
_DATE = r"\s*(\d{4}-\d{2}-\d{2})"
# The Tasks plugin's emoji, read as Dataview's fields of these names (metadata-tasks.md).
EMOJI_FIELDS = (
    ("created", re.compile("\u2795" + _DATE)),
    ("start", re.compile("\U0001f6eb" + _DATE)),
    ("scheduled", re.compile("[\u23f3\u231b]" + _DATE)),
    ("due", re.compile("(?:\U0001f4c5|\U0001f4c6|\U0001f5d3\ufe0f?)" + _DATE)),
    ("completion", re.compile("\u2705" + _DATE)),
)


@dataclass(frozen=True)
class Field:
    key: str  # as written (a full-line key without its markdown decoration)
    value: str  # the raw value, trimmed
    start: int  # column of the field in the line
    end: int  # column after it
    wrapping: str = ""  # "[", "(", "emoji" or "" (a full line)


def is_emoji(ch: str) -> bool:
    """A character of an emoji (pictographs, symbols, the variation selector, the joiner)."""
    code = ord(ch)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0xFE0F, 0x200D, 0x20E3, 0x2300, 0x231A, 0x231B, 0x23F0, 0x23F3)
        or 0x1F1E6 <= code <= 0x1F1FF
        or unicodedata.category(ch) == "So"
    )


def is_letter(ch: str) -> bool:
    return unicodedata.category(ch).startswith("L")


def _closing(line: str, start: int, open_: str, close: str) -> tuple[str, int] | None:
    """The text up to the bracket closing at or after `start` (nesting and `\\` escapes kept)
    and the column after that bracket."""
    nesting, escaped = 0, False
    for index in range(start, len(line)):
        ch = line[index]
        if ch == "\\":
            escaped = not escaped
            continue
        if escaped:
            escaped = False
            continue
        if ch == open_:
            nesting += 1
        elif ch == close:
            nesting -= 1
        if nesting < 0:
            return line[start:index].strip(), index + 1
    return None


def _bracketed(line: str, start: int) -> Field | None:
    """The field whose bracket opens at `start`, if that is one."""
    open_ = line[start]
    sep = line.find("::", start + 1)
    if sep < 0:
        return None
    key = line[start + 1 : sep].strip()
    if any(ch in key for ch in "[]()"):
        return None
    found = _closing(line, sep + 2, open_, WRAPPERS[open_])
    if found is None:
        return None
    value, end = found
    return Field(key, value, start, end, open_)


def bracket_fields(line: str, task_fields: bool = False) -> list[Field]:
    """`[key:: value]` and `(key:: value)` fields of a line, left to right, overlaps dropped;
    with `task_fields`, the date emoji too (`📅 2024-03-04` is `due`)."""
    fields: list[Field] = []
    for open_ in WRAPPERS:
        at = line.find(open_)
        while at >= 0:
            found = _bracketed(line, at)
            if found is None:
                at = line.find(open_, at + 1)
                continue
            fields.append(found)
            at = line.find(open_, found.end)
    if task_fields:
        for key, pattern in EMOJI_FIELDS:
            m = pattern.search(line)
            if m:
                fields.append(Field(key, m.group(1), m.start(), m.end(), "emoji"))
    fields.sort(key=lambda f: f.start)
    kept: list[Field] = []
    for field in fields:
        if not kept or kept[-1].end < field.start:
            kept.append(field)
    return kept


def _word(ch: str) -> bool:
    return (ch.isascii() and (ch.isalnum() or ch == "_")) or is_letter(ch)


def _key_char(ch: str) -> bool:
    return _word(ch) or ch.isspace() or ch in "/-" or is_emoji(ch)


def full_line_field(text: str) -> Field | None:
    """`Key:: value` filling the line: the key without leading marks (`# `, `**`, `> `) and
    trailing emphasis; no field when the key holds other punctuation."""
    sep = text.find("::")
    if sep < 0:
        return None
    raw = text[:sep].strip()
    i = 0
    while i < len(raw) and not _word(raw[i]):
        i += 1
    j = i
    while j < len(raw) and _key_char(raw[j]):
        j += 1
    k = j
    while k < len(raw) and raw[k] in "_*~`":
        k += 1
    if k != len(raw) or i == j:
        return None
    return Field(raw[i:j], text[sep + 2 :].strip(), 0, len(text))


def canonical(name: str) -> str:
    """Dataview's simplified name of a key: letters, digits, `_` and `-` lower-cased, each run
    of spaces one `-`, emoji kept, anything else dropped (`Bold Field` -> `bold-field`)."""
    out: list[str] = []
    space = False
    for ch in name:
        if ch.isspace():
            if not space:
                out.append("-")
            space = True
            continue
        space = False
        if is_emoji(ch):
            out.append(ch)
        elif (ch.isdigit() and ch.isascii()) or is_letter(ch) or ch in "_-":
            out.append(ch.lower())
    return "".join(out)
