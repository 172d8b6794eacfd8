"""Several notes written as one change (a rename that rewrites the links of forty notes and
moves one), through the write path: the scope of every path, the bytes before of every note
in the history first, the files through kbtui.vault.edit.batch (each replaced without
overwriting another program's save, all or nothing), the bytes after recorded with who and
what, the index updated before the answer."""

from __future__ import annotations

from pathlib import Path

from kbtui.textdiff import content_hash, line_changes
from kbtui.tools.envelope import ConflictError
from kbtui.tools.write.origin import current
from kbtui.tools.write.service import NoteWriter, StaleNoteError
from kbtui.vault.edit.batch import FileEdit, FileMove, write_all
from kbtui.vault.edit.codec import EncodingError, decode_for_edit
from kbtui.vault.edit.swap import StaleError
from kbtui.vault.edit.write import WriteError


def write_batch(
    writer: NoteWriter,
    edits: list[FileEdit],
    move: tuple[str, str] | None,
    operation: str,
) -> list[str]:
    """Write `edits` (vault files: the bytes read, the new bytes) and then move the note
    `move[0]` to `move[1]` (vault-relative), all or nothing. Returns the paths changed."""
    vault = writer.vault

    def rel(path: Path) -> str:
        return path.relative_to(vault).as_posix()

    paths = [rel(e.path) for e in edits] + (list(move) if move else [])
    for path in paths:
        writer.check_scope(path)
    source = current().source
    with writer._writing():
        history = writer.history
        seen = [(rel(e.path), e.original) for e in edits]
        moving = None
        if move is not None:
            full = writer.file(move[0])
            before = next((e.original for e in edits if e.path == full), None)
            if before is None:
                before = _read(full, move[0])
                seen.append((move[0], before))
            moving = FileMove(full, writer.file(move[1]), before)
        history.observe(seen)  # the bytes before, where the history lacks them

        def kept(note: Path, file: Path, expected: bytes) -> None:
            history.note_kept(file, rel(note), content_hash(expected))

        try:
            write_all(vault, writer.keep, edits, moving, kept)
        except StaleError as exc:
            now = None if exc.current is None else content_hash(exc.current)
            raise StaleNoteError(f"{exc}; read it again", now) from None
        except WriteError as exc:
            raise ConflictError(str(exc)) from exc
        versions: list[tuple[str, bytes | None, str, str, int, int]] = []
        for edit in edits:
            added, removed = line_changes(_text(edit.original), _text(edit.new))
            path = rel(edit.path)
            if moving is not None and edit.path == moving.source:
                path = rel(moving.target)
            versions.append((path, edit.new, source, operation, added, removed))
        if moving is not None:
            if not any(e.path == moving.source for e in edits):
                versions.append((rel(moving.target), moving.data, source, operation, 0, 0))
            gone = len(_text(moving.data).splitlines())
            versions.append((rel(moving.source), None, source, operation, 0, gone))
        history.record_many(versions)
        writer._index(paths)
    return paths


def _read(full: Path, path: str) -> bytes:
    try:
        return full.read_bytes()
    except FileNotFoundError:
        raise StaleNoteError(f"{path} was moved or deleted; nothing was written", None) from None


def _text(data: bytes) -> str:
    try:
        return decode_for_edit(data).text
    except EncodingError:
        return data.decode("utf-8", errors="replace")
