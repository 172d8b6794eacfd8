"""The file types Obsidian lists (help: Files and folders > Accepted file formats) and its
"Detect all file extensions" setting (`.obsidian/app.json` `showUnsupportedFiles`, default
off): with it off, Obsidian shows no other file, in its file list or in a base."""

from __future__ import annotations

import json
from pathlib import Path

ACCEPTED_EXTENSIONS = frozenset(
    {
        "md", "base", "canvas", "pdf",
        "avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp",  # images
        "flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp",  # audio
        "mkv", "mov", "mp4", "ogv",  # video (and webm)
    }
)  # fmt: skip


def shows_all_file_types(vault: Path) -> bool:
    """`showUnsupportedFiles` of the vault's app.json; False when unset or unreadable."""
    try:
        raw = json.loads((vault / ".obsidian" / "app.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(raw, dict) and raw.get("showUnsupportedFiles") is True


def obsidian_lists(ext: str, show_all: bool) -> bool:
    """Whether Obsidian lists a file of extension `ext` (lower case, no dot; "" for none)."""
    return show_all or ext in ACCEPTED_EXTENSIONS
