"""One vault shared by every kbtui process on it: the handle front ends should open.

`open_vault` (long-lived: MCP server, TUI) and `open_vault_once` (a CLI command) return a
`SharedVault`. It tries to own the vault (open the DuckDB file: the lock decides) and then
serves it to the others on a socket (kbtui.runtime.owner); when the file is held it becomes
a client of the owner (kbtui.runtime.remote). A held file with no answering socket means an
owner is starting or a one-shot command is finishing: it retries both for `wait` seconds.

Takeover: when the owner exits, a client opens the file itself (watcher, catch-up pass,
socket) and repeats the call in flight. Racing clients: one wins the lock, the others connect
to it. A call that may already have run on the dead owner is repeated only when repeating it
is harmless (reads); a write then gets an error saying it may have been applied, so a write
never lands twice.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kbtui.config import Settings
from kbtui.models import IndexReport
from kbtui.runtime.owner import OwnerServer, OwnerUnavailable, read_record
from kbtui.runtime.remote import OwnerGone, RemoteError, RemoteVault
from kbtui.runtime.runtime import VaultClosed, VaultHandle, VaultRuntime
from kbtui.store import StoreLockedError
from kbtui.tools.catalog import PUBLISHED, READS
from kbtui.tools.envelope import UnavailableError, failure, guarded

if TYPE_CHECKING:  # a client of another process's index loads neither DuckDB nor the model
    from kbtui.embed import Embedder
    from kbtui.indexing.indexer import Progress

log = logging.getLogger("kbtui.shared")

START_WAIT = 15.0  # an owner opening a big index, or a one-shot command finishing
EmbedderFactory = Callable[[], "Embedder | None"]
T = TypeVar("T")

# Calls that change nothing but usage counters: safe to run again on the next owner.
REPEATABLE = READS | {
    "app_facets",
    "app_list_entities",
    "app_entity_labels",
    "app_reindex",
    "app_sql",
    "app_note_mentions",
    "app_search",
}

_owned: set[str] = set()  # index folders this process owns (DuckDB would let it open twice)
_owned_lock = threading.Lock()


def repeatable(name: str, args: dict[str, Any] | None) -> bool:
    """True when running the call twice has the effect of running it once: a read, or a call
    of a writing tool that only reads (its contract's `effects.read_when`: no persist, a dry
    run)."""
    spec = PUBLISHED.get(name)
    return name in REPEATABLE or (spec is not None and spec.reads(args))


def open_vault(
    settings: Settings, embedder_factory: EmbedderFactory, *, watch: bool = True,
    wait: float = START_WAIT, background: bool = False,
) -> SharedVault:  # fmt: skip
    """For a long-lived front end (MCP server, TUI). As the owner: watcher, a catch-up pass
    at start, the socket. As a client: watches the owner and takes over the moment it exits.
    `embedder_factory` is called only when this process comes to own the vault. With
    `background` the handle is returned at once and opens on a thread; calls wait for it."""
    return SharedVault(
        settings, embedder_factory, long_lived=True, watch=watch, wait=wait, background=background
    )


def open_vault_once(
    settings: Settings, embedder_factory: EmbedderFactory, *, wait: float = START_WAIT
) -> SharedVault:
    """For one command: the owner's handle if there is one, else the file opened here (no
    watcher, no pass at start; served to others while it is open when it has a model)."""
    return SharedVault(settings, embedder_factory, long_lived=False, watch=False, wait=wait)


class SharedVault:
    """A `VaultHandle` that owns the vault or reaches its owner, and takes over from it."""

    def __init__(
        self,
        settings: Settings,
        embedder_factory: EmbedderFactory,
        *,
        long_lived: bool,
        watch: bool,
        wait: float = START_WAIT,
        background: bool = False,
    ) -> None:
        self.settings = settings
        self.long_lived = long_lived
        self.watch = watch
        self.wait = wait
        self.background = background  # a spawned server: its first answer comes first
        self._factory = embedder_factory
        self._embedder: Embedder | None = None
        self._made_embedder = False
        self._lock = threading.RLock()
        self._closed = False
        self.runtime: VaultRuntime | None = None
        self.server: OwnerServer | None = None
        self.remote: RemoteVault | None = None
        if background:
            opener = threading.Thread(target=self._open_in_background, name="kbtui-open")
            opener.daemon = True
            opener.start()
        else:
            with self._lock:
                self._acquire()

    @property
    def role(self) -> str:
        """Either "owner" (this process has the index open) or "client" (it uses another's)."""
        return "owner" if self.runtime is not None else "client"

    @property
    def owner_pid(self) -> int:
        return self.remote.owner_pid if self.remote is not None else os.getpid()

    @property
    def closing(self) -> bool:
        return self._closed

    # -- VaultHandle ---------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """One tool call wherever the index is; never raises (the envelope says what failed)."""
        spec = PUBLISHED.get(name)
        empty = spec.empty if spec is not None else None
        try:
            return self._run(lambda h: h.call(name, args), repeatable(name, args))
        except OwnerGone as exc:
            if not exc.maybe_done or repeatable(name, args):  # two owners went away in a row
                return failure(UnavailableError(f"the index is unavailable: {exc}"), empty)
            gone = UnavailableError(
                f"the kbtui process that had the vault open exited during {name}; the change "
                "may have been applied: look before repeating it"
            )
            gone.retryable = False
            return failure(gone, empty)
        except (OwnerUnavailable, VaultClosed) as exc:
            return failure(UnavailableError(f"the index is unavailable: {exc}"), empty)
        except RemoteError as exc:  # a bug on one side of the socket
            bug = exc
            return guarded(lambda: _raise(bug), name, empty)

    def note_page(self, start: int, size: int) -> tuple[list[dict[str, Any]], int]:
        return self._run_or_raise(lambda h: h.note_page(start, size))

    def status(self) -> dict[str, Any]:
        """The owner's status plus this process's role; never raises."""
        try:
            status = self._run_or_raise(lambda h: h.status())
        except OwnerUnavailable as exc:
            status = {
                "vault": str(self.settings.vault),
                "pid": None,
                "index": {"state": f"unavailable: {exc}"},
                "stats": {},
            }
        server = self.server
        if server is not None:
            status["clients"] = server.clients
        return {**status, "role": self.role, "process": os.getpid()}

    def reindex(self, embed: bool = True, progress: Progress | None = None) -> IndexReport:
        """An incremental pass: here (with `progress`) as the owner, else by the owner."""
        runtime = self.runtime
        if runtime is not None and progress is not None:
            return runtime.reindex(embed, progress)
        return self._run_or_raise(lambda h: h.reindex(embed))

    def close(self) -> None:
        """Release what this process holds; as the owner, clients take over once the index
        is closed (answers being computed are sent first)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            runtime, server, remote = self.runtime, self.server, self.remote
        if remote is not None:
            remote.close()
        if server is not None:
            server.stop_accepting()
        if runtime is not None:
            runtime.close()
            with _owned_lock:
                _owned.discard(str(self.settings.index_dir))
        if server is not None:
            server.close()
        wait_for_model = getattr(self._embedder, "wait_for_preload", None)
        if callable(wait_for_model):  # an open that failed may have left it loading:
            wait_for_model()  # an interpreter exiting under an import aborts

    def __enter__(self) -> SharedVault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- owning, connecting, taking over -------------------------------------------------
    def _run(self, work: Callable[[VaultHandle], T], safe_to_repeat: bool) -> T:
        """`work` on the current handle; once more on the next owner if this one went away
        before it ran (or it may have run and repeating is harmless)."""
        handle = self._current()
        try:
            return work(handle)
        except OwnerGone as gone:
            if gone.maybe_done and not safe_to_repeat:
                raise
            log.info("the owner went away (%s); repeating the request", gone)
            self._takeover(handle)
        return work(self._current())

    def _run_or_raise(self, work: Callable[[VaultHandle], T]) -> T:
        try:
            return self._run(work, True)
        except (OwnerGone, RemoteError, VaultClosed) as exc:
            raise OwnerUnavailable(f"the index is unavailable: {exc}") from exc

    def _current(self) -> VaultHandle:
        with self._lock:
            if self._closed:
                raise VaultClosed("this vault handle is closed")
            if self.runtime is None and self.remote is None:
                self._acquire_or_say_why()  # an open or takeover that failed: try again now
            handle: VaultHandle | None = self.runtime or self.remote
            assert handle is not None
            return handle

    def _takeover(self, old: VaultHandle) -> None:
        with self._lock:
            if self._closed or self.remote is not old or self.remote is None:
                return  # closing, or another thread has already moved on
            log.info("the owner (pid %s) is gone: taking over", self.remote.owner_pid)
            self.remote.close()
            self.remote = None
            self._acquire()

    def _watched_owner_gone(self, remote: RemoteVault) -> None:
        try:
            self._takeover(remote)
        except Exception:  # the next call tries again; say why now
            log.exception("cannot take over the vault")

    def _open_in_background(self) -> None:
        with self._lock:  # calls wait on this lock until the vault is open
            if self._closed or self.runtime is not None or self.remote is not None:
                return
            try:
                self._acquire()
            except Exception as exc:  # every call says why, and tries again
                log.error("cannot open the index of %s: %s", self.settings.vault, exc)

    def _acquire_or_say_why(self) -> None:
        """`_acquire` for a call: a failure (a damaged index, no model) is the call's answer."""
        try:
            self._acquire()
        except OwnerUnavailable:
            raise
        except Exception as exc:
            why = f"cannot open the index of {self.settings.vault}: {exc}"
            raise OwnerUnavailable(why) from exc

    def _acquire(self) -> None:
        """Become the client of a live owner or the owner; retries while the file is held
        and nobody answers (an owner starting, a one-shot command ending)."""
        deadline = time.monotonic() + self.wait
        delay = 0.02
        while True:
            remote = RemoteVault.connect(self.settings)
            if remote is not None:
                on_gone = functools.partial(self._watched_owner_gone, remote)
                if not self.long_lived or remote.watch(on_gone):
                    self.remote = remote
                    log.info("using the vault through kbtui process %s", remote.owner_pid)
                    return
                remote.close()
            try:
                self._own()
                return
            except StoreLockedError:
                pass
            if time.monotonic() >= deadline:
                pid = read_record(self.settings.index_dir).get("pid")
                raise OwnerUnavailable(
                    f"the index {self.settings.db_path} is open in another process"
                    + (f" (pid {pid} last owned it)" if pid else "")
                    + " that does not share it (an older kbtui, a DuckDB shell?); "
                    "close it and retry"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.25)

    def _own(self) -> None:
        key = str(self.settings.index_dir)
        with _owned_lock:
            if key in _owned:  # DuckDB would open it again in this process: use its socket
                raise StoreLockedError(f"{key} is open in this process")
            embedder = self._get_embedder()
            preload = getattr(embedder, "preload", None)
            if self.long_lived and callable(preload):
                preload()  # the model loads while DuckDB opens the index
            runtime = VaultRuntime(
                self.settings, embedder, watch=self.watch, approximate=self.long_lived
            )
            _owned.add(key)
        server = OwnerServer(runtime) if embedder is not None else None
        try:
            if server is not None:  # a handle without the model could not answer in full
                try:
                    server.start()
                except (OSError, OwnerUnavailable) as exc:  # this process still works
                    log.warning("cannot share the vault with other kbtui processes: %s", exc)
                    server.close()
                    server = None
            runtime.start(catch_up=self.long_lived, first_answer_first=self.background)
        except BaseException:
            if server is not None:
                server.stop_accepting()
            runtime.close()
            with _owned_lock:
                _owned.discard(key)
            if server is not None:
                server.close()
            raise
        self.runtime, self.server = runtime, server
        log.info("opened the index of %s (this process owns it)", self.settings.vault)

    def _get_embedder(self) -> Embedder | None:
        if not self._made_embedder:
            self._embedder = self._factory()
            self._made_embedder = True
        return self._embedder


def _raise(exc: Exception) -> dict[str, Any]:
    raise exc
