"""In which order a pass reads the notes it must read, and in which groups it writes them."""

from __future__ import annotations

from kbtui.models import FileState
from kbtui.vault.attachments.pdf import is_pdf
from kbtui.vault.names import name_stem
from kbtui.vault.scan import is_note
from kbtui.vault.versions import preference

FIRST_GROUP = 16  # notes in the first group; the next ones double up to the write batch


def pass_order(
    todo: dict[str, FileState], write_batch: int
) -> tuple[list[FileState], list[tuple[int, int]]]:
    """The files of a pass in reading order, and the [start, end) of each group written
    together: every note first (newest first, `groups`), then attachments (by name only),
    then PDFs one a group, so a 1,000-page manual holds up nothing else."""
    order = recent_first({p: s for p, s in todo.items() if is_note(p)})
    bounds = groups(len(order), write_batch)
    files = recent_first({p: s for p, s in todo.items() if not is_note(p) and not is_pdf(p)})
    bounds += [(len(order) + i, len(order) + j) for i, j in groups(len(files), write_batch)]
    order += files
    bounds += [(n, n + 1) for n in range(len(order), len(todo))]
    order += recent_first({p: s for p, s in todo.items() if is_pdf(p)})
    return order, bounds


def recent_first(todo: dict[str, FileState]) -> list[FileState]:
    """Files to read, the most recently modified first (ties in path order).

    Which of two notes with the same id keeps it is decided by the order they are read in:
    the one outside version folders, else the newest version (vault/versions.py), else the
    first in path order. So notes whose file names could give the same id (the same slug)
    take the places the newest-first order gives their group in that order: in redis's docs
    the plain id went to `rs/7.22/...` (first in path order), now to `rs/...`. (A frontmatter
    `id:` equal to another note's id is not foreseen: the note read first keeps it.)
    """
    order = sorted(todo.values(), key=lambda s: (-s.mtime_ns, s.path))
    places: dict[str, list[int]] = {}
    for n, state in enumerate(order):
        places.setdefault(name_stem(state.path), []).append(n)
    for group in places.values():
        if len(group) > 1:
            by_path = sorted((order[n] for n in group), key=lambda s: preference(s.path))
            for n, state in zip(group, by_path, strict=True):
                order[n] = state
    return order


def groups(count: int, size: int) -> list[tuple[int, int]]:
    """[start, end) of each group of notes read and written together: small at first (the
    newest notes are searchable, and their vectors start, within a second), then `size`."""
    bounds, start, step = [], 0, min(FIRST_GROUP, size)
    while start < count:
        bounds.append((start, min(count, start + step)))
        start, step = start + step, min(size, step * 2)
    return bounds
