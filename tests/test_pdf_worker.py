"""A big PDF's embedding gives way to a note saved meanwhile (kbtui.indexing.worker): the
note is written within a pass, the PDF's vectors go on in the next one; nothing is lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.watcher import ChangeBatch
from kbtui.indexing.worker import IndexWorker
from kbtui.store import Store
from tests.pdf_kit import make_pdf


class SlowEmbedder(HashEmbedder):
    """The fake model at a few ms a text: a 120-page PDF embeds for seconds."""

    def embed(self, texts: list[str]) -> np.ndarray:
        time.sleep(0.02 * len(texts))
        return super().embed(texts)


def wait(check, timeout: float = 120) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def test_a_note_saved_while_a_big_pdf_embeds_is_written_first(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Home.md").write_text("# Home\n\nStart here.\n")
    pages = [f"Page {n} of the manual. " + "gasket valve torque " * 60 for n in range(120)]
    make_pdf(vault / "manual.pdf", pages)
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    lock = threading.RLock()
    worker = IndexWorker(settings, store, SlowEmbedder(), lock)
    worker.start()
    try:

        def pending() -> int:
            with lock:
                return store.count_pending()

        def stats() -> dict[str, int]:
            with lock:
                return store.stats()

        assert wait(lambda: worker.status()["state"] == "embedding" and 0 < pending() < 500)
        (vault / "Saved.md").write_text("# Saved\n\nWritten while the manual embeds.\n")
        worker.submit(ChangeBatch(paths=("Saved.md",)))

        def saved() -> bool:
            with lock:
                return "note:saved" in store.note_paths()

        assert wait(saved, 30)
        with lock:
            embedded = store.stats()["embedded"]
            pdf_chunks = len(store.note_chunks("note:manual_pdf"))
        assert embedded < pdf_chunks  # the note came before the PDF's last vectors
        assert wait(lambda: worker.idle() and pending() == 0)
        counts = stats()
        assert counts["chunks"] == counts["embedded"] > 120
    finally:
        worker.stop()
        store.close()
