"""The unlinked-mentions scan reads every note's file; it lets the store go meanwhile, so a
search (or a save) never waits for it (it held the lock 2-28 s on a 6.6k-note vault).

The scan is held mid-read by a note that is a named pipe: reading it blocks until the test
writes to it, so "the scan is still running" is a fact, not a timing guess.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from kbtui.embed import HashEmbedder
from tests.conftest import open_runtime


def test_searches_answer_while_a_mentions_scan_reads_files(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people" / "ada.md").write_text("# Ada\nAda Lovelace wrote the first program.\n")
    (vault / "zz_slow.md").write_text("# Slow\nAda Lovelace again.\n")
    runtime = open_runtime(vault, HashEmbedder())
    try:
        slow = vault / "zz_slow.md"
        slow.unlink()
        os.mkfifo(slow)  # the scan's read of this note blocks until we write
        answers: dict[str, Any] = {}

        def scan() -> None:
            answers["scan"] = runtime.call("kg_suggest_links", {"entityId": "person:ada"})

        scanner = threading.Thread(target=scan, daemon=True)
        scanner.start()
        opened = os.open(slow, os.O_WRONLY)  # returns once the scan has opened the pipe
        try:
            query = {"query": "Lovelace program", "mode": "keyword"}
            searcher = threading.Thread(
                target=lambda: answers.update(search=runtime.call("kb_search", query)),
                daemon=True,
            )
            searcher.start()
            searcher.join(20)  # milliseconds when the store is free; forever when it is not
            assert "search" in answers, "the search waited for the scan"
            assert answers["search"]["ok"] and answers["search"]["results"], answers
            assert "scan" not in answers  # the scan is still waiting on the pipe
        finally:
            os.write(opened, b"# Slow\nAda Lovelace again.\n")
            os.close(opened)
        scanner.join(30)
        assert not scanner.is_alive()
        found = answers["scan"]
        assert found["ok"], found
        assert [s["filePath"] for s in found["suggestions"]] == ["zz_slow.md"]
    finally:
        runtime.close()
