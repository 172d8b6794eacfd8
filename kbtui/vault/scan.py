"""Find the vault's notes with one stat each; reading happens only for changed files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kbtui.models import FileState, Skipped
from kbtui.vault.attachments.kinds import SUFFIXES as ATTACHMENT_SUFFIXES

IGNORED_DIRS = frozenset({".obsidian", ".git", ".trash", ".kbtui", "node_modules", "__pycache__"})
NOTE_SUFFIXES = (".md", ".markdown", ".canvas")  # canvases: kbtui.vault.canvas
# What the indexer holds: notes, PDFs (vault.attachments.pdf), attachments by name (.kinds)
INDEXED_SUFFIXES = (*NOTE_SUFFIXES, ".pdf", *ATTACHMENT_SUFFIXES)


def is_note(rel_path: str) -> bool:
    """A note read as text: markdown or a canvas (not a PDF or an attachment)."""
    return rel_path.lower().endswith(NOTE_SUFFIXES)


MARKDOWN_SUFFIXES = (".md", ".markdown")


def is_markdown(rel_path: str) -> bool:
    """A markdown note: the only kind of file kbtui's writes edit or move, and the only
    kind a wikilink names without its suffix (`[[x.canvas]]`, `[[paper.pdf]]`)."""
    return rel_path.lower().endswith(MARKDOWN_SUFFIXES)


def is_ignored(rel_path: str) -> bool:
    """True for paths the index never holds: hidden or tool folders, files not indexed."""
    parts = rel_path.split("/")
    if any(p.startswith(".") or p in IGNORED_DIRS for p in parts):
        return True
    return not parts[-1].lower().endswith(INDEXED_SUFFIXES)


def scan_vault(
    vault: Path, index_dir: Path | None = None, suffixes: tuple[str, ...] = NOTE_SUFFIXES
) -> tuple[dict[str, FileState], list[Skipped]]:
    """Return {relative posix path: FileState} of every file named with one of `suffixes`
    (notes; the indexer asks for PDFs too), plus unreadable entries.

    Folder symlinks are not followed (no loops, no escaping the vault); file symlinks are.
    """
    found: dict[str, FileState] = {}
    problems: list[Skipped] = []
    skip_dir = index_dir.resolve() if index_dir else None
    stack = [(str(vault), "")]  # (folder, its path relative to the vault + "/"): no Path per file
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            problems.append(
                Skipped(prefix.rstrip("/") or ".", f"cannot list folder: {exc.strerror}")
            )
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in IGNORED_DIRS:
                continue
            rel = prefix + name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if skip_dir is None or Path(entry.path).resolve() != skip_dir:
                        stack.append((entry.path, rel + "/"))
                    continue
                if not name.lower().endswith(suffixes):
                    continue
                st = entry.stat(follow_symlinks=True)
            except OSError as exc:
                problems.append(Skipped(rel, f"cannot stat: {exc.strerror or exc}"))
                continue
            if stat.S_ISDIR(st.st_mode):
                continue  # a symlink to a folder named like a note
            if not stat.S_ISREG(st.st_mode):  # reading a FIFO would wait for a writer forever
                problems.append(Skipped(rel, f"not a regular file ({_kind(st.st_mode)})"))
                continue
            found[rel] = FileState(path=rel, size=st.st_size, mtime_ns=st.st_mtime_ns)
    return found, problems


def stat_files(vault: Path, paths: list[str]) -> dict[str, FileState]:
    """FileState of each of these vault-relative paths that exists."""
    files = {}
    for path in paths:
        try:
            st = (vault / path).stat()
        except OSError:
            continue
        files[path] = FileState(path, st.st_size, st.st_mtime_ns)
    return files


def vault_folders(vault: Path, limit: int = 20_000) -> list[str]:
    """The vault's folders as vault paths, sorted (hidden and tool folders left out, as the
    scan leaves them; symlinked folders not followed): where a new note may go."""
    found: list[str] = []
    stack = [(str(vault), "")]
    while stack and len(found) < limit:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in IGNORED_DIRS:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    found.append(prefix + name)
                    stack.append((entry.path, prefix + name + "/"))
            except OSError:
                continue
    return sorted(found[:limit], key=str.casefold)


class NotAFileError(OSError):
    """The path names a FIFO, socket or device, not a note file."""


def read_note_bytes(path: Path, limit: int) -> bytes:
    """The file's bytes, or OSError. Opened without blocking and checked after opening: a
    note swapped for a FIFO between the scan and the read must not hang the indexer."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFileError(f"not a regular file ({_kind(st.st_mode)})")
        if st.st_size > limit:
            raise NotAFileError(f"too large ({st.st_size / 1e6:.1f} MB; the limit is "
                                f"{limit / 1e6:.0f} MB)")  # fmt: skip
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(limit + 1)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):  # fmt: skip
        if test(mode):
            return name
    return "not a file"
