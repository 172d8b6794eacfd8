"""`NoteWriter`: the one path every write to a note takes (issue 39).

For each write, in this order:
1. the scope: the origin may write there (`forbidden` otherwise), and the path stays inside
   the vault (no `..`, no absolute path, no symbolic link out);
2. the precondition: the raw bytes read now, and the hash the writer states it saw
   (`expected_hash`) must be theirs, else `stale` with the current hash and nothing written;
3. the change, made on the note's own text (kbtui.vault.edit.codec): the bytes it does not
   name stay as they were; a character the note's encoding cannot hold is refused;
4. history first: the bytes before (if the history lacks them);
5. the file replaced atomically, refusing to overwrite another program's save
   (kbtui.vault.edit.swap), the bytes after recorded with who and what once they are in place
   (a journal covers a kill in between: kbtui.indexing.recovery);
6. the index updated for that path before the answer.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from kbtui.indexing.recovery import memo, recover_writes
from kbtui.models import IndexReport
from kbtui.store.history import History
from kbtui.textdiff import content_hash, line_changes
from kbtui.tools.envelope import ConflictError, NotFoundError, ToolError, ValidationError
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.dry import record as _dry
from kbtui.tools.write.origin import current
from kbtui.vault.edit import swap
from kbtui.vault.edit.codec import (
    EncodingError,
    NoteText,
    decode_for_edit,
    settled_bytes,
)
from kbtui.vault.edit.diffs import unified
from kbtui.vault.edit.swap import StaleError, create_file, keep_dir, move_file, replace_file
from kbtui.vault.edit.write import WriteError, inside


class StaleNoteError(ConflictError):
    """The note is not what the writer read; `current_hash` is what it holds now."""

    error_type = "StaleError"

    def __init__(self, message: str, current_hash: str | None) -> None:
        super().__init__(message)
        self.current_hash = current_hash
        self.extra = {"current_hash": current_hash}  # in the answer: what to read again


class NameTaken(ConflictError):
    """A new note's name was taken by another program as it was created (nothing written)."""


class ForbiddenError(ToolError):
    """The caller's scope does not allow this write (read-only, or outside its folders)."""

    error_type = "ForbiddenError"


@dataclass
class WriteResult:
    """What a write did (or, in a dry run, would do)."""

    path: str
    hash: str | None
    previous_hash: str | None
    added: int
    removed: int
    diff: str = ""
    dry_run: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def answer(self, **more: Any) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "hash": self.hash,
            "previous_hash": self.previous_hash,
            "added": self.added,
            "removed": self.removed,
            "changed": self.hash != self.previous_hash,
        }
        if self.dry_run:
            out["dry_run"] = True
            out["diff"] = self.diff
        return {**out, **self.extra, **more}


def vault_path(raw: str) -> str:
    """A vault-relative POSIX path from what a caller gave; refuses escapes."""
    text = raw.strip().replace("\\", "/")
    pure = PurePosixPath(text)
    if not text or pure.is_absolute() or text.startswith("~") or ".." in pure.parts:
        raise ValidationError(f"{raw!r} is not a path inside the vault", field="path")
    if any(part.startswith(".") for part in pure.parts):
        raise ValidationError(f"{raw!r} is in a hidden folder or file", field="path")
    return pure.as_posix()


class NoteWriter:
    """Reads notes for writing and writes them back, for one vault."""

    def __init__(self, parts: VaultParts) -> None:
        self.parts = parts
        self.vault = parts.settings.vault
        self.keep = keep_dir(parts.settings.index_dir)
        self._own_history: History | None = None
        self.last_report: IndexReport | None = None  # the index pass of the last write

    @property
    def history(self) -> History:
        if self.parts.history is not None:
            return self.parts.history
        if self._own_history is None:
            self._own_history = History(self.parts.settings.index_dir)
        return self._own_history

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One write at a time in this process; half-done ones of a killed process first."""
        with self.parts.write_lock:
            recover_writes(self.vault, self.parts.settings.index_dir, self.history)
            yield
            self.history.ingest_kept()

    # -- reading ---------------------------------------------------------------------------

    def file(self, path: str) -> Path:
        full = self.vault / path
        if not inside(self.vault, full.parent if not full.exists() else full):
            raise ValidationError(f"{path!r} leaves the vault", field="path")
        return full

    def read(self, path: str) -> NoteText:
        """The note's bytes and text, or a clear error (missing, binary, not editable)."""
        full = self.file(path)
        try:
            data = settled_bytes(full)
        except FileNotFoundError:
            raise NotFoundError(f"{path} does not exist") from None
        except IsADirectoryError:
            raise ValidationError(f"{path} is a folder, not a note", field="path") from None
        except OSError as exc:
            raise ConflictError(f"{path} cannot be read: {exc.strerror or exc}") from exc
        try:
            return decode_for_edit(data)
        except EncodingError as exc:
            raise ConflictError(f"{path} is not edited: {exc}") from exc

    def check_scope(self, path: str) -> None:
        """ForbiddenError unless the current origin may write `path`: by the path given and,
        held to folders, by where it leads (a symbolic link to another folder counts there)."""
        origin = current()
        if origin.read_only:
            raise ForbiddenError(f"{origin.source} is read-only here: {path} was not written")
        if not origin.allows(path) or (
            origin.write_folders and not origin.allows(self._real(path))
        ):
            folders = ", ".join(origin.write_folders)
            raise ForbiddenError(
                f"{origin.source} may write only in {folders}: {path} was not written"
            )

    def _real(self, path: str) -> str:
        """Where `path` leads, links followed, relative to the vault ("/" when outside)."""
        try:
            real = (self.vault / path).resolve().relative_to(self.vault.resolve())
        except (OSError, ValueError):
            return "/"
        return real.as_posix()

    @staticmethod
    def check_expected(path: str, note: NoteText | None, expected: str | None) -> None:
        if expected is None:
            return
        now = None if note is None else note.hash
        if expected.strip().lower() != now:
            raise StaleNoteError(
                f"{path} changed since it was read (expected {expected[:12]}, "
                f"now {now[:12] if now else 'no file'}); read it again",
                now,
            )

    # -- writing ---------------------------------------------------------------------------

    def edit(
        self,
        path: str,
        change: Callable[[NoteText], str],
        operation: str,
        expected_hash: str | None = None,
        dry_run: bool = False,
    ) -> WriteResult:
        """Apply `change` (old note -> new text) to the existing note at `path`."""
        self.check_scope(path)
        with self._writing():
            note = self.read(path)
            self.check_expected(path, note, expected_hash)
            new_text = change(note)
            try:
                new = note.encode(new_text)
            except EncodingError as exc:
                raise ConflictError(f"{path}: {exc}") from exc
            return self._replace(path, note, new, new_text, operation, dry_run)

    def _replace(
        self, path: str, note: NoteText, new: bytes, new_text: str, operation: str, dry: bool
    ) -> WriteResult:
        added, removed = line_changes(note.text, new_text)
        result = WriteResult(path, content_hash(new), note.hash, added, removed, dry_run=dry)
        if dry:
            result.diff = unified(note.text, new_text, path)
            _dry(path, note.raw, new)
            return result
        if new == note.raw:
            return result
        history, source = self.history, current().source
        history.observe([(path, note.raw)])

        def kept(file: Path) -> None:  # the old file, or one another program saved into it
            history.note_kept(file, path, note.hash)

        def replaced() -> None:
            history.record(path, new, source, operation, added, removed)

        try:
            replace_file(
                self.vault / path, note.raw, new, self.keep,
                memo(source, operation, added, removed), kept, replaced,
            )  # fmt: skip
        except StaleError as exc:
            now = None if exc.current is None else content_hash(exc.current)
            raise StaleNoteError(f"{exc}; nothing was written, read it again", now) from None
        except WriteError as exc:
            raise ConflictError(f"{path} was not written: {exc}") from exc
        swap.at_point("recorded")
        self._index([path])
        return result

    def create(
        self,
        path: str,
        text: str,
        operation: str = "create",
        overwrite: bool = False,
        expected_hash: str | None = None,
        dry_run: bool = False,
    ) -> WriteResult:
        """A new note at `path` (UTF-8, LF); an existing one is refused unless `overwrite`,
        which replaces it through the same precondition as any edit."""
        self.check_scope(path)
        with self._writing():
            full = self.file(path)
            if full.exists() or full.is_symlink():
                if not overwrite:
                    raise ConflictError(f"{path} already exists (overwrite replaces it)")
                note = self.read(path)
                self.check_expected(path, note, expected_hash)
                new_text = note.lines_out(text)
                try:
                    new = note.encode(new_text)
                except EncodingError as exc:
                    raise ConflictError(f"{path}: {exc}") from exc
                return self._replace(path, note, new, new_text, operation, dry_run)
            self.check_expected(path, None, expected_hash)
            return self._create(path, text.encode("utf-8"), text, operation, dry_run)

    def create_free(
        self, folder: str, stem: str, text: str, operation: str, suffix: str = ".md"
    ) -> WriteResult:
        """A new note in `folder` at the first free name: `stem.md`, `stem 2.md`, ... (an
        import: never over a file, never refused for the name alone)."""
        folder = folder.strip("/")
        for n in range(1, 10_000):
            name = f"{stem}{suffix}" if n == 1 else f"{stem} {n}{suffix}"
            path = f"{folder}/{name}" if folder else name
            self.check_scope(path)
            with self._writing():
                full = self.file(path)
                if full.exists() or full.is_symlink():
                    continue
                try:
                    return self._create(path, text.encode("utf-8"), text, operation, False)
                except NameTaken:  # another program took the name meanwhile
                    continue
        raise ConflictError(f"no free file name for {stem!r} in {folder or 'the vault'!r}")

    def _create(self, path: str, data: bytes, text: str, operation: str, dry: bool) -> WriteResult:
        """A note where there is none (never over a file another program just made); in the
        history once it is there, so a refused create leaves no version behind."""
        full = self.file(path)
        added = len(text.splitlines())
        result = WriteResult(path, content_hash(data), None, added, 0, dry_run=dry)
        result.extra["created"] = True
        if dry:
            result.diff = unified("", text, path)
            _dry(path, None, data)
            return result
        full.parent.mkdir(parents=True, exist_ok=True)
        if not inside(self.vault, full.parent):
            raise ValidationError(f"{path!r} leaves the vault", field="path")
        try:
            create_file(full, data)
        except FileExistsError:
            raise NameTaken(f"{path} was created by another program meanwhile") from None
        self.history.record(path, data, current().source, operation, added, 0)
        swap.at_point("recorded")
        self._index([path])
        return result

    def restore(
        self, path: str, number: int, expected_hash: str | None = None, dry_run: bool = False
    ) -> WriteResult:
        """Put version `number` of `path` back, its very bytes (a write like any other:
        undoable, refused as stale if the note is not what the caller read); a deleted note
        comes back at its path."""
        self.check_scope(path)
        with self._writing():
            version = self.history.version(path, number)
            if version is None:
                raise NotFoundError(f"{path} has no version {number}")
            if version.hash is None:
                raise ValidationError(
                    f"version {number} of {path} is its deletion; restore an older one",
                    field="version",
                )
            data = self.history.data(version.hash)
            try:
                text = decode_for_edit(data).text
            except EncodingError:
                text = data.decode("utf-8", errors="replace")
            operation = f"restore v{number}"
            full = self.file(path)
            if not (full.exists() or full.is_symlink()):
                self.check_expected(path, None, expected_hash)
                return self._create(path, data, text, operation, dry_run)
            note = self.read(path)
            self.check_expected(path, note, expected_hash)
            return self._replace(path, note, data, text, operation, dry_run)

    def remove(
        self,
        path: str,
        target: Path | None,
        operation: str = "delete",
        expected_hash: str | None = None,
        dry_run: bool = False,
    ) -> WriteResult:
        """Take the note away: moved to `target` (the trash), or deleted when None. Its bytes
        stay in the history either way."""
        self.check_scope(path)
        with self._writing():
            full = self.file(path)
            try:
                raw = settled_bytes(full)
            except FileNotFoundError:
                raise NotFoundError(f"{path} does not exist") from None
            now = content_hash(raw)
            if expected_hash is not None and expected_hash.strip().lower() != now:
                raise StaleNoteError(f"{path} changed since it was read; read it again", now)
            text = raw.decode("utf-8", errors="replace")
            result = WriteResult(path, None, now, 0, len(text.splitlines()), dry_run=dry_run)
            if dry_run:
                result.diff = unified(text, "", path)
                _dry(path, raw, None)
                return result
            history, source = self.history, current().source
            history.observe([(path, raw)])

            def kept(file: Path) -> None:
                history.note_kept(file, path, now)

            gone = self.keep / f"deleted-{uuid.uuid4().hex}"  # out of the vault first
            try:
                move_file(
                    full, raw, gone if target is None else target, self.keep,
                    memo(source, operation, 0, result.removed), kept,
                )  # fmt: skip
            except StaleError as exc:
                cur = None if exc.current is None else content_hash(exc.current)
                raise StaleNoteError(f"{exc}; nothing was deleted", cur) from None
            except WriteError as exc:
                raise ConflictError(f"{path} was not deleted: {exc}") from exc
            if target is None:  # read once more later: a write into it meanwhile is kept
                kept(gone)
            history.record(path, None, source, operation, 0, result.removed)
            swap.at_point("recorded")
            self._index([path])
            return result

    def _index(self, paths: list[str]) -> None:
        """The index catches up before the answer: a search right after finds the words."""
        self.last_report = self.parts.indexer.run(paths=paths)
