"""kill -9 while a PDF is being read: the index opens undamaged, holds no part of that PDF,
and the next pass makes it equal a fresh build (bench/crashkit.py's `pdf` fault; the long
run is bench/crash_index.py, whose rounds add and change PDFs)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from kbtui.config import Settings
from kbtui.store import Store
from tests.conftest import REPO, copy_vault

sys.path.insert(0, str(REPO / "bench"))
from crashkit import KILLED, fresh_snapshot, index_snapshot, run_child
from crashpdf import add_pdfs


def test_killed_while_reading_a_pdf_leaves_none_of_it_then_converges(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    add_pdfs(vault, 0, random.Random(5))  # crash/manual.pdf, 30 pages
    for seed in (1, 2):  # dies at page 1-30 of the pass's PDFs: inside the manual
        killed = run_child("index", vault, "--fault", "pdf", "--seed", str(seed))
        assert killed.returncode == KILLED, killed.stderr[-2000:]
        _, recovered = index_snapshot(vault)
        assert recovered is None
        store = Store(Settings.for_vault(vault).db_path)
        try:
            paths = set(store.note_paths().values())
            assert "crash/manual.pdf" not in paths  # never half a PDF
            assert "Home.md" in paths  # the notes were written before the PDF was read
        finally:
            store.close()
    done = run_child("index", vault)
    assert done.returncode == 0, done.stderr[-2000:]
    after, _ = index_snapshot(vault)
    fresh = fresh_snapshot(vault, tmp_path / "fresh" / "vault")
    assert after.differences(fresh) == []
    store = Store(Settings.for_vault(vault).db_path)
    try:
        chunks = store.note_chunks("crash:manual_pdf")
        assert {c["heading"] for c in chunks} == {f"p. {n}" for n in range(1, 31)}
    finally:
        store.close()
