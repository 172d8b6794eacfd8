"""Several notes changed as one: each file written atomically, and if any write fails every
file already written gets its original bytes back (and a moved note its old name), so a
rename that fixes links in forty notes lands whole or not at all.

Text is edited as the file holds it: encoding, byte-order mark and line endings are kept, so
the bytes outside an edit stay the same.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kbtui.vault.edit.write import WriteError, _fsync_dir, inside, replace_note

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class FileEdit:
    """New bytes for one existing note, and the bytes it must still hold when written."""

    path: Path
    original: bytes
    new: bytes


def read_text(data: bytes) -> tuple[str, Callable[[str], bytes]]:
    """The note's text with its own line endings, and how to turn edited text back into bytes
    of the same encoding, byte-order mark and line endings."""
    bom, encodings = b"", ["utf-8", "cp1252", "latin-1"]  # as kbtui.vault.decode reads them
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encodings = mark, [name]
            break
    text, encoding = "", ""
    for encoding in encodings:
        try:
            text = data[len(bom) :].decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise WriteError(f"not valid {encodings[0]} after its byte-order mark")
    if "\x00" in text or re.search("\r(?!\n)", text):
        raise WriteError("a binary note, or one with bare CR line endings, is not edited")

    def encode(new: str) -> bytes:
        return bom + new.encode(encoding)

    return text, encode


def write_all(vault: Path, edits: list[FileEdit], move: tuple[Path, Path] | None = None) -> None:
    """Write every edit, then move `move[0]` to `move[1]` (never over an existing file).
    On any failure every file is put back as it was and WriteError says what failed."""
    for edit in edits:
        try:
            current = edit.path.read_bytes()
        except FileNotFoundError:
            gone = f"{edit.path.name} was moved or deleted while it was being edited"
            raise WriteError(gone) from None
        if current != edit.original:
            raise WriteError(f"{edit.path.name} changed on disk while it was being edited")
    created: list[Path] = []
    if move is not None:
        target = move[1]
        if target.exists():
            raise WriteError(f"{target.name} already exists")
        folder = target.parent
        while not folder.exists():
            created.append(folder)
            folder = folder.parent
        if not inside(vault, target.parent):
            raise WriteError("the new name would leave the vault")
    done: list[FileEdit] = []
    moved = False
    try:
        for edit in edits:
            replace_note(edit.path, edit.original, edit.new)
            done.append(edit)
        if move is not None:
            for folder in reversed(created):
                folder.mkdir()
            _move(*move)
            moved = True
    except OSError as exc:
        failed = _restore(done, move if moved else None, created)
        detail = f"; could not restore {', '.join(failed)}" if failed else "; nothing was changed"
        raise WriteError(f"the change was not made ({exc}){detail}") from exc


def _move(source: Path, target: Path) -> None:
    """Give `source` the name `target`, refusing to replace a file that appeared meanwhile."""
    try:
        os.link(source, target)
    except FileExistsError:
        raise WriteError(f"{target.name} already exists") from None
    except OSError:  # no hard links on this filesystem: reserve the name, then rename
        fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        os.close(fd)
        os.replace(source, target)
    else:
        source.unlink()
    _fsync_dir(target.parent)
    _fsync_dir(source.parent)


def _restore(
    done: list[FileEdit], moved: tuple[Path, Path] | None, created: list[Path]
) -> list[str]:
    """Undo a partial batch; returns the names that could not be put back."""
    failed: list[str] = []
    if moved is not None:
        try:
            _move(moved[1], moved[0])
        except OSError:
            failed.append(moved[1].name)
    for edit in reversed(done):
        try:
            replace_note(edit.path, edit.path.read_bytes(), edit.original)
        except OSError:
            failed.append(edit.path.name)
    for folder in created:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return failed
