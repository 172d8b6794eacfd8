"""tasks_list and task_update: the vault's tasks from the index, and one task's status
written back into its line through the write path (kbtui.tools.write: the note's own encoding
and line endings, only that line changed, the history), refused when the line no longer holds
the task it was listed as."""

from __future__ import annotations

from typing import Any

from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.obsidian.tasks import task_line

_NAMED = {"todo": False, "done": True, "all": None}


def tasks_list(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    status: str = args["status"]
    if status not in _NAMED and len(status) != 1:
        raise ValidationError("status must be todo, done, all or one character", field="status")
    path = resolve_note(parts, args["note"]) if args.get("note") else None
    found, total = parts.store.tasks(
        status=None if status in _NAMED else status,
        done=_NAMED.get(status),
        path=path,
        due_before=args.get("dueBefore"),
        limit=args["limit"],
    )
    results = [{k: v for k, v in t.items() if v != ""} for t in found]
    return ok(
        results=results,
        count=len(results),
        total=total,
        message=f"{total} task(s)" + (f", {len(results)} shown" if total > len(results) else ""),
    )


def set_task(
    parts: VaultParts, path: str, line: int, status: str, expect: str | None = None
) -> dict[str, Any]:
    """Write `status` (done, todo, toggle or a character) into the task at `path`:`line`."""
    writer = NoteWriter(parts)
    note = writer.read(path)  # any encoding the codec reads; CRLF lines keep their "\r"
    lines = note.text.split("\n")
    if line > len(lines):
        raise ConflictError(f"{path} has {len(lines)} lines, not {line}: it changed; list again")
    current = lines[line - 1]
    found = task_line(current)
    shown = current.rstrip("\r")
    if found is None and expect is None:  # nothing says it ever held one: the line is wrong
        raise ValidationError(
            f"line {line} of {path} holds no task (it reads {shown[:120]!r}); "
            "tasks_list gives each task's line",
            "line",
        )
    if found is None or (expect is not None and expect.rstrip("\r") != shown):
        raise ConflictError(
            f"line {line} of {path} no longer holds that task (it reads {shown[:120]!r}); "
            "the file changed: list the tasks again"
        )
    prefix, old, rest = found
    new = {"done": "x", "todo": " "}.get(status)
    if status == "toggle":
        new = "x" if old == " " else " "
    if new is None:
        if len(status) != 1 or status in "\r\n]":
            raise ValidationError("status must be done, todo, toggle or one character", "status")
        new = status
    lines[line - 1] = prefix + new + rest
    if new != old:
        text = "\n".join(lines)
        operation = f"task line {line}: [{old}] -> [{new}]"
        writer.edit(path, lambda _: text, operation, expected_hash=note.hash)
    task = {"status": new, "text": lines[line - 1].rstrip("\r"), "file": path, "line": line}
    return ok(task=task, message=f"{path}:{line} [{old}] -> [{new}]")


def task_update(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    path = resolve_note(parts, args["file"], "file")
    return set_task(parts, path, args["line"], args["status"], args.get("text"))
