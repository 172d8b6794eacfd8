"""What every full screen shares: the status bar and footer, and a typed view of the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from kbtui.tui.widgets.status import StatusBar

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp


class KbScreen(Screen[None]):
    """A screen with the live status bar and the footer under its own widgets."""

    def compose(self) -> ComposeResult:
        yield from self.compose_body()
        yield StatusBar(id="status-bar")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    @property
    def kb(self) -> KbApp:
        return cast("KbApp", self.app)

    def show_status(self, status: dict[str, Any] | None) -> None:
        for bar in self.query(StatusBar):
            bar.show(status)

    def on_screen_resume(self) -> None:
        self.show_status(self.kb.last_status)

    def vault_ready(self) -> None:
        """Load this screen's data; called once the vault is usable (and after a switch)."""

    def index_changed(self) -> None:
        """The indexer changed notes in the background; refresh what may be stale."""

    def notes_written(self) -> None:
        """A note was written (the history grew), by this app or another process: an
        assistant's edit through `kbtui mcp` is indexed without a pass of the indexer."""
