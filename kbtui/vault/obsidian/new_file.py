"""Where Obsidian puts a new note: `.obsidian/app.json`'s "Default location for new notes"
(`newFileLocation`: "root", "current" or "folder" with `newFileFolderPath`)."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath


def new_file_folder(vault: Path, current: str | None = None) -> str:
    """The vault-relative folder of a new note ("" for the root): `newFileFolderPath` when
    `newFileLocation` is "folder"; the folder of `current` (the note open in the TUI) for
    "current"; the root for "root", for "current" without a current file (a note made
    outside the app) and when unset, unreadable or leading out of the vault."""
    try:
        raw = json.loads((vault / ".obsidian" / "app.json").read_text("utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(raw, dict):
        return ""
    if raw.get("newFileLocation") == "current" and current:
        parent = PurePosixPath(current.replace("\\", "/")).parent
        return "" if parent == PurePosixPath(".") else _folder(str(parent))
    if raw.get("newFileLocation") != "folder":
        return ""
    folder = raw.get("newFileFolderPath")
    return _folder(folder) if isinstance(folder, str) else ""


def _folder(folder: str) -> str:
    parts = PurePosixPath(folder.replace("\\", "/").strip().strip("/")).parts
    if any(p in ("..", ".") or p.startswith(".") for p in parts):
        return ""  # out of the vault, or hidden (never indexed)
    return "/".join(parts)
