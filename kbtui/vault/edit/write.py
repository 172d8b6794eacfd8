"""Writing notes into the vault: safe file names, atomic and never overwriting.

A note appears whole or not at all: the text goes to a temporary file in the target folder,
is fsynced, then hard-linked to its final name (link fails if the name exists, so a
collision can never overwrite a note) and the temporary name removed. Where hard links are
not supported, an exclusive create reserves the name and a rename fills it atomically.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

import yaml

_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]+')
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}
MAX_NAME_BYTES = 150
TEMP_PREFIX, TEMP_SUFFIX = ".kbtui-", ".tmp"
STALE_TEMP_SECONDS = 600  # a live write holds its temp file for well under a second


class WriteError(OSError):
    """A note could not be written; the message says why."""


def safe_filename(title: str) -> str:
    """A readable file stem for a title that cannot leave its folder or hide itself."""
    name = unicodedata.normalize("NFC", title)
    name = _UNSAFE.sub(" ", name)
    name = re.sub(r"\s+", " ", name).strip(" .")
    while len(name.encode()) > MAX_NAME_BYTES:
        name = name[:-1].rstrip(" .")
    if not name or set(name) <= {"."}:
        name = "Untitled"
    if name.lower() in _RESERVED:
        name += "_"
    return name


def inside(root: Path, path: Path) -> bool:
    """True when `path` resolves to a place under `root` (symlinks followed)."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def render_note(frontmatter: dict[str, Any], body: str) -> str:
    fm = yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{fm}---\n\n{body.rstrip()}\n"


def write_new_note(vault: Path, folder: str, stem: str, text: str) -> Path:
    """Write `text` to `<vault>/<folder>/<stem>.md`, or `<stem> 2.md`, ... if taken.

    Returns the path written. Raises WriteError if the folder would lie outside the vault.
    """
    target_dir = vault / folder
    if not inside(vault, target_dir):
        raise WriteError(f"the folder {folder!r} is outside the vault")
    target_dir.mkdir(parents=True, exist_ok=True)
    if not inside(vault, target_dir):  # a symlink created in between
        raise WriteError(f"the folder {folder!r} is outside the vault")
    data = text.encode()
    sweep_stale_temps(target_dir)
    fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=target_dir)
    tmp = Path(tmp_name)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the note from other tools
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        for n in range(1, 10_000):
            final = target_dir / (f"{stem}.md" if n == 1 else f"{stem} {n}.md")
            if _claim(tmp, final):
                _fsync_dir(target_dir)
                return final
        raise WriteError(f"no free file name for {stem!r} in {folder!r}")
    finally:
        tmp.unlink(missing_ok=True)


def sweep_stale_temps(folder: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove temp files a killed write left in `folder` (hidden, never indexed, but they
    would pile up in the user's folders). Only old ones: a write in flight keeps its own."""
    removed = 0
    cutoff = time.time() - older_than
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _claim(tmp: Path, final: Path) -> bool:
    """Give `tmp`'s content the name `final` unless that name exists. Atomic."""
    try:
        os.link(tmp, final)
        return True
    except FileExistsError:
        return False
    except OSError:  # no hard links here (some network and FAT filesystems)
        try:
            fd = os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        os.close(fd)
        os.replace(tmp, final)
        return True


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_note(path: Path, expected: bytes, text: str | bytes) -> None:
    """Atomically give an existing note new text, unless it changed since it was read.

    The new bytes go to a temporary file beside it and are renamed over it, so a reader (or a
    crash) sees the old note or the new one, never half of each.
    """
    if path.read_bytes() != expected:
        raise WriteError(f"{path.name} changed on disk while it was being edited; try again")
    sweep_stale_temps(path.parent)
    fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=path.parent)
    tmp = Path(tmp_name)
    try:
        os.fchmod(fd, path.stat().st_mode & 0o777)
        with os.fdopen(fd, "wb") as fh:
            fh.write(text if isinstance(text, bytes) else text.encode())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


ARCHIVE_FOLDER = ".archive"


def archive_note(vault: Path, rel_path: str, reason: str = "merged") -> str:
    """Move a note under `<vault>/.archive/<reason>/`, keeping its bytes; returns the new
    vault-relative path. Hidden folders are not indexed, so its names stop resolving."""
    source = vault / rel_path
    folder = vault / ARCHIVE_FOLDER / reason / Path(rel_path).parent
    folder.mkdir(parents=True, exist_ok=True)
    stem, suffix = Path(rel_path).stem, Path(rel_path).suffix
    for n in range(1, 10_000):
        target = folder / (f"{stem}{suffix}" if n == 1 else f"{stem} {n}{suffix}")
        try:
            os.link(source, target)
        except FileExistsError:
            continue
        source.unlink()
        _fsync_dir(folder)
        return target.relative_to(vault).as_posix()
    raise WriteError(f"no free archive name for {rel_path}")
