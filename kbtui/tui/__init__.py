"""The Textual TUI. `run_app` is its composition root: the one place that builds the
VaultHandle the app talks to (everything else in kbtui.tui only sees the protocol)."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.indexing.model_choice import VaultEmbedder
from kbtui.runtime.runtime import VaultHandle
from kbtui.runtime.shared import START_WAIT, SharedVault, open_vault

log = logging.getLogger("kbtui.tui")


class VaultSession:
    """Opens vaults for the app and holds what it opened: one shared vault at a time.

    The app owns the index (watcher, socket for `kbtui mcp` and CLI commands) or, when
    another kbtui process has it open, works through that owner and takes over when it
    exits. `open` runs in a worker thread so the first frame never waits for the index or
    the model; switching vaults opens the new one before closing the old, so a vault that
    cannot be opened leaves the current one working."""

    def __init__(
        self,
        settings: Settings,
        make_embedder: Callable[[Settings], Embedder] | None = None,
        wait: float = START_WAIT,
    ) -> None:
        self.settings = settings
        self.make_embedder = make_embedder or VaultEmbedder
        self.wait = wait
        self._lock = threading.Lock()
        self._vault: SharedVault | None = None
        self._closed = False

    def open(self, vault: Path | None = None) -> VaultHandle:
        """The handle for `vault` (default: the configured one); raises StoreError,
        EmbedderError or OSError with a message meant for the user."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the app is closing")
            settings = self.settings
            if vault is not None:
                chosen = Settings.for_vault(vault)
                if not chosen.vault.is_dir():
                    raise FileNotFoundError(f"vault folder not found: {chosen.vault}")
                settings = dataclasses.replace(
                    self.settings, vault=chosen.vault, index_dir=chosen.index_dir
                )
            current = self._vault
            if current is not None and current.settings.vault == settings.vault:
                return current
            opened = open_vault(settings, lambda: self.make_embedder(settings), wait=self.wait)
            self._vault = opened
            self.settings = settings
        if current is not None:
            current.close()
        log.info("opened %s", settings.vault)
        return opened

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opened, self._vault = self._vault, None
        if opened is not None:
            opened.close()


def run_app(settings: Settings, review: bool = False) -> None:
    """Run the TUI on a vault until the user quits; the index is closed cleanly on exit.
    `review`: turn the vault's review mode on (assistants' writes wait for the person)."""
    from kbtui.tui.app import KbApp

    settings.index_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(  # never the terminal: the TUI owns it
        filename=settings.index_dir / "tui.log",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    session = VaultSession(settings)
    try:
        app = KbApp(opener=session.open, vault_name=settings.vault.name)
        app.start_review = review
        app.run()
    finally:
        session.close()
