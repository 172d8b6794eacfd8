"""What a dry run would write, for whoever asks (review mode keeps it as a proposal).

NoteWriter's dry runs report here the note's bytes before and the bytes the write would
leave; `dry_runs()` collects them for the calls made inside it, on this thread or task."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

# (path, bytes before or None, bytes after or None): what a dry run would write
DryRun = tuple[str, bytes | None, bytes | None]
_SEEN: ContextVar[list[DryRun] | None] = ContextVar("kbtui_dry_runs", default=None)


@contextlib.contextmanager
def dry_runs() -> Iterator[list[DryRun]]:
    """Collects, for each dry run inside, the note's bytes before and the bytes the write
    would leave (None: no file): what a review keeps of a proposed write."""
    seen: list[DryRun] = []
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)


def record(path: str, before: bytes | None, after: bytes | None) -> None:
    seen = _SEEN.get()
    if seen is not None:
        seen.append((path, before, after))
