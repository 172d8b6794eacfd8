"""The vault path a rename's `newName` asks for, or a VALIDATION error that says why not."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kbtui.tools.envelope import ValidationError
from kbtui.vault.edit.write import inside

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
    if name.endswith("/"):
        raise ValidationError(
            f"newName {raw!r} ends with '/': that names a folder, and the note's file name "
            "after it is empty (write folder/name)",
            field="newName",
        )
    if name.startswith("/"):
        raise ValidationError(
            f"newName {raw!r} starts with '/', which would leave the vault: give the path "
            "from the vault's top folder, without the leading '/'",
            field="newName",
        )
    parts, meant = _normalised(raw, name.split("/"))
    if any(p.startswith(".") or p != p.strip() for p in parts):
        raise ValidationError(
            "newName parts cannot start with '.' (hidden: never indexed) or a space",
            field="newName",
        )
    if "/" not in name and "/" in old_path:  # a bare name: the note stays in its folder
        parts = [*old_path.split("/")[:-1], name]
    new_path = "/".join(parts) + ".md"
    target = vault / new_path
    if not inside(vault, target.parent if target.parent.exists() else vault):
        raise ValidationError(f"newName {raw!r} would leave the vault", field="newName")
    if new_path == old_path:
        raise ValidationError(f"the note is already named {new_path}", field="newName")
    if target.exists() or target.is_symlink():
        raise ValidationError(f"{new_path} already exists", field="newName")
    return new_path, meant


def _normalised(raw: str, parts: list[str]) -> tuple[list[str], str | None]:
    """The path's parts with `.` and `..` worked out (`People/../References/X` means
    `References/X`), and what it means when that differs; VALIDATION when a `..` climbs
    above the vault or a part is empty."""
    out: list[str] = []
    for part in parts:
        if part.strip() == "":
            raise ValidationError(
                f"newName {raw!r} has an empty folder name between two '/'", field="newName"
            )
        if part.strip() == ".":
            continue
        if part.strip() == "..":
            if not out:
                raise ValidationError(
                    f"newName {raw!r} would leave the vault: its '..' climbs above the vault's "
                    "top folder",
                    field="newName",
                )
            out.pop()
            continue
        out.append(part)
    if not out:
        raise ValidationError(f"newName {raw!r} names no file", field="newName")
    meant = "/".join(out)
    return out, (f"{raw.strip()!r} means {meant}" if out != parts else None)
