"""What the tools of one vault work with, composed once by the runtime.

Tools receive these parts rather than the object that composes and dispatches them, so no tool
module imports another's composer (no rings, type-only imports included).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from kbtui.config import Settings

if TYPE_CHECKING:  # types only: a one-shot read (`store_only`) imports none of them
    from kbtui.embed import Embedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.search.service import SearchService
    from kbtui.search.topics import TopicService
    from kbtui.store import Store
    from kbtui.store.history import History


@dataclass(frozen=True)
class VaultParts:
    settings: Settings
    store: Store
    embedder: Embedder | None
    search: SearchService
    indexer: Indexer
    topics: TopicService
    # Lets the store go while a tool reads only files (the unlinked-mentions scan of every
    # note): the owner's other callers use the store meanwhile. Nothing to let go without one.
    released: Callable[[], AbstractContextManager[None]] = nullcontext
    # Called often by long work while released: waits briefly while other calls are in
    # flight, so a search beside a scan keeps its latency (kbtui.runtime.traffic).
    pause: Callable[[], None] = lambda: None
    # Every version of the notes (kbtui.tools.write); None: opened on the first write.
    history: History | None = None
    # One note write at a time in this process (the write path's precondition and history).
    write_lock: threading.RLock = field(default_factory=threading.RLock)

    @classmethod
    def store_only(cls, settings: Settings, store: Store) -> VaultParts:
        """Parts for a one-shot read that needs only the index and the settings (a Dataview or
        Tasks query from the CLI: kbtui.runtime.reader): no model, search, indexer or topics
        are made (nor imported); a tool that reaches for one fails saying so."""
        absent = cast(Any, _NotOpen())
        return cls(settings, store, None, absent, absent, absent)


class _NotOpen:
    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"{name}: not open in a one-shot read (VaultParts.store_only)")
