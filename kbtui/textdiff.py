"""Counting a change and naming bytes: shared by the write path (vault.edit) and the history.

Both sides must count lines and hash bytes the same way, or a write's answer and the version
the history keeps of it would disagree; the history (store) cannot import the vault's edit
room, so the one definition lives here, below both.
"""

from __future__ import annotations

import difflib
import hashlib


def line_changes(old: str, new: str) -> tuple[int, int]:
    """(lines added, lines removed) from `old` to `new`."""
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def content_hash(data: bytes) -> str:
    """The hash a writer states for what it read: sha256 of the raw bytes, hex."""
    return hashlib.sha256(data).hexdigest()
