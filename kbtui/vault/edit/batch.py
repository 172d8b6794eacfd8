"""Several notes changed as one: a rename that fixes links in forty notes lands whole or not at
all. Each note is replaced through kbtui.vault.edit.swap (atomic, and never over another
program's save: a note that changed since it was read stops the batch), then the note is moved
(never over a file there). If any step fails, every note already written gets its original
bytes back the same way, the bytes just written being the precondition, and a moved note its
old name.

The files only: the caller keeps the notes' history (kbtui.tools.write.batch) and reads and
encodes their text through kbtui.vault.edit.codec.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kbtui.vault.edit.swap import StaleError, move_file, replace_file
from kbtui.vault.edit.write import WriteError, inside

# (note, the file set aside and kept, the bytes the note held when it was set aside)
Kept = Callable[[Path, Path, bytes], None]


@dataclass(frozen=True)
class FileEdit:
    """New bytes for one existing note, and the bytes it must still hold when written."""

    path: Path
    original: bytes
    new: bytes


@dataclass(frozen=True)
class FileMove:
    """A note given a new name; `data` is what it holds before the batch (its edit, if the
    batch has one, is written first)."""

    source: Path
    target: Path
    data: bytes


def write_all(
    vault: Path,
    keep: Path,
    edits: list[FileEdit],
    move: FileMove | None = None,
    kept: Kept | None = None,
) -> None:
    """Write every edit, then the move. On any failure every file is put back as it was and
    the error says what failed: StaleError when another program changed a note meanwhile,
    else WriteError. `kept` hears of every old file the replacements set aside in `keep`."""
    for path, expected in [(e.path, e.original) for e in edits] + (
        [(move.source, move.data)] if move is not None else []
    ):
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            gone = f"{path.name} was moved or deleted while it was being edited"
            raise StaleError(gone, None) from None
        if current != expected:
            raise StaleError(f"{path.name} changed on disk while it was being edited", current)
    created: list[Path] = []
    if move is not None:
        target = move.target
        if target.exists():
            raise WriteError(f"{target.name} already exists")
        folder = target.parent
        while not folder.exists():
            created.append(folder)
            folder = folder.parent
        if not inside(vault, target.parent):
            raise WriteError("the new name would leave the vault")
    done: list[FileEdit] = []
    moved: tuple[Path, bytes, Path] | None = None  # the move back: from, holding, to
    try:
        for edit in edits:
            _replace(edit.path, edit.original, edit.new, keep, kept)
            done.append(edit)
        if move is not None:
            for folder in reversed(created):
                folder.mkdir()
            now = next((e.new for e in edits if e.path == move.source), move.data)
            move_file(move.source, now, move.target)
            moved = (move.target, now, move.source)
    except OSError as exc:
        failed = _restore(done, moved, created, keep, kept)
        detail = f"; could not restore {', '.join(failed)}" if failed else "; nothing was changed"
        message = f"the change was not made ({exc}){detail}"
        if isinstance(exc, StaleError):
            raise StaleError(message, exc.current) from exc
        raise WriteError(message) from exc


def _replace(path: Path, expected: bytes, new: bytes, keep: Path, kept: Kept | None) -> None:
    try:
        swapped = replace_file(path, expected, new, keep)
    except StaleError as exc:
        if exc.kept is not None and kept is not None:
            kept(path, exc.kept, expected)
        raise
    if swapped.kept is not None and kept is not None:
        kept(path, swapped.kept, expected)


def _restore(
    done: list[FileEdit],
    moved: tuple[Path, bytes, Path] | None,
    created: list[Path],
    keep: Path,
    kept: Kept | None,
) -> list[str]:
    """Undo a partial batch; returns the names that could not be put back (another program
    changed them since this batch wrote them: its save stays)."""
    failed: list[str] = []
    if moved is not None:
        try:
            move_file(*moved)
        except OSError:
            failed.append(moved[2].name)
    for edit in reversed(done):
        try:
            _replace(edit.path, edit.new, edit.original, keep, kept)
        except OSError:
            failed.append(edit.path.name)
    for folder in created:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return failed
