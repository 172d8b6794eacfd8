"""Where a deleted note goes, as the vault's Obsidian settings say (`.obsidian/app.json`
`trashOption`): `local` -> the vault's `.trash/` folder (kbtui's default when unset: a person
can see and restore it without leaving the vault), `system` -> the desktop's trash
(Send2Trash; the local trash when that fails, as Obsidian does), `none` -> deleted. The
note's bytes stay in kbtui's history whichever it is."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Literal

from kbtui.textdiff import content_hash
from kbtui.tools.write.origin import current
from kbtui.tools.write.service import NoteWriter, StaleNoteError, WriteResult

TRASH_FOLDER = ".trash"
TrashOption = Literal["local", "system", "none"]


def trash_option(vault: Path) -> TrashOption:
    try:
        raw = json.loads((vault / ".obsidian" / "app.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "local"
    option = raw.get("trashOption") if isinstance(raw, dict) else None
    return option if option in ("local", "system", "none") else "local"


def local_target(vault: Path, path: str) -> Path:
    """A free name in the vault's `.trash/` for the note at `path`: `Name.md`, `Name 2.md`..."""
    folder = vault / TRASH_FOLDER
    stem, suffix = Path(path).stem, Path(path).suffix
    for n in range(1, 10_000):
        target = folder / (f"{stem}{suffix}" if n == 1 else f"{stem} {n}{suffix}")
        if not target.exists():
            return target
    raise OSError(f"no free name in {TRASH_FOLDER}/ for {path}")


def send_to_system_trash(file: Path) -> bool:
    """Move `file` to the desktop's trash; False when there is none to be had here."""
    try:
        from send2trash import TrashPermissionError, send2trash

        if sys.platform.startswith("linux"):  # the same freedesktop trash, with or without Gio
            from send2trash.plat_other import send2trash
    except ImportError:
        return False
    try:
        send2trash(os.fspath(file))
    except (TrashPermissionError, OSError):
        return False
    return True


def delete_note(
    writer: NoteWriter,
    path: str,
    expected_hash: str | None = None,
    dry_run: bool = False,
    permanent: bool = False,
    operation: str = "delete",
) -> WriteResult:
    """Delete the note as the vault's settings say; the answer names where it went.
    `operation` is what the history says was done (a merge: "merged into ...")."""
    vault = writer.vault
    option: TrashOption = "none" if permanent else trash_option(vault)
    if option == "system" and not dry_run:
        writer.check_scope(path)
        with writer.parts.write_lock:
            raw = writer.read(path).raw  # the precondition, then the desktop's trash
            now = content_hash(raw)
            if expected_hash is not None and expected_hash.strip().lower() != now:
                raise StaleNoteError(f"{path} changed since it was read; read it again", now)
            writer.history.observe([(path, raw)])
            if send_to_system_trash(vault / path):
                done = f"{operation} to the system trash"
                writer.history.record(path, None, current().source, done)
                writer.parts.indexer.run(paths=[path])
                removed = len(raw.splitlines())
                result = WriteResult(path, None, now, 0, removed)
                result.extra["trash"] = "system"
                return result
        option = "local"  # no desktop trash here: Obsidian falls back to its own too
    target = local_target(vault, path) if option == "local" else None
    result = writer.remove(path, target, operation, expected_hash, dry_run)
    result.extra["trash"] = (
        target.relative_to(vault).as_posix() if target is not None else "deleted for good"
    )
    return result
