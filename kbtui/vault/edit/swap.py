"""Replace, create and remove a note's file so that no other program's save is ever lost.

A writer read bytes B and wants to put N in their place. Comparing the file with B and then
renaming N over it leaves a window: a save by an editor in between would be overwritten. So:

1. N goes to a temporary file in the same folder (fsynced); a journal in `keep` (under
   `.kbtui/`) names the note, N's hash and the writer's memo;
2. the note is compared with B once more: a save since the writer's read (the usual case of a
   stale write) is refused here, before the note's name is ever free;
3. the note is renamed aside (atomic): from now on a save by another program either lands in
   the file set aside (it had the note open) or creates a new file under the note's name;
4. the file set aside must still hold B, else the other save is put back under the note's
   name and the write is refused as stale;
5. N takes the note's name by a hard link, which fails if the name exists again (another
   program saved by rename meanwhile): its file stays, and the write is refused as stale;
6. the file set aside is not deleted but moved into `keep`, so even a write into it after the
   last check is kept; the history reads it later (kbtui.store.history).

Either the note holds N, or it holds what the other program wrote; B and anything written into
the old file are kept. The caller hears of a kept file (`on_kept`) and of the replacement
(`on_replaced`, where it records N) before the journal goes, so a process killed at any point
leaves a journal: `recover` (run before every write and before every index pass) puts B back
when the name is free, hands over the kept files and says what the dead writer wrote, so after
a crash the note is B or N and the history can say who made N.

Steps 3-5 leave the note's name free for a few microseconds: a program that creates the file
anew then (a blind append with O_CREAT, a save by rename) keeps its file under the name, and
the note's previous bytes are in the history (tests/test_write_hammer.py counts where).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
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
PENDING, KEPT = ".pending", ".kept"
KEEP_FOLDER = "history-kept"  # under the index folder: old files set aside by writes
Hook = Callable[[Path], None]


def keep_dir(index_dir: Path) -> Path:
    return index_dir / KEEP_FOLDER


def _no_point(name: str) -> None: ...


def _no_hook(file: Path) -> None: ...


# The crash suite's hook (tests/test_crash_writes.py): called at each named point of a write
# ("temp", "aside", "link", "kept", "moved"); a test's child sets it to kill itself at one.
at_point: Callable[[str], None] = _no_point

_live: set[str] = set()  # the journals of this process's writes in progress: never recovered
_live_lock = threading.Lock()


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


@dataclass(frozen=True)
class Recovered:
    """A write a killed process left: the note, its file kept (if one was), the hash of the
    bytes the writer was putting there ("" for a move) and the writer's memo."""

    note: Path
    kept: Path | None
    new_hash: str
    memo: str


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


def _keep(aside: Path, keep: Path, token: str) -> Path | None:
    """Move the file set aside into the keep folder (same filesystem: a rename keeps the
    inode, so a late write into it is kept too)."""
    keep.mkdir(parents=True, exist_ok=True)
    target = keep / f"{token}{KEPT}"
    try:
        os.rename(aside, target)
    except OSError:
        return None
    return target


def _aside(note: Path, token: str) -> Path:
    return note.with_name(f"{ASIDE_PREFIX}{token}{ASIDE_SUFFIX}")


def _settle(note: Path, token: str, target: Path | None, keep: Path) -> Path | None:
    """A note still set aside goes back under its name (or, moved to `target` already, is
    dropped); if the name is taken, into `keep` (returned)."""
    aside = _aside(note, token)
    if not os.path.lexists(aside):
        return None
    if target is not None and os.path.lexists(target) and os.path.samefile(aside, target):
        aside.unlink(missing_ok=True)  # the move reached its target
    elif _link(aside, note):
        aside.unlink(missing_ok=True)
        _fsync_dir(note.parent)
    else:
        return _keep(aside, keep, token)
    return None


@contextlib.contextmanager
def _journal(
    keep: Path, note: Path, new_hash: str, target: Path | None, memo: str, on_kept: Hook
) -> Iterator[str]:
    """A journal naming the write for `recover`, removed when the write is over (not when the
    process is killed; after an error, the note is put back first). Yields its token."""
    token = uuid.uuid4().hex
    keep.mkdir(parents=True, exist_ok=True)
    journal = keep / f"{token}{PENDING}"
    with _live_lock:
        _live.add(token)
    try:
        said = {"pid": os.getpid(), "note": str(note), "new": new_hash, "memo": memo,
                "target": "" if target is None else str(target)}  # fmt: skip
        journal.write_text(json.dumps(said), encoding="ascii")
        yield token
    finally:
        try:
            if (kept := _settle(note, token, target, keep)) is not None:
                on_kept(kept)
        finally:
            journal.unlink(missing_ok=True)
            with _live_lock:
                _live.discard(token)


def replace_file(
    path: Path,
    expected: bytes,
    new: bytes,
    keep: Path,
    memo: str = "",
    on_kept: Hook | None = None,
    on_replaced: Callable[[], None] | None = None,
) -> Swapped:
    """Put `new` in place of the note at `path`, which must still hold `expected`.
    `on_kept(file)`: a file went into `keep`; `on_replaced()`: `new` is in place. Both run
    before the journal goes (a kill in them leaves the journal for `recover`)."""
    if path.is_symlink():
        raise WriteError(f"{path.name} is a symbolic link; edit the note it points to")
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        raise StaleError(f"{path.name} was moved or deleted", None) from None
    tmp = _temp(path.parent, new, mode)
    at_point("temp")
    kept_hook = on_kept or _no_hook
    try:
        digest = hashlib.sha256(new).hexdigest()
        with _journal(keep, path, digest, None, memo, kept_hook) as token:
            aside = _set_aside(path, expected, keep, token, kept_hook, "as it was replaced")
            if not _link(tmp, path):
                current = _read(path)
                kept = _keep(aside, keep, token)  # the expected bytes, kept all the same
                if kept is not None:
                    kept_hook(kept)
                raise StaleError(
                    f"{path.name} was saved by another program meanwhile", current, kept
                )
            at_point("link")
            _fsync_dir(path.parent)
            kept = _keep(aside, keep, token)
            if kept is None:
                aside.unlink(missing_ok=True)
            else:
                kept_hook(kept)
            at_point("kept")
            if on_replaced is not None:
                on_replaced()
            return Swapped(kept)
    finally:
        tmp.unlink(missing_ok=True)


def _set_aside(path: Path, expected: bytes, keep: Path, token: str, hook: Hook, when: str) -> Path:
    """Take the note's name by renaming it aside, if it still holds `expected`; the file
    set aside is then checked again (a save can land between the read and the rename) and
    put back under its name when it changed. Returns where it was set aside."""
    now = _read(path)  # most saves by others land long before the swap: refused here
    if now != expected:
        why = "was moved or deleted" if now is None else "changed on disk since it was read"
        raise StaleError(f"{path.name} {why}", now)
    aside = _aside(path, token)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise StaleError(f"{path.name} was moved or deleted", None) from None
    at_point("aside")
    held = aside.read_bytes()
    if held != expected:
        kept = _put_back(aside, path, keep, token, hook)
        raise StaleError(f"{path.name} was saved by another program {when}", held, kept)
    return aside


def _put_back(aside: Path, path: Path, keep: Path, token: str, on_kept: Hook) -> Path | None:
    """The other program's file goes back under the note's name; if the name is taken
    again (a third save), the file set aside is kept for the history (returned)."""
    kept = None
    if _link(aside, path):
        aside.unlink(missing_ok=True)
    else:
        kept = _keep(aside, keep, token)
        if kept is not None:
            on_kept(kept)
    _fsync_dir(path.parent)
    return kept


def create_file(path: Path, data: bytes) -> None:
    """Write a new note at `path`, refusing if any file has that name. Atomic."""
    tmp = _temp(path.parent, data, 0o644)
    try:
        at_point("temp")
        if not _link(tmp, path):
            raise FileExistsError(path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def move_file(
    path: Path,
    expected: bytes,
    target: Path,
    keep: Path,
    memo: str = "",
    on_kept: Hook | None = None,
) -> None:
    """Move the note at `path` (holding `expected`) to `target`, never over a file there:
    a delete to the trash. Refused as stale, the note left in place, if it changed. The
    note's old name is taken first (a rename aside), so a save by rename meanwhile stays."""
    if path.is_symlink():
        raise WriteError(f"{path.name} is a symbolic link; not moved")
    target.parent.mkdir(parents=True, exist_ok=True)
    kept_hook = on_kept or _no_hook
    with _journal(keep, path, "", target, memo, kept_hook) as token:
        aside = _set_aside(path, expected, keep, token, kept_hook, "as it was moved")
        if not _link(aside, target):
            _put_back(aside, path, keep, token, kept_hook)
            raise WriteError(f"{target.name} already exists")
        at_point("moved")
        aside.unlink(missing_ok=True)  # a late write went to `target` (the same file), or
        # there are no hard links here and `_link` renamed the file set aside into `target`
        _fsync_dir(path.parent)
        _fsync_dir(target.parent)


def recover(keep: Path, settle: Callable[[Recovered], None] | None = None) -> list[Recovered]:
    """Finish the writes killed processes left half done: a note set aside goes back under
    its name when the name is free (a move that reached its target drops it), else into
    `keep`. `settle(recovered)` runs before the journal goes (the history takes the kept
    file and the dead writer's version). Safe to call from any thread or process at any
    time: the journals of live writes are left alone."""
    try:
        found = [Path(e.path) for e in os.scandir(keep) if e.name.endswith(PENDING)]
    except OSError:
        return []
    if not found:
        return []
    out: list[Recovered] = []
    with open(keep / ".recover.lock", "a+b") as lock:  # one recovery at a time
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        for journal in found:
            token = journal.name[: -len(PENDING)]
            with _live_lock:
                if token in _live:
                    continue
            said = _said(journal)
            if said is None:
                continue
            pid = said.get("pid")
            if isinstance(pid, int) and pid != os.getpid() and _alive(pid):
                continue
            if note_name := str(said.get("note") or ""):
                note, target = Path(note_name), str(said.get("target") or "")
                _settle(note, token, Path(target) if target else None, keep)
                kept = keep / f"{token}{KEPT}"
                new_hash, memo = str(said.get("new") or ""), str(said.get("memo") or "")
                done = Recovered(note, kept if kept.exists() else None, new_hash, memo)
                if settle is not None:
                    settle(done)
                out.append(done)
            journal.unlink(missing_ok=True)
    return out


def _said(journal: Path) -> dict[str, object] | None:
    """A journal's fields; None while it cannot be read (being written: its writer lives,
    or recovered meanwhile). One unreadable for a minute is a kill mid-write (before the
    note was touched): dropped."""
    try:
        said = json.loads(journal.read_text(encoding="ascii"))
        if isinstance(said, dict):
            return said
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pass
    with contextlib.suppress(OSError):
        if time.time() - journal.stat().st_mtime > 60:
            journal.unlink(missing_ok=True)
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
