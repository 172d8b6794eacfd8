"""Files that are not notes, live: a VaultRuntime with its real watchdog observer on a real
vault. A .zip, a .psd or a text file added, changed, renamed or deleted reaches the index's
`file.*` rows through the watcher alone (a pass over the changed paths, no full pass), so a
base over every file (kepano's "Everything" view) stays current. How soon is measured by
bench/watch_latency.py (save -> searchable), not here: a loaded CI machine has no bound."""

from __future__ import annotations

import json
import os
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
WAIT = 60.0  # a deadline for a change that never shows, not a speed bound


@pytest.fixture
def live(tmp_path: Path, tui_template: Path) -> Iterator[VaultRuntime]:
    vault = copy_indexed(tui_template, tmp_path / "vault")
    (vault / "Files.base").write_text(EVERYTHING, encoding="utf-8")
    # Obsidian's "Detect all file extensions": a base lists a .zip or a .psd only with it on
    app = vault / ".obsidian" / "app.json"
    app.write_text(json.dumps({**json.loads(app.read_text()), "showUnsupportedFiles": True}))
    runtime = live_runtime(vault)  # its first pass reads the new base and every file
    yield runtime
    runtime.close()


def files(rt: VaultRuntime) -> dict[str, dict[str, Any]]:
    answer = rt.call("base_query", {"file": "Files.base"})
    assert answer["ok"], answer
    return {row["path"]: row["values"] for row in answer["rows"]}


def watched(rt: VaultRuntime, check: Any) -> None:
    """Until `check()` holds; the passes that brought it were the watcher's over the changed
    paths alone (a full pass counts the vault's ~70 other files as unchanged)."""
    assert eventually(check, WAIT), "the index never showed the change"
    assert rt.worker.wait_idle(WAIT)
    last = rt.status()["index"]["last_pass"]
    assert last["unchanged"] <= 2, last


def test_a_non_note_file_is_listed_changed_renamed_and_removed_live(live: VaultRuntime) -> None:
    vault = live.settings.vault
    assert "concepts/old.zip" not in files(live)
    # (a new folder would make the watcher ask for a full pass: use one that is there)
    (vault / "concepts" / "old.zip").write_bytes(b"PK\x03\x04" + b"\0" * 96)
    watched(live, lambda: "concepts/old.zip" in files(live))
    row = files(live)["concepts/old.zip"]
    assert row == {"file.name": "old.zip", "file.ext": "zip", "file.size": 100,
                   "file.folder": "concepts"}  # fmt: skip
    assert live.status()["index"]["last_pass"]["other_files"] == 1

    with (vault / "concepts" / "old.zip").open("ab") as fh:  # changed in place
        fh.write(b"\0" * 900)
    watched(live, lambda: files(live).get("concepts/old.zip", {}).get("file.size") == 1000)

    os.replace(vault / "concepts" / "old.zip", vault / "layers.psd")  # renamed and moved
    watched(live, lambda: "layers.psd" in files(live))
    now = files(live)
    assert "concepts/old.zip" not in now
    assert now["layers.psd"]["file.ext"] == "psd" and now["layers.psd"]["file.size"] == 1000

    (vault / "layers.psd").unlink()
    watched(live, lambda: "layers.psd" not in files(live))


def test_a_file_in_a_hidden_folder_stays_out(live: VaultRuntime) -> None:
    """What Obsidian does not list (hidden or tool folders) the watcher leaves alone, as the
    full pass does; a visible file written after it shows that the watcher has caught up."""
    vault = live.settings.vault
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "cache.zip").write_bytes(b"zip")
    (vault / "visible.txt").write_text("marker\n", encoding="utf-8")
    watched(live, lambda: "visible.txt" in files(live))
    assert not [p for p in files(live) if p.startswith(".")]
