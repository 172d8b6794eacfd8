"""A note edited by another program on the caller's behalf (the TUI's `e`: $VISUAL/$EDITOR),
taken into the write path: the bytes before go to the history when the note is handed over,
the bytes after are recorded as the caller's edit when it comes back, and the index is updated.
The other program writes the file itself; kbtui writes nothing here."""

from __future__ import annotations

from kbtui.textdiff import content_hash, line_changes
from kbtui.tools.envelope import NotFoundError
from kbtui.tools.write.origin import current
from kbtui.tools.write.service import NoteWriter, WriteResult
from kbtui.vault.edit.codec import EncodingError, decode_for_edit

EDITED = "edited in $EDITOR"


def hand_over(writer: NoteWriter, path: str, operation: str = EDITED) -> str:
    """The note is about to be edited by another program for the current origin: its bytes
    go to the history now, and until `took_in` whatever the indexer sees of it (the editor's
    saves, found by the watcher) is recorded as the origin's `operation`, not as an outside
    edit. Returns the hash of the bytes handed over."""
    writer.check_scope(path)
    with writer._writing():
        raw = _raw(writer, path)
        writer.history.observe([(path, raw)])
        writer.history.attribute(path, current().source, operation)
    return content_hash(raw)


def took_in(
    writer: NoteWriter, path: str, before: bytes | None, operation: str = EDITED
) -> WriteResult:
    """The note back from the other program: `before` (what it was handed) in the history
    first, then the file as it is now recorded as the current origin's `operation`, and the
    index updated before the answer. Nothing is written to the note."""
    source = current().source
    with writer._writing():
        history = writer.history
        history.attribute(path, None)
        if before is not None and content_hash(before) not in {
            v.hash for v in history.versions(path)
        }:
            history.observe([(path, before)])
        try:
            now: bytes | None = _raw(writer, path)
        except NotFoundError:  # deleted in the editor
            now = None
        added, removed = line_changes(_text(before), _text(now))
        now_hash = None if now is None else content_hash(now)
        was = None if before is None else content_hash(before)
        newest = history.newest(path)
        if newest is None or newest.hash != now_hash:
            history.record(path, now, source, operation, added, removed)
        elif now_hash != was and (newest.source, newest.operation) != (source, operation):
            history.record(path, now, source, operation, added, removed)  # named as its own
        writer._index([path])
        return WriteResult(path, now_hash, was, added, removed)


def _raw(writer: NoteWriter, path: str) -> bytes:
    try:
        return writer.file(path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise NotFoundError(f"{path} does not exist") from None


def _text(data: bytes | None) -> str:
    """A note's text, to count the lines that changed (lossy where the codec refuses)."""
    if data is None:
        return ""
    try:
        return decode_for_edit(data).text
    except EncodingError:
        return data.decode("utf-8", errors="replace")
