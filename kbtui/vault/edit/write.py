"""What every note writer shares: safe file names, the vault's bounds, a new note's text, the
temporary files a killed write may leave, and the error they raise. The writes themselves are
kbtui.vault.edit.swap (one note) and kbtui.vault.edit.batch (several), used only by the write
path, kbtui.tools.write."""

from __future__ import annotations

import os
import re
import time
import unicodedata
from pathlib import Path
from typing import Any

import yaml

_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]+')
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}
MAX_NAME_BYTES = 150
TEMP_PREFIX, TEMP_SUFFIX = ".kbtui-", ".tmp"
STALE_TEMP_SECONDS = 600  # a live write holds its temp file for well under a second


class WriteError(OSError):
    """A note could not be written; the message says why."""


def safe_filename(title: str) -> str:
    """A readable file stem for a title that cannot leave its folder or hide itself."""
    name = unicodedata.normalize("NFC", title)
    name = _UNSAFE.sub(" ", name)
    name = re.sub(r"\s+", " ", name).strip(" .")
    while len(name.encode()) > MAX_NAME_BYTES:
        name = name[:-1].rstrip(" .")
    if not name or set(name) <= {"."}:
        name = "Untitled"
    if name.lower() in _RESERVED:
        name += "_"
    return name


def inside(root: Path, path: Path) -> bool:
    """True when `path` resolves to a place under `root` (symlinks followed)."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def render_note(frontmatter: dict[str, Any], body: str) -> str:
    fm = yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{fm}---\n\n{body.rstrip()}\n"


def sweep_stale_temps(folder: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove temp files a killed write left in `folder` (hidden, never indexed, but they
    would pile up in the user's folders). Only old ones: a write in flight keeps its own."""
    removed = 0
    cutoff = time.time() - older_than
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
