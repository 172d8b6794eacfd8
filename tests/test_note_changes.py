"""The TUI's note operations in the tool layer (issue 40): app_new_note (folders, the default
folder as Obsidian's settings say, templates) and app_changes (the vault's latest writes by
source, what each changed, and an undo through the write path, refused when the note changed
since). Real files, a real DuckDB index (hash embedder), the one dispatch."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store
from kbtui.tools.write.origin import Origin, acting_as

PLAN = "# Plan\n\n## Tasks\n\n- one\n"


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    (vault / "Projects" / "Deep").mkdir(parents=True)
    (vault / "Templates").mkdir()
    (vault / "Empty folder").mkdir()
    (vault / ".obsidian").mkdir()
    (vault / ".hidden").mkdir()
    (vault / "Plan.md").write_text(PLAN)
    (vault / "Projects" / "Readme.md").write_text("# Readme\n")
    (vault / "Templates" / "Meeting.md").write_text("# {{title}}\n")
    (vault / "Templates" / "Daily.md").write_text("{{date}}\n")
    (vault / ".obsidian" / "templates.json").write_text(json.dumps({"folder": "Templates"}))
    (vault / ".obsidian" / "app.json").write_text(
        json.dumps({"newFileLocation": "folder", "newFileFolderPath": "Projects/"})
    )
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def good(kb: KnowledgeBase, tool: str, args: dict[str, Any], source: str = "tui") -> Any:
    with acting_as(Origin(source)):
        answer = kb.call(tool, args)
    assert answer["ok"], answer
    return answer


def test_new_note_offers_folders_default_folder_and_templates(kb: KnowledgeBase) -> None:
    form = good(kb, "app_new_note", {})
    assert form["folders"] == ["Empty folder", "Projects", "Projects/Deep", "Templates"]
    assert form["folder"] == "Projects"
    assert form["templates"] == ["Daily", "Meeting"]
    assert form["template_folder"] == "Templates"
    app_json = kb.settings.vault / ".obsidian" / "app.json"
    app_json.write_text(json.dumps({"newFileLocation": "current"}))
    assert good(kb, "app_new_note", {"current": "Projects/Deep/X.md"})["folder"] == "Projects/Deep"
    assert good(kb, "app_new_note", {"current": "Plan.md"})["folder"] == ""
    assert good(kb, "app_new_note", {})["folder"] == ""


def test_changes_list_newest_first_with_sources_and_ids(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"}, "tui")
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- three"}, "mcp:claude")
    good(kb, "note_write", {"path": "/Fresh", "content": "new\n"}, "cli")
    changes = good(kb, "app_changes", {})["changes"]
    # the first sight of a note (Plan.md's v1, "seen") changed nothing: not listed
    assert [(c["path"], c["version"], c["source"], c["operation"]) for c in changes] == [
        ("Fresh.md", 1, "cli", "create"),
        ("Plan.md", 3, "mcp:claude", "append"),
        ("Plan.md", 2, "tui", "append"),
    ]
    fresh = changes[0]
    assert fresh["id"] is not None and fresh["newest"] is True
    plan = [c for c in changes if c["path"] == "Plan.md"]
    assert plan[0]["newest"] is True and not any(c["newest"] for c in plan[1:])


def test_diff_shows_what_one_write_changed(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"}, "mcp:claude")
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- three"})
    history = good(kb, "note_history", {"note": "Plan"})["versions"]
    claude = next(v for v in history if v["source"] == "mcp:claude")
    diff = good(kb, "app_changes", {"action": "diff", "path": "Plan.md",
                                    "version": claude["version"]})  # fmt: skip
    assert "+- two" in diff["diff"] and "three" not in diff["diff"]
    assert (diff["added"], diff["removed"], diff["source"]) == (1, 0, "mcp:claude")
    good(kb, "note_write", {"path": "/Fresh", "content": "a\nb\n"})
    created = good(kb, "app_changes", {"action": "diff", "path": "Fresh.md", "version": 1})
    assert created["diff"].splitlines()[-2:] == ["+a", "+b"] and created["added"] == 2


def test_undo_restores_the_version_before_and_is_a_write(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"}, "mcp:claude")
    file = kb.settings.vault / "Plan.md"
    assert file.read_text().endswith("- two\n")
    newest = good(kb, "note_history", {"note": "Plan"})["versions"][0]
    dry = good(kb, "app_changes", {"action": "undo", "path": "Plan.md",
                                   "version": newest["version"], "dry_run": True})  # fmt: skip
    assert dry["dry_run"] and file.read_text().endswith("- two\n")
    undone = good(kb, "app_changes", {"action": "undo", "path": "Plan.md",
                                      "version": newest["version"]})  # fmt: skip
    assert file.read_text() == PLAN
    assert undone["undone"] == newest["version"] and undone["removed"] == 1
    latest = good(kb, "note_history", {"note": "Plan"})["versions"][0]
    assert (latest["source"], latest["operation"]) == ("tui", f"restore v{undone['restored']}")


def test_undo_is_refused_when_the_note_changed_since(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"}, "mcp:claude")
    claude = good(kb, "note_history", {"note": "Plan"})["versions"][0]
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- mine"})
    file = kb.settings.vault / "Plan.md"
    before = file.read_bytes()
    with acting_as(Origin("tui")):
        refused = kb.call(
            "app_changes", {"action": "undo", "path": "Plan.md", "version": claude["version"]}
        )
    assert not refused["ok"] and refused["error_type"] == "ConflictError"
    assert "Plan.md changed since" in refused["message"] and "nothing undone" in refused["message"]
    assert file.read_bytes() == before


def test_undoing_a_creation_moves_the_note_to_the_trash(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "/Fresh", "content": "a\n"}, "mcp:claude")
    good(kb, "app_changes", {"action": "undo", "path": "Fresh.md", "version": 1})
    vault = kb.settings.vault
    assert not (vault / "Fresh.md").exists()
    assert (vault / ".trash" / "Fresh.md").read_text() == "a\n"


def test_undoing_a_deletion_brings_the_note_back(kb: KnowledgeBase) -> None:
    good(kb, "note_delete", {"note": "Plan"}, "mcp:claude")
    gone = good(kb, "note_history", {"note": "Plan.md"})["versions"][0]
    assert gone["hash"] is None
    good(kb, "app_changes", {"action": "undo", "path": "Plan.md", "version": gone["version"]})
    assert (kb.settings.vault / "Plan.md").read_text() == PLAN


def test_status_counts_writes(tmp_path: Path) -> None:
    """The status a front end polls grows with each version: the TUI learns of an assistant's
    edit, which the write path indexes without a pass of the background indexer."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plan.md").write_text(PLAN)
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
    runtime.start()
    try:
        assert runtime.worker.wait_idle(60)
        before = runtime.status()
        with acting_as(Origin("mcp:claude")):
            done = runtime.call("note_write", {"path": "Plan", "mode": "append", "content": "x"})
        assert done["ok"], done
        after = runtime.status()
        assert after["writes"] > before["writes"]
        assert after["index"]["passes"] == before["index"]["passes"]
    finally:
        runtime.close()


def test_note_ids_by_path(kb: KnowledgeBase) -> None:
    good(kb, "note_write", {"path": "/Fresh", "content": "a\n"})
    ids = good(kb, "app_note_ids", {"paths": ["Fresh.md", "Plan.md", "Nope.md"]})["ids"]
    assert ids == {"Fresh.md": "note:fresh", "Plan.md": "note:plan"}


def test_an_outside_edit_is_listed_with_its_lines(kb: KnowledgeBase) -> None:
    """Another program's save, as the indexer reads it, counts its lines like a write."""
    file = kb.settings.vault / "Plan.md"
    file.write_text(PLAN.replace("- one\n", "- one, done\n- two\n"))
    kb.indexer.run(paths=["Plan.md"])
    change = good(kb, "app_changes", {})["changes"][0]
    assert (change["path"], change["source"], change["operation"]) == (
        "Plan.md",
        "external",
        "edited outside kbtui",
    )
    assert (change["added"], change["removed"]) == (2, 1)
