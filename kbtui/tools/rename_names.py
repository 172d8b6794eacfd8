"""The vault path a rename's `newName` asks for, or a VALIDATION error that says why not."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kbtui.tools.envelope import ValidationError
from kbtui.vault.write import inside

if TYPE_CHECKING:
    from pathlib import Path

_BAD_CHARS = re.compile(r'[\x00-\x1f\x7f\\:*?"<>|#^\[\]]')


def new_vault_path(vault: Path, old_path: str, raw: str) -> tuple[str, str | None]:
    """(vault path `raw` names, what it means when it was written another way or None)."""
    name = raw.strip()
    if name.lower().endswith(".md"):
        name = name[:-3].rstrip()
    if not name:
        raise ValidationError("newName cannot be empty", field="newName")
    bad = _BAD_CHARS.search(name)
    if bad:
        raise ValidationError(
            f"newName has {bad.group()!r}, which a note's file name cannot hold "
            '(none of \\ : * ? " < > | # ^ [ ] or control characters)',
            field="newName",
        )
    parts = name.split("/")
    if name.startswith("/") or any(p.strip() in ("", ".", "..") for p in parts):
        raise ValidationError(f"newName {raw!r} would leave the vault", field="newName")
    if any(p.startswith(".") or p != p.strip() for p in parts):
        raise ValidationError(
            "newName parts cannot start with '.' (hidden: never indexed) or a space",
            field="newName",
        )
    if len(parts) == 1 and "/" in old_path:
        parts = [*old_path.split("/")[:-1], name]
    new_path = "/".join(parts) + ".md"
    target = vault / new_path
    if not inside(vault, target.parent if target.parent.exists() else vault):
        raise ValidationError(f"newName {raw!r} would leave the vault", field="newName")
    if new_path == old_path:
        raise ValidationError(f"the note is already named {new_path}", field="newName")
    if target.exists() or target.is_symlink():
        raise ValidationError(f"{new_path} already exists", field="newName")
    return new_path, None
