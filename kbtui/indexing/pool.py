"""Bulk embedding on several one-thread model sessions, each on a thread of its own.

At one text a model call (the default batch size), one session of two intra-op threads keeps
about one core busy: its threads mostly wait on each other. Two sessions of one thread, each
on its own thread, embed ~1.65x as many chunks a second on two cores, and every vector is the
one the single session gives (one text a call: a vector does not depend on anything else).

The sessions are made for a bulk run only (PendingEmbeddings: a first index, a big catch-up)
and released when it ends: queries keep the embedder's own session, and a server up all day
holds one. The caller hands a page of texts to `start()` and takes the vectors a batch at a
time with `take()`, which returns once the batch's texts are embedded, in order, while the
sessions go on with the rest of the page (committing a batch does not idle them).
`set_active()` changes how many sessions work (one fewer beside a text pass, which needs a
core of its own). A stop ends every thread at its next text; `close()` joins them all on
every path, and a failing session's error is raised on the caller's thread.

While a pool is open the interpreter hands its lock over every `SWITCH_INTERVAL` instead of
every 5 ms: beside the text pass (pure Python, holding the lock) a session waited up to 5 ms
for it after each model call and tokenisation, a few times a text. A one-thread session beside
a Python loop then embedded 40 chunks/s; at 0.5 ms 90-97 (alone 123), the loop 1-4% slower.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from kbtui import interpreter
from kbtui.embed import Embedder


class SessionPool:
    """`size` sessions made by `make()`, each on its own thread, of which `active` work."""

    def __init__(self, make: Callable[[], Embedder], size: int, active: int, dim: int) -> None:
        self._make = make
        self._dim = dim
        self._cond = threading.Condition()
        self._active = active
        self._texts: list[str] = []
        self._vectors = np.zeros((0, dim), dtype=np.float32)
        self._embedded: list[bool] = []
        self._next = 0  # the next text handed to a session
        self._prefix = 0  # texts [0, prefix) have their vectors
        self._busy = 0  # texts inside a model now
        self._stopped = False  # no text is handed out any more (a stop, an error, close)
        self._closing = False
        self.error: BaseException | None = None
        interpreter.hold()
        self._threads = [
            threading.Thread(target=self._work, args=(w,), name=f"kbtui-embed-{w}", daemon=True)
            for w in range(size)
        ]
        for thread in self._threads:
            thread.start()

    # -- the caller's side ----------------------------------------------------------------------
    def set_active(self, active: int) -> None:
        with self._cond:
            self._active = active
            self._cond.notify_all()

    def start(self, texts: list[str]) -> None:
        """Embed these texts, in order, from now on (the previous page is all taken)."""
        with self._cond:
            self._texts = texts
            self._vectors = np.zeros((len(texts), self._dim), dtype=np.float32)
            self._embedded = [False] * len(texts)
            self._next = self._prefix = 0
            self._cond.notify_all()

    def take(self, begin: int, end: int) -> np.ndarray:
        """The vectors of texts [begin, end), once embedded; after a stop, those of every text
        from `begin` embedded before it (the texts in a model are finished first), fewer or
        more than asked. Raises a session's error."""
        with self._cond:
            while self._prefix < end and not (self._stopped and self._busy == 0):
                self._cond.wait()
            if self.error is not None:
                raise self.error
            last = self._prefix if self._stopped else end
            return self._vectors[begin:last].copy()

    def stop(self) -> None:
        """No more texts: each session finishes the one it has and waits."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def close(self) -> None:
        """Stop and join every thread (each drops its session), whatever comes meanwhile: a
        Ctrl-C while joining is raised once all are joined."""
        with self._cond:
            self._stopped = self._closing = True
            self._cond.notify_all()
        interrupted: BaseException | None = None
        for thread in self._threads:
            while thread.is_alive():
                try:
                    thread.join()
                except BaseException as exc:  # joined all the same
                    interrupted = interrupted or exc
        if self._threads:
            interpreter.release()
        self._threads = []  # closed: a second close() changes nothing
        if interrupted is not None:
            raise interrupted

    # -- a session's thread -----------------------------------------------------------------
    def _work(self, w: int) -> None:
        session: Any = None
        try:
            with self._cond:  # made once it may work: beside a text pass, not before its end
                while not self._closing and (self._stopped or w >= self._active):
                    self._cond.wait()
                if self._closing:
                    return
            session = self._make()
            while True:
                with self._cond:
                    while not self._closing and (
                        self._stopped or w >= self._active or self._next >= len(self._texts)
                    ):
                        self._cond.wait()
                    if self._closing:
                        return
                    i, text = self._next, self._texts[self._next]
                    self._next += 1
                    self._busy += 1
                    vectors = self._vectors
                try:
                    vector = session.embed([text])[0]
                except BaseException:
                    with self._cond:
                        self._busy -= 1
                    raise
                with self._cond:  # recorded as it leaves the model: take() sees both at once
                    self._busy -= 1
                    if vectors is self._vectors:  # not a text of a page given up since
                        vectors[i] = vector
                        self._embedded[i] = True
                        while self._prefix < len(self._embedded) and self._embedded[self._prefix]:
                            self._prefix += 1
                    self._cond.notify_all()
        except BaseException as exc:  # raised on the caller's thread by take()
            with self._cond:
                self.error = self.error or exc
                self._stopped = True
                self._cond.notify_all()
        finally:
            del session  # released on its own thread, before the thread ends
