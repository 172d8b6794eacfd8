"""Typed messages: the seam between thread workers, widgets and screens.

Workers post them (`post_message` is thread-safe) instead of touching widgets, so every
change of what is shown happens on the event loop and tests can wait for it.
"""

from __future__ import annotations

import threading
from typing import Any

from textual.message import Message

Envelope = dict[str, Any]


class OpenNote(Message):
    """Show this entity's note (pushes the note view or navigates inside it); a PDF's hit
    names its `page`, shown first; a task names its `line` (and its text, to find it)."""

    def __init__(
        self, entity_id: str, page: int | None = None, line: int | None = None, text: str = ""
    ) -> None:
        super().__init__()
        self.entity_id = entity_id
        self.page = page
        self.line = line
        self.text = text


class ShowGraph(Message):
    """Open the graph view on a tab, centred on an entity when one is given."""

    def __init__(self, entity_id: str | None = None, tab: str = "neighbours") -> None:
        super().__init__()
        self.entity_id = entity_id
        self.tab = tab


class VaultReady(Message):
    """The VaultHandle is usable: screens load their first data."""


class VaultFailed(Message):
    """The vault could not be opened (e.g. its index is held by another process)."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class StatusUpdated(Message):
    """A fresh `VaultHandle.status()`."""

    def __init__(self, status: Envelope) -> None:
        super().__init__()
        self.status = status


class SearchDone(Message):
    """Results for one query (or the note list when the query is too short to search)."""

    def __init__(self, query: str, envelope: Envelope, seconds: float, browsing: bool) -> None:
        super().__init__()
        self.query = query
        self.envelope = envelope
        self.seconds = seconds
        self.browsing = browsing


class NoteLoaded(Message):
    """A note and its links, shown as soon as they are read: they need no search index."""

    def __init__(
        self,
        entity_id: str,
        note: Envelope,
        outgoing: Envelope,
        incoming: Envelope,
        drawn: threading.Event,
    ) -> None:
        super().__init__()
        self.entity_id = entity_id
        self.note = note
        self.outgoing = outgoing
        self.incoming = incoming
        self.drawn = drawn  # set once the view has drawn it (or given up on it)


class NoteDetails(Message):
    """A shown note's card, cluster and related passages (get_chunk), which come after it:
    the first of them loads the vectors and the topic clusters of the whole vault."""

    def __init__(self, entity_id: str, chunk: Envelope) -> None:
        super().__init__()
        self.entity_id = entity_id
        self.chunk = chunk
