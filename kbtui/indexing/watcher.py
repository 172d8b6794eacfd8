"""Live watching: file-system events become batches of changed vault paths (notes, and any
other file for its `file.*` facts), indexed in the background.

Two parts, each testable alone:
- `ChangeBatcher` filters events (what the scanner ignores is ignored here too), debounces them
  (a batch goes out after a quiet period, or after `max_wait` during a continuous storm) and
  coalesces them into one set of vault-relative paths handed to a plain callback. Past
  `max_paths` paths it stops remembering them and asks for a full rescan instead, so an event
  storm (a `git checkout`, a sync client) costs bounded memory.
- `VaultWatcher` feeds a watchdog observer into a batcher and flushes it from a timer thread.
The thread that indexes the batches is kbtui.indexing.worker.IndexWorker.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from kbtui.vault.files import is_vault_file
from kbtui.vault.scan import IGNORED_DIRS

log = logging.getLogger("kbtui.watcher")


class _StopRace(logging.Filter):
    """watchdog's inotify emitter logs an ERROR when its read returns after `stop()` (a race
    inside watchdog, harmless: the event is dropped as it should be); every `kbtui mcp`
    exit printed it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "called when the thread is inactive" not in record.getMessage()


logging.getLogger("watchdog.observers.inotify").addFilter(_StopRace())

# A save is one burst of events within milliseconds (write in place, or write a temporary
# file and rename it); 0.1 s of quiet ends it. Longer storms (a sync client, git) come as
# several batches at worst, each indexing only its own notes. It was 0.3 s: most of the
# 0.5 s a save may take to become searchable (issue 18).
QUIET_SECONDS = 0.1
MAX_WAIT_SECONDS = 3.0
MAX_PATHS = 2000
# Only events that can change what a note says. Opened / closed-without-write are left out:
# the indexer reading a note must not wake the watcher up.
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    *(FileCreatedEvent, FileModifiedEvent, FileClosedEvent, FileDeletedEvent, FileMovedEvent),
    *(DirCreatedEvent, DirDeletedEvent, DirMovedEvent),
]


@dataclass(frozen=True)
class ChangeBatch:
    """Vault-relative posix paths that changed (both ends of a rename), or `rescan`: check
    everything (a folder moved, or too many paths to list)."""

    paths: tuple[str, ...] = ()
    rescan: bool = False


BatchCallback = Callable[[ChangeBatch], None]


class ChangeBatcher:
    """Debounce and coalesce raw paths into `ChangeBatch`es. Thread-safe; `clock` is
    injectable so tests drive time by hand."""

    def __init__(
        self,
        vault: Path,
        callback: BatchCallback,
        *,
        index_dir: Path | None = None,
        quiet: float = QUIET_SECONDS,
        max_wait: float = MAX_WAIT_SECONDS,
        max_paths: int = MAX_PATHS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = os.path.realpath(vault)
        self.callback = callback
        self.quiet, self.max_wait, self.max_paths = quiet, max_wait, max_paths
        self.clock = clock
        self._index_dir = os.path.realpath(index_dir) if index_dir is not None else None
        self._lock = threading.Lock()
        self._paths: set[str] = set()
        self._rescan = False
        self._first = self._last = 0.0
        self.wake = threading.Event()  # set when a batch starts: the flush timer sleeps till then

    # -- input ----------------------------------------------------------------------------
    def relative(self, path: str | bytes) -> str | None:
        """The vault-relative posix path, or None for anything outside the vault or ignored."""
        text = os.fsdecode(path)
        if self._index_dir is not None and _inside(text, self._index_dir):
            return None
        if not _inside(text, self.root) or text == self.root:
            return None
        return text[len(self.root) + 1 :].replace(os.sep, "/")

    def add_event(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if event.is_directory:
            if kind in ("created", "deleted", "moved") and any(
                (rel := self.relative(p)) is not None and not _ignored_dir(rel)
                for p in (event.src_path, event.dest_path)
                if p
            ):
                self.add_rescan()  # a folder's notes appeared, vanished or moved at once
            return
        if kind not in ("created", "modified", "closed", "deleted", "moved"):
            return
        ends = (event.src_path, event.dest_path) if kind == "moved" else (event.src_path,)
        self.add_paths(rel for p in ends if p and (rel := self.relative(p)) is not None)

    def add_paths(self, paths: Iterable[str]) -> None:
        """Queue vault-relative paths; those in hidden or tool folders are dropped. Every other
        file counts, notes or not: a .zip or .psd is a `file.*` row of the index
        (kbtui.indexing.files_sync) that a base over attachments lists."""
        notes = [p for p in paths if is_vault_file(p)]
        if not notes:
            return
        with self._lock:
            self._touch()
            if not self._rescan:
                self._paths.update(notes)
                if len(self._paths) > self.max_paths:
                    self._rescan, self._paths = True, set()

    def add_rescan(self) -> None:
        with self._lock:
            self._touch()
            self._rescan, self._paths = True, set()

    def _touch(self) -> None:
        now = self.clock()
        if not self._rescan and not self._paths:
            self._first = now
            self.wake.set()
        self._last = now

    # -- output ---------------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        with self._lock:
            return self._rescan or bool(self._paths)

    def due_in(self) -> float | None:
        """Seconds until the pending batch is due (0: now), None when nothing is pending."""
        with self._lock:
            if not (self._rescan or self._paths):
                return None
            due = min(self._last + self.quiet, self._first + self.max_wait)
            return max(0.0, due - self.clock())

    def poll(self) -> ChangeBatch | None:
        """Hand the batch to the callback if the vault has been quiet long enough (or events
        have kept coming for `max_wait`); returns what was handed over."""
        with self._lock:
            if not (self._rescan or self._paths):
                return None
            now = self.clock()
            if now - self._last < self.quiet and now - self._first < self.max_wait:
                return None
            batch = self._take()
        self.callback(batch)
        return batch

    def flush(self) -> ChangeBatch | None:
        """Hand over whatever is pending now, quiet or not."""
        with self._lock:
            if not (self._rescan or self._paths):
                return None
            batch = self._take()
        self.callback(batch)
        return batch

    def _take(self) -> ChangeBatch:
        batch = ChangeBatch(() if self._rescan else tuple(sorted(self._paths)), self._rescan)
        self._paths, self._rescan = set(), False
        return batch


class _Handler(FileSystemEventHandler):
    def __init__(self, batcher: ChangeBatcher) -> None:
        self.batcher = batcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            self.batcher.add_event(event)
        except Exception:  # a watcher that dies silently is worse than a logged bad event
            log.exception("cannot handle file event %r", event)


class VaultWatcher:
    """A watchdog observer over the vault plus a timer thread that flushes the batcher."""

    def __init__(
        self,
        vault: Path,
        callback: BatchCallback,
        *,
        index_dir: Path | None = None,
        quiet: float = QUIET_SECONDS,
    ) -> None:
        self.vault = vault
        self.batcher = ChangeBatcher(vault, self._deliver, index_dir=index_dir, quiet=quiet)
        self._callback = callback
        self._observer: Any = None
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        """True while the filesystem observer runs (between start and stop)."""
        return self._observer is not None and self._observer.is_alive()

    def start(self) -> bool:
        """Start watching; False (with a warning) when the OS refuses, e.g. inotify limits."""
        observer = Observer()
        try:
            observer.schedule(
                _Handler(self.batcher),
                self.batcher.root,
                recursive=True,
                event_filter=WATCHED_EVENTS,
            )
            observer.start()
        except OSError as exc:
            log.warning(
                "cannot watch %s (%s); changes are picked up at the next start", self.vault, exc
            )
            return False
        self._observer = observer
        self._timer = threading.Thread(target=self._flush_loop, name="watch-flush", daemon=True)
        self._timer.start()
        log.info("watching %s", self.vault)
        return True

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.batcher.wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
        if self._timer is not None:
            self._timer.join(timeout)

    def _flush_loop(self) -> None:
        """Sleep until a batch starts, then until it is due: no wake-ups while idle, and no
        polling delay on top of the debounce."""
        batcher = self.batcher
        while not self._stop.is_set():
            batcher.wake.clear()
            delay = batcher.due_in()
            if delay is None:
                batcher.wake.wait()
            elif delay > 0:
                self._stop.wait(delay)
            else:
                batcher.poll()

    def _deliver(self, batch: ChangeBatch) -> None:
        try:
            self._callback(batch)
        except Exception:
            log.exception("change callback failed")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _ignored_dir(rel: str) -> bool:
    return any(p.startswith(".") or p in IGNORED_DIRS for p in rel.split("/"))
