"""Replace, create and remove a note's file so that no other program's save is ever lost.

A writer read bytes B and wants to put N in their place. Comparing the file with B and then
renaming N over it leaves a window: a save by an editor in between would be overwritten. So:

1. N goes to a temporary file in the same folder (fsynced);
2. the note is renamed aside (atomic): from now on a save by another program either lands in
   the file set aside (it had the note open) or creates a new file under the note's name;
3. the file set aside must still hold B, else the other save is put back under the note's
   name and the write is refused as stale;
4. N takes the note's name by a hard link, which fails if the name exists again (another
   program saved by rename meanwhile): its file stays, and the write is refused as stale;
5. the file set aside is not deleted but moved into `keep` (under `.kbtui/`), so even a write
   into it after the last check is kept; the history reads it later (kbtui.store.history).

Either the note holds N, or it holds what the other program wrote; B and anything written into
the old file are kept. Before step 2 a line in `keep` names the note (`.pending`): a process
killed between steps 2 and 4 leaves B aside, and `recover` (run before every write and when a
vault is opened) puts it back, so after a crash the note is B or N.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from kbtui.vault.edit.write import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    WriteError,
    _fsync_dir,
    sweep_stale_temps,
)

ASIDE_PREFIX, ASIDE_SUFFIX = ".kbtui-aside-", ".aside"  # not a temp: never swept
PENDING = ".pending"


class StaleError(WriteError):
    """The note is not what the writer read: another program changed, moved or deleted it."""

    def __init__(self, message: str, current: bytes | None, kept: Path | None = None) -> None:
        super().__init__(message)
        self.current = current  # the bytes now under the note's name (None: no file)
        self.kept = kept  # a file set aside and kept for the history, if any


@dataclass(frozen=True)
class Swapped:
    """What a replacement left: the old file, moved into the keep folder (None if it was
    removed on a filesystem without rename into `keep`)."""

    kept: Path | None


def _temp(folder: Path, data: bytes, mode: int) -> Path:
    sweep_stale_temps(folder)
    fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _link(source: Path, name: Path) -> bool:
    """Give `source`'s file the name `name` too, unless that name exists. Atomic."""
    try:
        os.link(source, name)
        return True
    except FileExistsError:
        return False
    except OSError:  # no hard links here: reserve the name, then rename into it
        try:
            fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        os.close(fd)
        os.replace(source, name)
        return True


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _keep(aside: Path, keep: Path) -> Path | None:
    """Move the file set aside into the keep folder (same filesystem: a rename keeps the
    inode, so a late write into it is kept too)."""
    keep.mkdir(parents=True, exist_ok=True)
    target = keep / f"{uuid.uuid4().hex}.kept"
    try:
        os.rename(aside, target)
    except OSError:
        return None
    return target


def replace_file(path: Path, expected: bytes, new: bytes, keep: Path) -> Swapped:
    """Put `new` in place of the note at `path`, which must still hold `expected`."""
    if path.is_symlink():
        raise WriteError(f"{path.name} is a symbolic link; edit the note it points to")
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        raise StaleError(f"{path.name} was moved or deleted", None) from None
    tmp = _temp(path.parent, new, mode)
    token = uuid.uuid4().hex
    aside = path.with_name(f"{ASIDE_PREFIX}{token}{ASIDE_SUFFIX}")
    keep.mkdir(parents=True, exist_ok=True)
    journal = keep / f"{token}{PENDING}"
    journal.write_text(f"{os.getpid()}\n{path}", encoding="utf-8")
    try:
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            raise StaleError(f"{path.name} was moved or deleted", None) from None
        held = aside.read_bytes()
        if held != expected:
            kept = _put_back(aside, path, keep)
            raise StaleError(f"{path.name} changed on disk since it was read", held, kept)
        if not _link(tmp, path):
            current = _read(path)
            kept = _keep(aside, keep)  # its bytes are the expected ones, kept all the same
            raise StaleError(f"{path.name} was saved by another program meanwhile", current, kept)
        _fsync_dir(path.parent)
        kept = _keep(aside, keep)
        if kept is None:
            aside.unlink(missing_ok=True)
        return Swapped(kept)
    finally:
        tmp.unlink(missing_ok=True)
        journal.unlink(missing_ok=True)


def _put_back(aside: Path, path: Path, keep: Path) -> Path | None:
    """The other program's file goes back under the note's name; if the name is taken
    again (a third save), the file set aside is kept for the history (returned)."""
    kept = None
    if _link(aside, path):
        aside.unlink(missing_ok=True)
    else:
        kept = _keep(aside, keep)
    _fsync_dir(path.parent)
    return kept


def create_file(path: Path, data: bytes) -> None:
    """Write a new note at `path`, refusing if any file has that name. Atomic."""
    tmp = _temp(path.parent, data, 0o644)
    try:
        if not _link(tmp, path):
            raise FileExistsError(path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def move_file(path: Path, expected: bytes, target: Path) -> None:
    """Move the note at `path` (holding `expected`) to `target`, never over a file there:
    a delete to the trash. Refused as stale, the note left in place, if it changed."""
    if path.is_symlink():
        raise WriteError(f"{path.name} is a symbolic link; not moved")
    target.parent.mkdir(parents=True, exist_ok=True)
    if not _link(path, target):
        raise WriteError(f"{target.name} already exists")
    held = _read(path)
    if held is None:  # no hard links here: `_link` renamed the note itself (or it was deleted)
        if _read(target) != expected:
            if _link(target, path):
                target.unlink(missing_ok=True)
            raise StaleError(f"{path.name} changed on disk since it was read", _read(path))
        _fsync_dir(path.parent)
        _fsync_dir(target.parent)
        return
    if held != expected:
        target.unlink(missing_ok=True)
        raise StaleError(f"{path.name} changed on disk since it was read", held)
    path.unlink()
    if _read(target) != expected:  # written through the old name in between: put it back
        if _link(target, path):
            target.unlink(missing_ok=True)
        raise StaleError(f"{path.name} changed on disk while it was moved", _read(path))
    _fsync_dir(path.parent)
    _fsync_dir(target.parent)


def recover(keep: Path) -> list[tuple[Path, Path]]:
    """Finish the replacements a killed process left half done: a note set aside goes back
    under its name when the name is free, else into `keep`. Returns (kept file, note) pairs.
    Call it
    holding the writer's lock: a journal of this process is then never of a live write."""
    kept: list[tuple[Path, Path]] = []
    try:
        journals = [e.path for e in os.scandir(keep) if e.name.endswith(PENDING)]
    except OSError:
        return kept
    for entry in journals:
        journal = Path(entry)
        try:
            pid, _, name = journal.read_text(encoding="utf-8").partition("\n")
        except (OSError, UnicodeDecodeError):
            continue
        if not name:
            journal.unlink(missing_ok=True)
            continue
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        note = Path(name)
        aside = note.with_name(f"{ASIDE_PREFIX}{journal.stem}{ASIDE_SUFFIX}")
        if aside.exists():
            if _link(aside, note):
                aside.unlink(missing_ok=True)
            else:
                moved = _keep(aside, keep)
                if moved is not None:
                    kept.append((moved, note))
        journal.unlink(missing_ok=True)
    return kept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
