"""The note tools (issue 39, item 3) as an assistant calls them: note_read with its hash,
note_write (create, overwrite, append, prepend), note_delete and note_history, through the
one dispatch, on real files and a real DuckDB index (the hash embedder). Each refusal leaves
the vault byte for byte as it was."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.textdiff import content_hash
from kbtui.tools.write.origin import Origin, acting_as

PLAN = "---\ntags: [plan]\n---\n# Plan\n\n## Tasks\n\n- one\n"
OTHER = "See [[Plan]] and [[Plan#Tasks]].\n"


def files(vault: Path) -> dict[str, bytes]:
    """Every file of the vault outside kbtui's own folder, with its bytes."""
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and ".kbtui" not in p.relative_to(vault).parts
    }


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    (vault / "Projects").mkdir(parents=True)
    (vault / "Templates").mkdir()
    (vault / ".obsidian").mkdir()
    (vault / "Plan.md").write_text(PLAN)
    (vault / "Other.md").write_text(OTHER)
    (vault / "Projects" / "Readme.md").write_text("# Readme\n")
    (vault / "Templates" / "Meeting.md").write_text(
        "---\nkind: meeting\n---\n# {{title}}\n\n{{date}} {{time}} ({{date:dddd}})\n"
    )
    (vault / ".obsidian" / "templates.json").write_text(
        json.dumps({"folder": "Templates", "dateFormat": "DD.MM.YYYY"})
    )
    (vault / ".obsidian" / "app.json").write_text(
        json.dumps({"newFileLocation": "folder", "newFileFolderPath": "Inbox/"})
    )
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def good(kb: KnowledgeBase, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    answer = kb.call(tool, args)
    assert answer["ok"], answer
    return answer


def bad(kb: KnowledgeBase, tool: str, args: dict[str, Any], error_type: str) -> str:
    """The refusal's message; the vault is as it was."""
    before = files(kb.settings.vault)
    answer = kb.call(tool, args)
    assert not answer["ok"] and answer["error_type"] == error_type, answer
    assert files(kb.settings.vault) == before
    return str(answer["message"])


def test_read_gives_the_text_and_the_hash_kb_get_gives_too(kb: KnowledgeBase) -> None:
    raw = (kb.settings.vault / "Plan.md").read_bytes()
    for name in ("Plan", "plan", "Plan.md", "note:plan"):
        got = good(kb, "note_read", {"note": name})
        assert (got["path"], got["text"], got["hash"]) == ("Plan.md", PLAN, content_hash(raw))
        assert (got["encoding"], got["newline"]) == ("UTF-8", "LF")
    assert good(kb, "kb_get", {"id": "note:plan"})["hash"] == content_hash(raw)
    lines = good(kb, "note_read", {"note": "Plan", "startLine": 4, "endLine": 6})
    assert lines["text"] == "# Plan\n\n## Tasks\n" and lines["lines"] == 8
    bad(kb, "note_read", {"note": "Nowhere"}, "NotFoundError")
    bad(kb, "note_read", {"note": "Plan", "startLine": 20}, "ValidationError")


def test_create_follows_the_new_note_folder_and_the_template(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    made = good(kb, "note_write", {"path": "Standup", "template": "Meeting", "content": "- a"})
    assert made["path"] == "Inbox/Standup.md" and made["created"] and made["previous_hash"] is None
    today = dt.date.today()
    text = (vault / "Inbox/Standup.md").read_text()
    assert re.fullmatch(
        rf"---\nkind: meeting\n---\n# Standup\n\n{today:%d\.%m\.%Y} \d\d:\d\d "
        rf"\({today:%A}\)\n- a\n",
        text,
    ), text  # templates.json's date format, HH:mm, a Moment format, the content after
    assert made["hash"] == content_hash((vault / "Inbox/Standup.md").read_bytes())
    root = good(kb, "note_write", {"path": "/Top", "content": "top"})
    assert root["path"] == "Top.md" and (vault / "Top.md").read_text() == "top"
    deep = good(kb, "note_write", {"path": "Projects/Plan B.md", "content": "b\n"})
    assert deep["path"] == "Projects/Plan B.md"
    found = good(kb, "kb_search", {"query": "Standup", "mode": "keyword"})["results"]
    assert "Inbox/Standup.md" in [r["metadata"]["file_path"] for r in found]  # indexed


def test_create_never_replaces_nor_reuses_a_name(kb: KnowledgeBase) -> None:
    message = bad(kb, "note_write", {"path": "/Plan.md", "content": "x"}, "ConflictError")
    assert "Plan.md already exists" in message
    message = bad(kb, "note_write", {"path": "Archive/plan", "content": "x"}, "ConflictError")
    assert "[[plan]] already reaches Plan.md" in message  # Obsidian: names ignore case
    message = bad(kb, "note_write", {"path": "README"}, "ConflictError")
    assert "Projects/Readme.md" in message
    bad(kb, "note_write", {"path": "a:b"}, "ValidationError")
    bad(kb, "note_write", {"path": "../out"}, "ValidationError")
    bad(kb, "note_write", {"path": ".obsidian/x"}, "ValidationError")
    bad(kb, "note_write", {"path": "CON"}, "ValidationError")  # no file on Windows
    bad(kb, "note_write", {"path": "💥" * 100}, "ValidationError")  # 400 bytes: no file name
    bad(kb, "note_write", {"path": "New", "template": "💥" * 100}, "ValidationError")
    bad(kb, "note_write", {"path": "New", "template": "Nope"}, "NotFoundError")


def test_overwrite_needs_the_hash_read(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    args = {"path": "Plan", "mode": "overwrite", "content": "new\n"}
    message = bad(kb, "note_write", args, "ValidationError")
    assert "expected_hash" in message
    bad(kb, "note_write", {**args, "expected_hash": "0" * 64}, "StaleError")
    seen = good(kb, "note_read", {"note": "Plan"})["hash"]
    done = good(kb, "note_write", {**args, "expected_hash": seen})
    assert (vault / "Plan.md").read_text() == "new\n" and done["previous_hash"] == seen
    bad(kb, "note_write", {**args, "expected_hash": seen}, "StaleError")  # it changed since


def test_append_and_prepend(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"})
    good(kb, "note_write", {"path": "note:plan", "mode": "prepend", "content": "Intro."})
    text = (vault / "Plan.md").read_text()
    assert text == "---\ntags: [plan]\n---\nIntro.\n# Plan\n\n## Tasks\n\n- one\n- two\n"
    missing = {"path": "Gone", "mode": "append", "content": "x"}
    bad(kb, "note_write", missing, "NotFoundError")  # never created on a miss
    assert not (vault / "Gone.md").exists() and not (vault / "Inbox" / "Gone.md").exists()
    bad(kb, "note_write", {"path": "Plan", "mode": "append", "content": ""}, "ValidationError")


def test_a_dry_run_writes_nothing(kb: KnowledgeBase) -> None:
    before = files(kb.settings.vault)
    versions = len(kb.history.versions("Plan.md"))
    dry = good(
        kb, "note_write", {"path": "Plan", "mode": "append", "content": "z", "dry_run": True}
    )
    assert dry["dry_run"] and "+z" in dry["diff"] and dry["added"] == 1
    new = good(kb, "note_write", {"path": "Fresh", "content": "f\n", "dry_run": True})
    assert new["diff"].endswith("+f\n")
    gone = good(kb, "note_delete", {"note": "Plan", "dry_run": True})
    assert gone["unresolved"] == [{"file": "Other.md", "link": "Plan", "count": 2}]
    assert files(kb.settings.vault) == before and len(kb.history.versions("Plan.md")) == versions


def test_scopes_are_refused_as_forbidden(kb: KnowledgeBase) -> None:
    with acting_as(Origin("mcp:x", write_folders=("Inbox",))):
        message = bad(kb, "note_write", {"path": "/Top", "content": "x"}, "ForbiddenError")
        assert "Inbox" in message
        good(kb, "note_write", {"path": "Idea", "content": "x"})  # Inbox/Idea.md
        bad(kb, "note_edit", {"note": "Plan", "edits": [{"text": "x"}]}, "ForbiddenError")
    with acting_as(Origin("mcp:y", read_only=True)):
        bad(kb, "note_delete", {"note": "Plan"}, "ForbiddenError")
        assert good(kb, "note_read", {"note": "Plan"})["text"] == PLAN
    assert kb.history.versions("Inbox/Idea.md")[0].source == "mcp:x"


def test_delete_reports_the_links_it_leaves_and_history_brings_it_back(
    kb: KnowledgeBase,
) -> None:
    vault = kb.settings.vault
    gone = good(kb, "note_delete", {"note": "Plan"})
    assert gone["trash"] == ".trash/Plan.md" and not (vault / "Plan.md").exists()
    assert gone["unresolved"] == [{"file": "Other.md", "link": "Plan", "count": 2}]
    assert (vault / ".trash" / "Plan.md").read_text() == PLAN
    listed = good(kb, "note_history", {"note": "Plan"})  # by its old name
    assert listed["path"] == "Plan.md" and listed["hash"] is None
    newest, seen = listed["versions"]
    assert seen["operation"] == "seen"
    assert (newest["version"], newest["operation"], newest["hash"]) == (2, "delete", None)
    read = good(kb, "note_history", {"note": "Plan.md", "action": "read", "version": 1})
    assert read["text"] == PLAN
    bad(kb, "note_history", {"note": "Plan", "action": "read", "version": 2}, "ValidationError")
    back = good(kb, "note_history", {"note": "Plan", "action": "restore", "version": 1})
    assert back["created"] and (vault / "Plan.md").read_text() == PLAN
    assert good(kb, "kb_get", {"id": "note:plan"})["content"]  # indexed again
    links = good(kb, "vault_links", {"kind": "unresolved"})["results"]
    assert not [r for r in links if r["link"] == "Plan"]


def test_history_lists_diffs_and_restores_as_a_write(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    good(kb, "note_write", {"path": "Plan", "mode": "append", "content": "- two"})
    (vault / "Plan.md").write_text(PLAN + "- two\n- by an editor\n")
    kb.indexer.run(paths=["Plan.md"])  # what the watcher does
    listed = good(kb, "note_history", {"note": "Plan"})["versions"]
    assert [(v["version"], v["source"], v["operation"]) for v in listed] == [
        (3, "external", "edited outside kbtui"),
        (2, "cli", "append"),
        (1, "external", "seen"),
    ]
    last = good(kb, "note_history", {"note": "Plan", "action": "diff"})
    assert last["from"] == 2 and last["diff"].endswith("+- by an editor\n")
    span = good(kb, "note_history", {"note": "Plan", "action": "diff", "from": 1, "to": 2})
    assert (span["added"], span["removed"]) == (1, 0) and "+- two" in span["diff"]
    restore = {"note": "Plan", "action": "restore", "version": 1}
    dry = good(kb, "note_history", {**restore, "dry_run": True})
    assert "-- by an editor" in dry["diff"] and (vault / "Plan.md").read_text() != PLAN
    done = good(kb, "note_history", restore)
    assert (vault / "Plan.md").read_text() == PLAN and done["restored"] == 1
    newest = good(kb, "note_history", {"note": "Plan"})["versions"][0]
    assert (newest["version"], newest["operation"]) == (4, "restore v1")
    good(kb, "note_history", {"note": "Plan", "action": "restore", "version": 3})  # the undo
    assert (vault / "Plan.md").read_text().endswith("- by an editor\n")
    bad(kb, "note_history", {"note": "Plan", "action": "read", "version": 99}, "NotFoundError")
    bad(kb, "note_history", {"note": "Plan", "action": "list", "version": 1}, "ValidationError")
    stale = {**restore, "expected_hash": "f" * 64}
    bad(kb, "note_history", stale, "StaleError")


def test_reads_and_dry_runs_may_run_again_on_the_next_owner() -> None:
    from kbtui.runtime.shared import repeatable

    assert repeatable("note_read", {}) and repeatable("note_history", {"action": "diff"})
    assert repeatable("note_edit", {"dry_run": True})
    for write in ("note_write", "note_edit", "note_delete"):
        assert not repeatable(write, {"dry_run": False})
    assert not repeatable("note_history", {"action": "restore"})


def test_the_published_tool_list_stays_under_28k_characters() -> None:
    """Every character of tools/list is context an assistant pays for (issue 39)."""
    from mcp import types

    from kbtui.tools.registry import PUBLISHED

    tools = [
        types.Tool(name=s.name, description=s.description, input_schema=s.input_schema())
        for s in PUBLISHED.values()
    ]
    listed = types.ListToolsResult(tools=tools).model_dump(by_alias=True, exclude_none=True)
    assert len(json.dumps(listed)) < 28_000
