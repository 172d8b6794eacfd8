"""tasks_list and task_update: the vault's tasks from the index, and one task's status
written back through the write path (kbtui.tools.write: the note's own encoding and line
endings, only the task's lines changed, the history), refused when the line no longer holds the
task it was listed as. Statuses are the Tasks plugin's (its settings, else
its defaults): `todo` is not done (TODO, IN_PROGRESS, ON_HOLD and unknown characters), `done`
is DONE, CANCELLED or NON_TASK; a status change writes what the plugin writes
(kbtui.vault.obsidian.toggle: done dates, the next occurrence of a recurring task)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.obsidian.task_line import valid_date
from kbtui.vault.obsidian.task_settings import DONE_TYPES, TYPES, TasksSettings, load_settings
from kbtui.vault.obsidian.tasks import task_line
from kbtui.vault.obsidian.toggle import NotATaskError, status_change
from kbtui.vault.parse import NoteError, parse_note

_NAMED = {"todo": False, "done": True, "all": None}
_DATES = ("due", "scheduled", "start", "done")


def tasks_list(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    status: str = args["status"]
    if status not in _NAMED and len(status) != 1:
        raise ValidationError("status must be todo, done, all or one character", field="status")
    due_before = args.get("dueBefore")
    if due_before is not None and valid_date(due_before) is None:
        raise ValidationError(f"dueBefore {due_before!r} is not a date (YYYY-MM-DD)", "dueBefore")
    settings = load_settings(parts.settings.vault)
    types: frozenset[str] | None = None
    if args.get("statusType"):
        types = frozenset(t.strip().upper() for t in str(args["statusType"]).split(","))
        unknown = sorted(types - set(TYPES))
        if unknown:
            raise ValidationError(
                f"unknown status type {', '.join(unknown)}: one of {', '.join(TYPES)}",
                "statusType",
            )
    elif _NAMED.get(status) is not None:
        done = DONE_TYPES if _NAMED[status] else frozenset(TYPES) - DONE_TYPES
        types = frozenset(done)
    symbols, exclude = settings.symbols_of(types) if types is not None else (None, False)
    path = resolve_note(parts, args["note"]) if args.get("note") else None
    found, total = parts.store.tasks(
        status=None if status in _NAMED else status,
        symbols=symbols,
        exclude=exclude,
        path=path,
        due_before=due_before,
        limit=args["limit"],
    )
    results = [{k: v for k, v in t.items() if v != ""} for t in found]
    for task in results:
        task["statusType"] = settings.status(task["status"]).type
        bad = [k for k in _DATES if k in task and valid_date(task[k]) is None]
        if bad:
            task["invalidDates"] = bad
    extra: dict[str, Any] = {}
    if due_before is not None:  # the tasks a due date that is no day kept out: said, not hidden
        skipped, _ = parts.store.tasks(
            status=None if status in _NAMED else status,
            symbols=symbols,
            exclude=exclude,
            path=path,
            due_invalid=True,
            limit=1000,
        )
        extra["notDue"] = [{"file": t["file"], "line": t["line"], "due": t["due"]} for t in skipped]
    return ok(
        results=results,
        count=len(results),
        total=total,
        **extra,
        message=f"{total} task(s)" + (f", {len(results)} shown" if total > len(results) else ""),
    )


def set_task(
    parts: VaultParts, path: str, line: int, status: str, expect: str | None = None
) -> dict[str, Any]:
    """Write `status` (done, todo, toggle or a character) into the task at `path`:`line`."""
    writer = NoteWriter(parts)
    note = writer.read(path)  # any encoding the codec reads; CRLF lines keep their "\r"
    text = note.text
    lines = text.split("\n")
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
    old = found[1]
    try:
        listed = any(t.line == line for t in parse_note(path, text).tasks)
    except NoteError:
        listed = False
    if not listed:
        if expect is None:
            raise ValidationError(
                f"line {line} of {path} is inside code or a comment (it reads {shown[:120]!r}): "
                "Obsidian and the Tasks plugin read no task there",
                "line",
            )
        raise ConflictError(f"line {line} of {path} no longer holds that task: list again")
    settings = load_settings(parts.settings.vault)
    new = {"done": _first_of(settings, "DONE", "x"), "todo": " "}.get(status)
    if status not in ("toggle", "done", "todo") and (len(status) != 1 or status in "\r\n]"):
        raise ValidationError("status must be done, todo, toggle or one character", "status")
    if new is None and status != "toggle":
        new = status
    try:
        written, at = status_change(shown, dt.date.today(), settings, new)
    except NotATaskError as exc:  # task_line and the plugin's reading agree; kept for safety
        raise ConflictError(f"line {line} of {path} holds no task") from exc
    cr = "\r" if current.endswith("\r") else ""
    lines[line - 1 : line] = [w + cr for w in written]
    now = written[at] if at is not None else ""
    task_found = task_line(now)
    symbol = task_found[1] if task_found else old
    if written != [shown]:
        new_text = "\n".join(lines)
        operation = f"task line {line}: [{old}] -> [{symbol}]"
        if len(written) > 1 or at is None:
            operation += " and its next occurrence"
        writer.edit(path, lambda _: new_text, operation, expected_hash=note.hash)
    at_line = line + (at if at is not None else 0)
    task = {"status": symbol, "text": now, "file": path, "line": at_line}
    message = f"{path}:{line} [{old}] -> [{symbol}]"
    if at is None:
        message += " (removed: 🏁 delete)"
    if len(written) > 1 or at is None:
        nxt = next(i for i in range(len(written)) if i != at)
        task["next"] = {"text": written[nxt], "line": line + nxt}
        message += f"; next occurrence at line {line + nxt}"
    return ok(task=task, lines=written, message=message)


def _first_of(settings: TasksSettings, kind: str, default: str) -> str:
    if not settings.installed:
        return default
    return next((s.symbol for s in settings.statuses if s.type == kind), default)


def task_update(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    path = resolve_note(parts, args["file"], "file")
    return set_task(parts, path, args["line"], args["status"], args.get("text"))
