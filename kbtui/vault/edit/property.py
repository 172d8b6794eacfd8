"""Set or remove one property of a note as text: only that property's lines change, every
other byte of the file stays as it was (comments, quoting, order, line endings). The result
is parsed again and must equal the old properties plus the change, or nothing is written.
Values are typed by `.obsidian/types.json` as Obsidian types them (text, multitext/list,
number, checkbox, date, datetime, aliases, tags)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kbtui.vault.edit.frontmatter import FrontmatterEditError
from kbtui.vault.yaml_text import load_yaml

LIST_TYPES = frozenset({"multitext", "list", "aliases", "tags"})


def property_types(vault: Path) -> dict[str, str]:
    """Property name -> type from `.obsidian/types.json` ({} when absent or unreadable)."""
    try:
        raw = json.loads((vault / ".obsidian" / "types.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    types = raw.get("types") if isinstance(raw, dict) else None
    return {str(k): str(v) for k, v in types.items()} if isinstance(types, dict) else {}


def typed_value(raw: str, kind: str) -> Any:
    """A command-line value as the property's type holds it."""
    if kind in LIST_TYPES:
        return [v.strip() for v in raw.split(",") if v.strip()]
    if kind == "number":
        try:
            number = float(raw)
        except ValueError as exc:
            raise FrontmatterEditError(f"{raw!r} is not a number") from exc
        return int(number) if number.is_integer() and "." not in raw else number
    if kind == "checkbox":
        if raw.strip().lower() not in ("true", "false"):
            raise FrontmatterEditError(f"{raw!r} is not true or false")
        return raw.strip().lower() == "true"
    return raw


def set_property(text: str, key: str, value: Any) -> str:
    """`text` with property `key` set to `value` (added at the end when missing)."""
    return _edit(text, key, _render(key, value), value)


def remove_property(text: str, key: str) -> str:
    """`text` without property `key` (unchanged when it has none)."""
    return _edit(text, key, [], _REMOVED)


_REMOVED = object()


def _render(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        return [f"{key}:", *(f"  - {json.dumps(v, ensure_ascii=False)}" for v in value)]
    if isinstance(value, bool):
        return [f"{key}: {'true' if value else 'false'}"]
    if isinstance(value, int | float):
        return [f"{key}: {value}"]
    plain = str(value)
    safe = re.fullmatch(r"[\w][\w .,/:-]*", plain) and ": " not in plain
    safe = safe and not re.fullmatch(r"(?i)true|false|null|yes|no|~|[\d.eE+-]+", plain)
    return [f"{key}: {plain if safe else json.dumps(plain, ensure_ascii=False)}"]


def _edit(text: str, key: str, new_lines: list[str], value: Any) -> str:
    if not re.fullmatch(r"[^\s:#][^:#]*", key) or key != key.strip():
        raise FrontmatterEditError(f"not a plain property name: {key!r}")
    nl = "\r\n" if "\r\n" in text else "\n"
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    lines = body.split(nl)
    old = _properties(body)
    if not lines or lines[0].rstrip() != "---":
        if value is _REMOVED:
            return text
        new = nl.join(["---", *new_lines, "---", ""]) + body
        return bom + _checked(old, new, key, value)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontmatterEditError("the properties have no closing '---'")
    start = next(
        (i for i in range(1, end) if re.match(rf"{re.escape(key)}\s*:(\s|$)", lines[i])), None
    )
    if start is None:
        if value is _REMOVED:
            return text
        lines[end:end] = new_lines
    else:
        stop = start + 1
        while stop < end and (lines[stop][:1] in (" ", "\t", "-") or not lines[stop].strip()):
            stop += 1
        lines[start:stop] = new_lines
    return bom + _checked(old, nl.join(lines), key, value)


def _properties(text: str) -> dict[str, Any]:
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return {}
    try:
        loaded = load_yaml("\n".join(lines[1:end]))
    except Exception as exc:  # any YAML failure means: do not touch it
        raise FrontmatterEditError(f"the properties cannot be read: {exc}") from exc
    return loaded if isinstance(loaded, dict) else {}


def _checked(old: dict[str, Any], new_text: str, key: str, value: Any) -> str:
    expected = {k: v for k, v in old.items() if k != key}
    if value is not _REMOVED:
        expected[key] = value
    got = _properties(new_text)
    if json.dumps(got, default=str, sort_keys=True) != json.dumps(
        expected, default=str, sort_keys=True
    ):
        raise FrontmatterEditError(f"setting {key!r} would change other properties; not written")
    return new_text
