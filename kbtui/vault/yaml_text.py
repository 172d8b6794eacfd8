"""Load a note's frontmatter YAML the way Obsidian shows it: leniently, never rewriting it.

Two things Obsidian users write that YAML refuses, read again as the text they are (no
maintained library repairs YAML: yamlfix and yamllint need it valid to begin with):

- template placeholders, `created: {{date}}` (to YAML a mapping used as a key; kepano's vault
  has 28 such templates): quoted silently, they are what a template holds;
- values that start with a character YAML reserves (`@`, `` ` ``, `%`): obsidian-hub's
  `aliases: [- @kepano]`. The line YAML names is quoted and the block read again, a line at a
  time; each such line is reported, as the user should know other tools will refuse it.

A block that fails even so raises the error of the line that could not be read, so the caller
can name it and fall back to the body.
Valid YAML is never touched; the file is never changed (the quoting is on a copy in memory).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~10x faster
MAX_LENIENT_LINES = 50  # lines quoted one at a time; more than this is not a slip

# `key: {{...}}`, `- {{...}}` and `- key: {{...}}`: block values only, never flow ones.
_PLACEHOLDER = re.compile(
    r"^(?P<lead>[ \t]*(?:-[ \t]+)?(?:[\w\"'][^:\n]*:[ \t]+)?)(?P<value>\{\{.*?)[ \t]*$",
    re.MULTILINE,
)
# One line: indentation, list markers, a key, then its value.
_LINE = re.compile(
    r"^(?P<lead>[ \t]*(?:-[ \t]+)*(?:(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s#'\"\[\]{}\-][^:\n]*?):"
    r"(?:[ \t]+|$))?)(?P<value>.*?)[ \t]*$"
)
_RESERVED = ("@", "`", "%")


def _quoted_placeholder(match: re.Match[str]) -> str:
    if not match.group("lead").strip():  # a bare `{{...}}` line is no value of anything
        return match.group(0)
    return match.group("lead") + _quote(match.group("value"))


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, with `{{...}}` template values read as strings if need be."""
    try:
        return yaml.load(text, Loader=LOADER)
    except yaml.YAMLError as first:
        quoted = _PLACEHOLDER.sub(_quoted_placeholder, text)
        if quoted == text:
            raise
        try:
            return yaml.load(quoted, Loader=LOADER)
        except yaml.YAMLError:
            raise first from None


def load_yaml_lenient(text: str) -> tuple[Any, list[int]]:
    """`load_yaml`, then values YAML reserves read as text: (data, 0-based lines so read)."""
    try:
        return load_yaml(text), []
    except yaml.YAMLError as exc:
        error = exc
    lines = _PLACEHOLDER.sub(_quoted_placeholder, text).split("\n")
    fixed: list[int] = []
    for _ in range(MAX_LENIENT_LINES):
        mark = getattr(error, "problem_mark", None)
        if mark is None or not 0 <= mark.line < len(lines) or mark.line in fixed:
            break
        line = _as_text(lines[mark.line])
        if line is None:
            break
        lines[mark.line] = line
        fixed.append(mark.line)
        try:
            return yaml.load("\n".join(lines), Loader=LOADER), sorted(fixed)
        except yaml.YAMLError as exc:
            error = exc
    raise error  # the line no quoting could read: where the user's slip is


def _as_text(line: str) -> str | None:
    """The line with a reserved-character value quoted; None when it has none."""
    match = _LINE.match(line)
    if match is None:
        return None
    lead, value = match.group("lead"), match.group("value")
    if value.startswith(_RESERVED):
        value = re.split(r"[ \t]#", value, maxsplit=1)[0].rstrip()  # YAML's comment rule
        return lead + _quote(value)
    inner = value[1:-1]
    if value.startswith("[") and value.endswith("]") and not re.search(r"[\[\]{}\"']", inner):
        raw = inner.split(",")
        items = [_flow_item(item) for item in raw]
        if items != [item.strip() for item in raw]:
            return f"{lead}[{', '.join(items)}]"
    return None


def _flow_item(raw: str) -> str:
    """A flow-list item; `- @x` (a block-list marker typed inside brackets) is the item `@x`."""
    item = raw.strip()
    bare = re.sub(r"^(?:-[ \t]+)+", "", item)
    return _quote(bare) if bare.startswith(_RESERVED) or bare != item else item
