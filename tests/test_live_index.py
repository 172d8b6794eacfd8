"""Live indexing end to end: a VaultRuntime with its real watchdog observer on a real vault,
changed the way editors, file managers and git change it; each change must show up in
search (and kb_get) on its own, with no explicit re-index."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import copy_indexed

LIMIT = 20.0  # seconds; the debounce is 0.1 s, so this only bounds a failing test


def live_runtime(vault: Path) -> VaultRuntime:
    """A runtime watching `vault` with its real observer, its first pass done."""
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder())
    runtime.start()
    assert runtime.worker.wait_idle(60)
    return runtime


@pytest.fixture
def live(tmp_path: Path, tui_template: Path) -> Iterator[VaultRuntime]:
    runtime = live_runtime(copy_indexed(tui_template, tmp_path / "vault"))
    yield runtime
    runtime.close()


def eventually(check: Callable[[], Any], limit: float = LIMIT) -> Any:
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def hits(rt: VaultRuntime, word: str) -> list[str]:
    answer = rt.call("kb_search", {"query": word, "mode": "keyword", "top_k": 10})
    return [r["id"] for r in answer["results"]]


def path_of(rt: VaultRuntime, entity_id: str) -> str | None:
    answer = rt.call("kb_get", {"id": entity_id})
    return answer["metadata"]["file_path"] if answer["ok"] else None


def test_editor_save_patterns(live: VaultRuntime) -> None:
    note = live.settings.vault / "concepts" / "crdt.md"
    original = note.read_text()

    note.write_text(original + "\nWritten in place: quillfeather.\n")  # Obsidian, VS Code
    assert eventually(lambda: hits(live, "quillfeather") == ["concept:crdt"])

    swap = note.with_name(".crdt.md.swp")  # vim and most editors: temporary file, rename
    swap.write_text(original + "\nRenamed over: brambleknot.\n")
    os.replace(swap, note)
    assert eventually(lambda: hits(live, "brambleknot") == ["concept:crdt"])
    assert eventually(lambda: hits(live, "quillfeather") == [])

    note.unlink()  # some editors: delete, then write anew
    note.write_text(original + "\nRecreated: thistlewick.\n")
    assert eventually(lambda: hits(live, "thistlewick") == ["concept:crdt"])
    assert hits(live, "brambleknot") == []
    assert path_of(live, "concept:crdt") == "concepts/crdt.md"


def test_a_rename_keeps_the_entity(live: VaultRuntime) -> None:
    """A note with an `id` keeps it; one whose id comes from its file name (as links do)
    gets the new name's id, and its history (created, Q-value, uses) moves with it."""
    vault = live.settings.vault
    os.rename(vault / "concepts" / "crdt.md", vault / "concepts" / "CRDTs explained.md")
    assert eventually(lambda: path_of(live, "concept:crdt") == "concepts/CRDTs explained.md")

    (vault / "concepts" / "plain idea.md").write_text("A note with no frontmatter: gloamwise.\n")
    assert eventually(lambda: hits(live, "gloamwise") == ["concept:plain_idea"])
    before = live.call("kb_get", {"id": "concept:plain_idea"})["metadata"]["created_at"]
    live.call("kg_get_entity", {"entityId": "concept:plain_idea"})  # a use
    used = live.call("kg_get_entity", {"entityId": "concept:plain_idea"})["entity"]
    os.rename(vault / "concepts" / "plain idea.md", vault / "concepts" / "better name.md")
    assert eventually(lambda: hits(live, "gloamwise") == ["concept:better_name"])
    moved = live.call("kb_get", {"id": "concept:better_name"})
    assert moved["metadata"]["created_at"] == before
    entity = live.call("kg_get_entity", {"entityId": "concept:better_name"})["entity"]
    assert entity["accessCount"] > used["accessCount"] >= 1
    assert entity["qValue"] == pytest.approx(used["qValue"], abs=0.2)
    assert live.call("kb_get", {"id": "concept:plain_idea"})["error_type"] == "NotFoundError"


def test_a_folder_move_keeps_every_entity(live: VaultRuntime) -> None:
    vault = live.settings.vault
    people = sorted(p.stem for p in (vault / "people").glob("*.md"))
    assert path_of(live, "person:maya_okafor") == "people/maya_okafor.md"
    (vault / "team").mkdir()
    shutil.move(vault / "people", vault / "team" / "people")
    assert eventually(lambda: path_of(live, "person:maya_okafor") == "team/people/maya_okafor.md")
    for stem in people:
        query = {"query": stem.replace("_", " "), "filters": {"folder": "team"}}
        found = live.call("kb_search", query)
        assert found["ok"] and found["results"], stem
    neighbours = live.call("kg_get_neighbors", {"entityId": "person:maya_okafor"})
    assert neighbours["ok"] and neighbours["entities"], neighbours  # the graph moved along


def test_a_delete_removes_the_note(live: VaultRuntime) -> None:
    vault = live.settings.vault
    assert path_of(live, "concept:crdt") is not None
    (vault / "concepts" / "crdt.md").unlink()
    assert eventually(lambda: path_of(live, "concept:crdt") is None)
    gone = live.call("kb_get", {"id": "concept:crdt"})
    assert gone["error_type"] == "NotFoundError" and gone["error"]["retryable"] is False


def test_a_storm_of_2000_files(live: VaultRuntime) -> None:
    """A `git checkout` writing 2,000 notes at once, then removing them again."""
    vault = live.settings.vault
    before = live.status()["stats"]["notes"]
    storm = vault / "storm"
    storm.mkdir()
    for i in range(2000):
        (storm / f"n{i:04}.md").write_text(f"# Storm {i}\n\nStorm note marker stormword{i}.\n")
    assert eventually(lambda: live.status()["stats"]["notes"] == before + 2000, 120)
    assert hits(live, "stormword1999") == ["storm:n1999"]
    assert live.worker.wait_idle(60)
    shutil.rmtree(storm)
    assert eventually(lambda: live.status()["stats"]["notes"] == before, 120)
    assert hits(live, "stormword7") == []
