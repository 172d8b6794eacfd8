"""What a write changes, as a person reads it: a unified diff and lines added/removed."""

from __future__ import annotations

import difflib


def unified(old: str, new: str, path: str, old_label: str = "", new_label: str = "") -> str:
    """A unified diff of `path` (`a/path` -> `b/path`), line endings shown as plain lines."""
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile=f"a/{path}" + (f" ({old_label})" if old_label else ""),
        tofile=f"b/{path}" + (f" ({new_label})" if new_label else ""),
        lineterm="",
    )
    return "\n".join(lines) + "\n" if old != new else ""
