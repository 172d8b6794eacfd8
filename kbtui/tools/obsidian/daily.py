"""The daily note (Obsidian's Daily notes plugin, kbtui.vault.obsidian.daily): its path, its
text, and text appended or prepended (after the properties), the note created from the
template first when missing. Writes go through the write path (kbtui.tools.write): an existing
note keeps its encoding and line endings, the history keeps each version, the index is updated
before the answer."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kbtui.tools.envelope import ValidationError, ok
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.sections import append_text, prepend_text
from kbtui.vault.edit.write import inside
from kbtui.vault.obsidian.daily import daily_path, new_daily_text, template_warnings


def _day(raw: str | None) -> dt.date:
    if not raw:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(raw)
    except ValueError as exc:
        raise ValidationError(f"date {raw!r} is not YYYY-MM-DD", field="date") from exc


def daily(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """action: path, read, append or prepend (`content`; `inline`: no newline added)."""
    vault = parts.settings.vault
    day = _day(args.get("date"))
    path = daily_path(vault, day)
    file = vault / path
    if not inside(vault, file.parent if file.parent.exists() else vault):
        raise ValidationError(f"the daily note path {path!r} leaves the vault", field="date")
    action = args.get("action", "append")
    exists = file.is_file()
    if action == "path":
        return ok(path=path, exists=exists, message=path)
    writer = NoteWriter(parts)
    if action == "read":
        text = writer.read(path).text if exists else ""
        return ok(path=path, exists=exists, content=text, message=path)
    content: str = args["content"]
    inline = bool(args.get("inline"))
    add = append_text if action == "append" else prepend_text
    operation = f"daily:{action}"
    warnings: list[str] = []  # what a new note's template holds that kbtui does not fill in
    if exists:  # in the note's own encoding and line endings
        writer.edit(path, lambda note: add(note.text, note.newline, content, inline), operation)
    else:
        start = new_daily_text(vault, day, dt.datetime.now())
        warnings = template_warnings(vault)
        writer.create(path, add(start, "\n", content, inline), f"{operation} (new daily note)")
    verb = "Appended to" if action == "append" else "Prepended to"
    said = {"warnings": warnings} if warnings else {}
    return ok(path=path, created=not exists, message=f"{verb} {path}", **said)


def daily_append(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    return daily(parts, {**args, "action": "append"})
