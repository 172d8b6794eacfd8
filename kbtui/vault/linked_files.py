"""The vault's other files (images, PDFs, canvases ...), which Obsidian links resolve to as
well as notes: `![[diagram.png]]`, `[t](files/a%20b.pdf)`. Read from disk when asked (the
index holds notes only); hidden and tool folders are skipped as the scan skips them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from kbtui.vault.scan import IGNORED_DIRS, NOTE_SUFFIXES


class Attachments:
    """Every non-note file, found by vault path, by the end of its path or by its name
    (lower-cased, as links are compared), nearest to the linking note first. The listing is
    read once and read again only when a folder's modification time changes (a file added,
    removed or renamed in it): walking a 10k-note vault on every call cost ~100 ms."""

    _cache: ClassVar[dict[Path, tuple[dict[str, int], dict[str, list[str]]]]] = {}

    def __init__(self, vault: Path) -> None:
        cached = self._cache.get(vault)
        if cached is not None and _unchanged(vault, cached[0]):
            self.by_key = cached[1]
            return
        folders: dict[str, int] = {}
        self.by_key = {}
        for path in _walk(vault, folders):
            parts = path.lower().split("/")
            for i in range(len(parts)):
                self.by_key.setdefault("/".join(parts[i:]), []).append(path)
        self._cache[vault] = (folders, self.by_key)

    def keys(self) -> list[str]:
        """Every key some file answers to: a link with another key reaches no file."""
        return list(self.by_key)

    def resolve(self, key: str, source_path: str) -> str | None:
        """The file a link key reaches from `source_path`, or None."""
        found = self.by_key.get(key.strip("/"))
        if not found:
            return None
        folder = source_path.rpartition("/")[0].split("/") if "/" in source_path else []
        return min(found, key=lambda p: (folder_steps(folder, p.split("/")[:-1]), p))


def folder_steps(a: list[str], b: list[str]) -> int:
    """Steps up and down between two folders (as lists of names): Obsidian's nearest file."""
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return len(a) + len(b) - 2 * common


def _unchanged(vault: Path, folders: dict[str, int]) -> bool:
    try:
        return all(os.stat(vault / f).st_mtime_ns == t for f, t in folders.items())
    except OSError:
        return False


def _walk(vault: Path, folders: dict[str, int]) -> list[str]:
    """Non-note files; `folders` gets each folder's modification time."""
    out: list[str] = []
    stack = [(str(vault), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            folders[prefix] = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in IGNORED_DIRS:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, prefix + entry.name + "/"))
            elif not entry.name.lower().endswith(NOTE_SUFFIXES):
                out.append(prefix + entry.name)
    return sorted(out)
