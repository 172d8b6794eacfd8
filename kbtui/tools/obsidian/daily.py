"""The daily note (Obsidian's Daily notes plugin, kbtui.vault.obsidian.daily): its path, its
text, and text appended or prepended (after the properties), the note created from the
template first when missing. Writes are atomic and indexed at once."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.parts import VaultParts
from kbtui.vault.edit.write import WriteError, inside, replace_note, write_new_note
from kbtui.vault.obsidian.daily import daily_path, new_daily_text, template_warnings
from kbtui.vault.spans import body_start


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
    if action == "read":
        text = file.read_text("utf-8") if exists else ""
        return ok(path=path, exists=exists, content=text, message=path)
    content: str = args["content"]
    inline = bool(args.get("inline"))
    warnings: list[str] = []  # what a new note's template holds that kbtui does not fill in
    try:
        if exists:
            data = file.read_bytes()
            old = data.decode("utf-8")
            new = (
                _append(old, content, inline)
                if action == "append"
                else _prepend(old, content, inline)
            )
            replace_note(file, data, new)
        else:
            start = new_daily_text(vault, day, dt.datetime.now())
            warnings = template_warnings(vault)
            new = (
                _append(start, content, inline)
                if action == "append"
                else _prepend(start, content, inline)
            )
            folder, _, name = path.rpartition("/")
            written = write_new_note(vault, folder, name[:-3], new)
            path = written.relative_to(vault).as_posix()
    except (WriteError, UnicodeDecodeError) as exc:
        raise ConflictError(f"{path} could not be written: {exc}") from exc
    parts.indexer.run(paths=[path])
    verb = "Appended to" if action == "append" else "Prepended to"
    said = {"warnings": warnings} if warnings else {}
    return ok(path=path, created=not exists, message=f"{verb} {path}", **said)


def daily_append(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    return daily(parts, {**args, "action": "append"})


def _append(text: str, content: str, inline: bool) -> str:
    sep = "" if inline or not text or text.endswith("\n") else "\n"
    return text + sep + content + ("" if inline or content.endswith("\n") else "\n")


def _prepend(text: str, content: str, inline: bool) -> str:
    at = body_start(text)
    add = content if inline or content.endswith("\n") else content + "\n"
    return text[:at] + add + text[at:]
