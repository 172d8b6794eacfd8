"""Set or remove one property of a note as text: only that property's lines change, every
other byte of the file stays as it was (comments, quoting, order, line endings). The result
is parsed again and must equal the old properties plus the change, or nothing is written.
Values are typed as Obsidian types them (text, multitext/list, number, checkbox, date,
datetime, aliases, tags): by `.obsidian/types.json`, else by the caller (`value_type` of a value
the property already holds, `text_type` of the text given). A value its type cannot hold is a
`PropertyValueError`; dates and datetimes are written unquoted as ISO text, as Obsidian does."""

from __future__ import annotations

import datetime as dt
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


FORMS = {"date": "YYYY-MM-DD", "datetime": "YYYY-MM-DDTHH:MM[:SS]"}
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DECIMAL = re.compile(r"[+-]?\d+(\.\d+)?")  # what Obsidian shows as a number when untyped
_MOMENT = {
    "date": re.compile(r"(\d{4}-\d{2}-\d{2})"),
    "datetime": re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)"),
}
_ISO_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"
)  # a value the index holds: YAML's datetime as ISO text, with seconds and zone if any


class PropertyValueError(FrontmatterEditError):
    """The value given is not one the property's type holds (the caller's to fix; the note
    is fine)."""


class Moment(str):
    """A date or datetime as the ISO text Obsidian writes unquoted: `2026-12-07`,
    `2026-12-07T10:00:00`. YAML reads it back as a date object (or, without seconds, as this
    text); the check compares it as ISO text."""


def typed_value(raw: str, kind: str) -> Any:
    """A command-line value as the property's type holds it (PropertyValueError if it
    cannot: the message names the type and the form expected)."""
    if kind in LIST_TYPES:
        return [v.strip() for v in raw.split(",") if v.strip()]
    text = raw.strip()
    if kind == "number":
        if not _NUMBER.fullmatch(text):
            raise PropertyValueError(f"{raw!r} is not a number: expected digits, e.g. 4 or 2.5")
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    if kind == "checkbox":
        if text.lower() not in ("true", "false"):
            raise PropertyValueError(f"{raw!r} is not a checkbox value: expected true or false")
        return text.lower() == "true"
    if kind in _MOMENT:
        match = _MOMENT[kind].fullmatch(text)
        try:
            iso = "T".join(match.groups()) if match else ""
            dt.datetime.fromisoformat(iso)  # a real day and time, not 2026-13-40
        except ValueError:
            iso = ""
        if not iso:
            raise PropertyValueError(f"{raw!r} is not a {kind}: expected {FORMS[kind]}")
        return Moment(iso)
    return raw


def value_type(value: Any) -> str | None:
    """The type Obsidian gives a property holding `value` (None when it tells nothing)."""
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "multitext"
    if isinstance(value, dt.datetime):
        return "datetime"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, str) and value:  # the index holds dates as ISO text
        if _ISO_DATETIME.fullmatch(value):
            return "datetime"
        return "date" if _MOMENT["date"].fullmatch(value) else "text"
    return None


def text_type(raw: str) -> str:
    """The type of a new property as Obsidian shows the text: a number, a checkbox or text."""
    text = raw.strip()
    if _DECIMAL.fullmatch(text):
        return "number"
    return "checkbox" if text.lower() in ("true", "false") else "text"


def current_value(text: str, key: str) -> Any:
    """The value the note's properties hold for `key` (None when none)."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return _properties(text[len(bom) :]).get(key)


def set_property(text: str, key: str, value: Any) -> str:
    """`text` with property `key` set to `value` (added at the end when missing)."""
    return _edit(text, key, _render(key, value), value)


def remove_property(text: str, key: str) -> str:
    """`text` without property `key` (unchanged when it has none).

    Removing the last property removes the whole `---` block, as Obsidian does, together with
    one empty line right after it (the line that only set the block apart from the body), so
    `---/a: 1/---//# Title` becomes `# Title`; every other byte of the body stays, line
    endings included. The block stays (empty) when it still holds a comment, or when the body
    itself starts with `---`, which would otherwise be read as a new properties block."""
    return _edit(text, key, [], _REMOVED)


_REMOVED = object()


def _render(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        return [f"{key}:", *(f"  - {json.dumps(v, ensure_ascii=False)}" for v in value)]
    if isinstance(value, bool):
        return [f"{key}: {'true' if value else 'false'}"]
    if isinstance(value, float) and "e" in repr(value) and "." not in repr(value):
        return [f"{key}: {repr(value).replace('e', '.0e')}"]  # YAML 1.1 floats need a dot
    if isinstance(value, int | float):
        return [f"{key}: {value!r}"]
    if isinstance(value, Moment):
        return [f"{key}: {value}"]
    plain = str(value)
    safe = re.fullmatch(r"[\w][\w .,/:-]*", plain) and ": " not in plain
    safe = safe and not re.fullmatch(r"(?i)true|false|null|yes|no|~|[\d.eE+-]+", plain)
    if safe:  # text stays text: what YAML would read as a date, say, is quoted
        try:
            safe = load_yaml(f"v: {plain}") == {"v": plain}
        except Exception:  # anything YAML will not read as this text: quoted
            safe = False
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
        if value is _REMOVED:
            _drop_empty_block(lines, end - (stop - start))
    return bom + _checked(old, nl.join(lines), key, value)


def _drop_empty_block(lines: list[str], end: int) -> None:
    """Remove the properties block `lines[0..end]` when nothing is left in it (see
    remove_property)."""
    if any(line.strip() for line in lines[1:end]):
        return
    rest = lines[end + 1 :]
    if rest and rest[0] == "" and len(rest) > 1:
        rest = rest[1:]
    if rest and rest[0].rstrip() == "---":
        return
    lines[:] = rest or [""]


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
    if _comparable(got) != _comparable(expected):
        raise FrontmatterEditError(f"setting {key!r} would change other properties; not written")
    return new_text


def _comparable(properties: dict[str, Any]) -> str:
    """Properties as text to compare: a date or datetime YAML read (an object) as the ISO
    text a Moment holds, so the value written and the value read back compare alike."""

    def iso(value: Any) -> Any:
        if isinstance(value, dt.date):  # a datetime too
            return value.isoformat()
        if isinstance(value, list):
            return [iso(v) for v in value]
        if isinstance(value, dict):
            return {str(k): iso(v) for k, v in value.items()}
        return value

    return json.dumps(iso(properties), default=str, sort_keys=True)
