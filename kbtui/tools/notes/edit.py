"""note_edit: a list of edits applied in order to the note's text in memory, then written
once through NoteWriter, or none of them: text at a section (`A > B`) or a block (`^id`) or
the note's start or end, exact text replaced (the count of occurrences expected), properties
set or removed (kbtui.vault.edit.property). A target missing or found more than once refuses
the whole call with the candidates and their lines; nothing is created unless asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.notes.files import summary
from kbtui.tools.notes.where import note_path
from kbtui.tools.obsidian.notes import property_type
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.frontmatter import FrontmatterEditError
from kbtui.vault.edit.property import (
    LIST_TYPES,
    property_types,
    remove_property,
    set_property,
    typed_value,
)
from kbtui.vault.edit.sections import TargetError, append_text, edit_section, prepend_text
from kbtui.vault.edit.sections import replace_text as replace_in

Step = Callable[[str, str], str]  # (text, newline) -> text
_PLACE = ("section", "block", "text")
_REPLACE = ("old", "new", "count", "all")
_PROPERTY = ("property", "value", "type", "remove")


class TargetMissError(ConflictError):
    """An edit's target is not in the note, or is there more than once (the message lists
    the candidates with their line numbers)."""

    error_type = "TargetError"


def note_edit(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    path = note_path(parts, args["note"])
    edits: list[dict[str, Any]] = args["edits"]
    if not edits:
        raise ValidationError("edits is empty: give at least one edit", field="edits")
    steps = [
        _step(f"edits[{i}]", edit, bool(args["create_section"]), (parts, path))
        for i, edit in enumerate(edits)
    ]

    def change(note: Any) -> str:
        text: str = note.text
        for field, what, step in steps:
            try:
                text = step(text, note.newline)
            except TargetError as exc:
                raise TargetMissError(f"{path}: {field} ({what}): {exc}", field) from None
            except FrontmatterEditError as exc:
                raise ConflictError(f"{path}: {field} ({what}): {exc}", field) from None
        return text

    operation = "edit: " + "; ".join(what for _, what, _ in steps)
    result = NoteWriter(parts).edit(
        path, change, operation[:200], args.get("expected_hash"), bool(args["dry_run"])
    )
    return ok(**result.answer(), message=summary("edit", result))


def _given(edit: dict[str, Any], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if edit.get(n) not in (None, False)]


def _step(
    field: str, edit: dict[str, Any], create: bool, note: tuple[VaultParts, str]
) -> tuple[str, str, Step]:
    """(field, what it does, the step) for one edit, its fields checked first."""
    kinds = [
        kind
        for kind, names in (("place", _PLACE), ("replace", _REPLACE), ("property", _PROPERTY))
        if _given(edit, names)
    ]
    if len(kinds) != 1:
        raise ValidationError(
            f"{field} must be one of {{section|block, position, text}}, {{old, new, count|all}}, "
            f"{{property, value, type}} or {{property, remove}}"
            + (f"; it mixes {' and '.join(kinds)} fields" if kinds else ""),
            field=field,
        )
    if kinds[0] == "replace":
        return _replace(field, edit)
    if kinds[0] == "property":
        return _property(field, edit, note)
    return _place(field, edit, create)


def _place(field: str, edit: dict[str, Any], create: bool) -> tuple[str, str, Step]:
    position: str = edit["position"]
    text = edit.get("text")
    if text is None or (not text and position != "replace"):
        raise ValidationError(f"{field}.text is required", field=f"{field}.text")
    section, block = edit.get("section"), edit.get("block")
    if section is not None and block is not None:
        raise ValidationError(f"{field}: give section or block, not both", field=field)
    if section is None and block is None:
        if position not in ("append", "prepend"):
            raise ValidationError(
                f"{field}: position {position} needs a section or a block",
                field=f"{field}.position",
            )
        add = append_text if position == "append" else prepend_text
        return field, f"{position} to the note", lambda t, nl: add(t, nl, text)
    target = section if section is not None else "^" + str(block).strip().lstrip("^")
    if not target.strip() or target == "^":
        raise ValidationError(f"{field}: the section or block is empty", field=field)
    what = f"{position} {'at' if block is not None else 'in'} {target!r}"

    def place(t: str, nl: str) -> str:
        return edit_section(t, nl, target, position, text, create=create and section is not None)

    return field, what, place


def _replace(field: str, edit: dict[str, Any]) -> tuple[str, str, Step]:
    old, new = edit.get("old"), edit.get("new")
    if not old:
        raise ValidationError(f"{field}.old is required", field=f"{field}.old")
    if new is None:
        raise ValidationError(f'{field}.new is required ("" removes)', field=f"{field}.new")
    if edit.get("all") and edit.get("count") is not None:
        raise ValidationError(f"{field}: give count or all, not both", field=f"{field}.count")
    count = None if edit.get("all") else (edit.get("count") or 1)
    what = f"replace text ({'all' if count is None else count})"
    return field, what, lambda t, nl: replace_in(t, nl, old, new, count)


def _property(
    field: str, edit: dict[str, Any], note: tuple[VaultParts, str]
) -> tuple[str, str, Step]:
    name = edit.get("property")
    if not name or not str(name).strip():
        raise ValidationError(f"{field}.property is required", field=f"{field}.property")
    if edit.get("remove"):
        if edit.get("value") is not None or edit.get("type") is not None:
            raise ValidationError(f"{field}: remove takes no value", field=f"{field}.value")
        return field, f"remove property {name}", lambda t, nl: remove_property(t, name)
    raw = edit.get("value")
    if raw is None:
        raise ValidationError(f"{field}.value is required (or remove)", field=f"{field}.value")
    parts, path = note

    def put(text: str, newline: str) -> str:
        kind = edit.get("type") or property_types(parts.settings.vault).get(name)
        if kind is None and isinstance(raw, str):  # as property:set types it
            kind = property_type(parts, path, text, name, raw)
        value = property_value(f"{field}.value", name, raw, kind)
        return set_property(text, name, value)

    return field, f"set property {name}", put


def property_value(field: str, name: str, raw: Any, kind: str | None) -> Any:
    """A JSON value as the property's type holds it: the type given, else the vault's
    (`.obsidian/types.json`), else, for text, the value the property holds here or in
    another note (kbtui.tools.obsidian.notes.property_type), else the value's own JSON type
    (a number, true/false, a list)."""
    if kind is None:
        kind = {bool: "checkbox", int: "number", float: "number", list: "list"}.get(
            type(raw), "text"
        )
    if isinstance(raw, list):
        if kind not in LIST_TYPES:
            raise ValidationError(f"{name} is a {kind} property: give one value", field=field)
        if not all(isinstance(v, str | int | float) for v in raw):
            raise ValidationError(f"{field}: list items are text or numbers", field=field)
        return [v if isinstance(v, str) else str(v) for v in raw]
    text = ("true" if raw else "false") if isinstance(raw, bool) else str(raw)
    try:
        return typed_value(text, kind)
    except FrontmatterEditError as exc:
        raise ValidationError(f"{name} ({kind}): {exc}", field=field) from None
