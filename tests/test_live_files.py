"""Files that are not notes, live: a VaultRuntime with its real watchdog observer on a real
vault. A .zip, a .psd or a text file added, changed, renamed or deleted reaches the index's
`file.*` rows through the watcher alone (no full pass), so a base over every file (kepano's
"Everything" view) is current within the usual save -> searchable time."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import copy_indexed
from tests.test_live_index import eventually, live_runtime

# Obsidian's help (Bases syntax): with no filter a base lists every file of the vault
EVERYTHING = """\
filters:
  and:
    - '!file.ext.containsAny("md", "base", "canvas")'
views:
  - type: table
    name: Files
    order: [file.name, file.ext, file.size, file.folder]
"""
SECONDS = 5.0  # the usual save -> searchable bound the live tests hold a note to, and more


@pytest.fixture
def live(tmp_path: Path, tui_template: Path) -> Iterator[VaultRuntime]:
    vault = copy_indexed(tui_template, tmp_path / "vault")
    (vault / "Files.base").write_text(EVERYTHING, encoding="utf-8")
    runtime = live_runtime(vault)  # its first pass reads the new base and every file
    yield runtime
    runtime.close()


def files(rt: VaultRuntime) -> dict[str, dict[str, Any]]:
    answer = rt.call("base_query", {"file": "Files.base"})
    assert answer["ok"], answer
    return {row["path"]: row["values"] for row in answer["rows"]}


def within(check: Any) -> float:
    """Seconds until `check()` holds (the test fails past SECONDS * 4)."""
    started = time.monotonic()
    assert eventually(check, SECONDS * 4), "the index never showed the change"
    return time.monotonic() - started


def test_a_non_note_file_is_listed_changed_renamed_and_removed_live(live: VaultRuntime) -> None:
    vault = live.settings.vault
    assert "concepts/old.zip" not in files(live)
    took = []  # (a new folder would make the watcher ask for a full pass: use one that is there)
    (vault / "concepts" / "old.zip").write_bytes(b"PK\x03\x04" + b"\0" * 96)
    took.append(within(lambda: "concepts/old.zip" in files(live)))
    row = files(live)["concepts/old.zip"]
    assert row == {"file.name": "old.zip", "file.ext": "zip", "file.size": 100,
                   "file.folder": "concepts"}  # fmt: skip
    assert live.status()["index"]["last_pass"]["other_files"] == 1

    with (vault / "concepts" / "old.zip").open("ab") as fh:  # changed in place
        fh.write(b"\0" * 900)
    took.append(within(lambda: files(live).get("concepts/old.zip", {}).get("file.size") == 1000))

    os.replace(vault / "concepts" / "old.zip", vault / "layers.psd")  # renamed and moved
    took.append(within(lambda: "layers.psd" in files(live)))
    now = files(live)
    assert "concepts/old.zip" not in now
    assert now["layers.psd"]["file.ext"] == "psd" and now["layers.psd"]["file.size"] == 1000

    (vault / "layers.psd").unlink()
    took.append(within(lambda: "layers.psd" not in files(live)))
    assert max(took) < SECONDS, took


def test_a_file_in_a_hidden_folder_stays_out(live: VaultRuntime) -> None:
    """What Obsidian does not list (hidden or tool folders) the watcher leaves alone, as the
    full pass does; a visible file written after it shows that the watcher has caught up."""
    vault = live.settings.vault
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "cache.zip").write_bytes(b"zip")
    (vault / "visible.txt").write_text("marker\n", encoding="utf-8")
    within(lambda: "visible.txt" in files(live))
    assert not [p for p in files(live) if p.startswith(".")]
