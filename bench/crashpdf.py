"""PDFs in the crash suite (bench/crashkit.py): the PDFs a user adds and changes between
passes, and the `pdf` fault, a kill while a PDF's pages are being read."""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Callable
from pathlib import Path

from pdf_corpus import book  # a sibling script: bench/ is on sys.path


def dying_on_page(clean: Callable[[str], str], page: int) -> Callable[[str], str]:
    """kbtui.vault.attachments.pdf.clean_page, killing the process at the `page`-th page read."""
    read = [0]

    def clean_then_die(text: str) -> str:
        read[0] += 1
        if read[0] >= page:
            os.kill(os.getpid(), signal.SIGKILL)
        return clean(text)

    return clean_then_die


def add_pdfs(vault: Path, round_no: int, rng: random.Random) -> list[str]:
    """A user's PDFs: a manual rewritten each round (a changed PDF), a new one each round."""
    folder = vault / "crash"
    folder.mkdir(exist_ok=True)
    book(folder / "manual.pdf", 30 + 5 * round_no, seed=round_no)
    if round_no:
        book(folder / f"paper {round_no}.pdf", rng.randint(3, 20), seed=100 + round_no)
    return ["pdfs"]
