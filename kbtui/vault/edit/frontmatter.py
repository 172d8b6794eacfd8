"""Edit one frontmatter field of a note as text, so every other byte of the file stays put.

Re-dumping the YAML would reorder keys, drop comments and change quoting all over a note the
user wrote; instead the few lines of one field are edited and the result is checked by parsing
it again: the new frontmatter must equal the old one plus the change, or nothing is written.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from kbtui.vault.yaml_text import load_yaml


class FrontmatterEditError(ValueError):
    """The field has a shape this editor will not touch; the note is left as it was."""


def add_to_list(text: str, key: str, value: str) -> str:
    """`text` with `value` appended to the frontmatter list `key` (created if missing)."""
    if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
        raise FrontmatterEditError(f"not a plain frontmatter key: {key!r}")
    nl = "\r\n" if "\r\n" in text else "\n"
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    item = json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar
    lines = body.split(nl)
    if not lines or lines[0].rstrip() != "---":
        new = f"---{nl}{key}:{nl}  - {item}{nl}---{nl}{body}"
        return bom + _checked(body, new, key, value, had_frontmatter=False)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontmatterEditError("the frontmatter has no closing '---'")
    start = next(
        (i for i in range(1, end) if re.match(rf"{re.escape(key)}\s*:(\s|$)", lines[i])), None
    )
    if start is None:
        lines[end:end] = [f"{key}:", f"  - {item}"]
    else:
        _edit_field(lines, start, end, key, item)
    return bom + _checked(body, nl.join(lines), key, value, had_frontmatter=True)


def _edit_field(lines: list[str], start: int, end: int, key: str, item: str) -> None:
    head, _, rest = lines[start].partition(":")
    value = rest.split(" #", 1)[0].strip()
    if not value:  # a block sequence follows (or nothing: an empty value)
        last, prefix = start, None
        for i in range(start + 1, end):
            line = lines[i]
            if line.startswith((" ", "\t", "-")):
                last = i
                match = re.match(r"^(\s*-\s+)", line)
                if prefix is None and match:
                    prefix = match.group(1)
            elif line.strip():
                break
        lines.insert(last + 1, f"{prefix or '  - '}{item}")
    elif value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        lines[start] = f"{head}: [{inner + ', ' if inner else ''}{item}]"
    elif value.startswith(("[", "{", "|", ">", "&", "*", "!")):
        raise FrontmatterEditError(f"{key} has a form that cannot be edited safely")
    else:  # a single scalar becomes a two-item flow list
        lines[start] = f"{head}: [{value}, {item}]"


def _checked(old: str, new: str, key: str, value: str, had_frontmatter: bool) -> str:
    before = _frontmatter(old) if had_frontmatter else {}
    after = _frontmatter(new)
    expected = dict(before)
    current = before.get(key)
    items = current if isinstance(current, list) else [] if current is None else [current]
    expected[key] = [*items, value]
    if after != expected:
        raise FrontmatterEditError(f"editing {key} would change other fields; note left as is")
    return new


def _frontmatter(text: str) -> dict[str, Any]:
    match = re.match(r"---\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(\r?\n|$)", text, re.DOTALL)
    if not match:
        return {}
    try:
        data = load_yaml(match.group(1))
    except yaml.YAMLError as exc:
        raise FrontmatterEditError(f"the frontmatter is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterEditError("the frontmatter is not a mapping")
    return data
