"""Load a note's frontmatter YAML, reading template placeholders as the text they are.

Obsidian templates put `created: {{date}}` in their frontmatter. To YAML, `{{date}}` is a
mapping used as a key, so the whole block fails (kepano's vault has 28 such templates). When a
block fails, a value that starts with `{{` is quoted and the block read again; a block that
fails even so raises the original error. Valid YAML is never touched.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml is ~10x faster

# `key: {{...}}`, `- {{...}}` and `- key: {{...}}`: block values only, never flow ones.
_PLACEHOLDER = re.compile(
    r"^(?P<lead>[ \t]*(?:-[ \t]+)?(?:[\w\"'][^:\n]*:[ \t]+)?)(?P<value>\{\{.*?)[ \t]*$",
    re.MULTILINE,
)


def _quoted(match: re.Match[str]) -> str:
    if not match.group("lead").strip():  # a bare `{{...}}` line is no value of anything
        return match.group(0)
    return match.group("lead") + "'" + match.group("value").replace("'", "''") + "'"


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, with `{{...}}` template values read as strings if need be."""
    try:
        return yaml.load(text, Loader=LOADER)
    except yaml.YAMLError as first:
        quoted = _PLACEHOLDER.sub(_quoted, text)
        if quoted == text:
            raise
        try:
            return yaml.load(quoted, Loader=LOADER)
        except yaml.YAMLError:
            raise first from None
