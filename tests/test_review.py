"""Review mode (issue 40, item 6): an assistant's note writes held as proposals until the
person accepts (written with the hash they were proposed against), rejects or copies them;
a note changed meanwhile is a conflict, never overwritten unseen. Real files, a real DuckDB
index (the hash embedder), the one dispatch; over MCP through the SDK's client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.mcp.scope import McpScope
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store
from kbtui.textdiff import content_hash
from kbtui.tools.catalog import PUBLISHED
from kbtui.tools.write.origin import Origin, acting_as
from tests.test_mcp_scope import LIMIT, client, full_token, listed_chars, served

PLAN = "# Plan\n\n## Tasks\n\n- one\n"
CLAUDE = Origin("mcp:claude", review=True)


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plan.md").write_text(PLAN)
    (vault / "Crlf.md").write_bytes(b"# Crlf\r\n\r\n## Log\r\n\r\n- first\r\n")
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def as_claude(kb: KnowledgeBase, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    with acting_as(CLAUDE):
        return kb.call(tool, args)


def tui(kb: KnowledgeBase, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    with acting_as(Origin("tui")):
        return kb.call(tool, args)


def add_task(kb: KnowledgeBase, text: str = "- two") -> dict[str, Any]:
    edit = {"section": "Tasks", "position": "append", "text": text}
    return as_claude(kb, "note_edit", {"note": "Plan", "edits": [edit]})


def state(kb: KnowledgeBase, number: int) -> dict[str, Any]:
    answer = as_claude(
        kb, "note_history", {"note": "Plan", "action": "proposal", "version": number}
    )
    assert answer["ok"], answer
    return dict(answer["proposal"])


def test_a_held_edit_writes_nothing_until_accepted_then_lands_as_proposed(
    kb: KnowledgeBase,
) -> None:
    plan = kb.settings.vault / "Plan.md"
    held = add_task(kb)
    assert held["ok"] and held["pending"] is True and held["changed"] is False, held
    assert "+- two" in held["diff"] and "held for review as proposal" in held["message"]
    assert plan.read_text() == PLAN  # nothing written
    number = held["proposal"]
    assert state(kb, number)["state"] == "pending"
    listed = tui(kb, "app_proposals", {"action": "list"})
    assert listed["pending"] == 1 and listed["proposals"][0]["id"] == number
    got = tui(kb, "app_proposals", {"action": "get", "id": number})
    assert got["base_text"] == PLAN and got["proposed_text"] == PLAN + "- two\n"
    assert got["current_hash"] == content_hash(PLAN.encode())

    accepted = tui(kb, "app_review", {"action": "accept", "id": number})
    assert accepted["ok"], accepted
    assert plan.read_text() == PLAN + "- two\n"
    done = state(kb, number)
    assert done["state"] == "accepted" and done["hash"] == content_hash(plan.read_bytes())
    history = kb.tools.parts.history
    assert history is not None and history.versions("Plan.md")[0].source == "mcp:claude"
    assert tui(kb, "app_proposals", {})["pending"] == 0
    again = tui(kb, "app_review", {"action": "accept", "id": number})
    assert again["error_type"] == "ConflictError" and "accepted already" in again["message"]


def test_a_note_changed_since_the_proposal_is_a_conflict_then_applied_to_what_is_there(
    kb: KnowledgeBase,
) -> None:
    plan = kb.settings.vault / "Plan.md"
    number = add_task(kb)["proposal"]
    plan.write_text(PLAN + "- typed by the person\n")  # an editor's save meanwhile
    stale = tui(kb, "app_review", {"action": "accept", "id": number})
    assert stale["ok"] is False and stale["error_type"] == "StaleError", stale
    assert plan.read_text() == PLAN + "- typed by the person\n"
    assert state(kb, number)["state"] == "pending"  # the person decides
    now = content_hash(plan.read_bytes())
    applied = tui(kb, "app_review", {"action": "accept", "id": number, "hash": now})
    assert applied["ok"], applied
    assert plan.read_text() == PLAN + "- typed by the person\n- two\n"  # both kept


def test_reject_writes_nothing_and_copy_keeps_the_proposed_text_beside(kb: KnowledgeBase) -> None:
    plan = kb.settings.vault / "Plan.md"
    first, second = add_task(kb, "- no")["proposal"], add_task(kb, "- maybe")["proposal"]
    rejected = tui(kb, "app_review", {"action": "reject", "id": first})
    assert rejected["ok"] and state(kb, first)["state"] == "rejected"
    copied = tui(kb, "app_review", {"action": "copy", "id": second})
    assert copied["ok"], copied
    assert copied["path"] == f"Plan (proposal {second}).md"
    assert (kb.settings.vault / copied["path"]).read_text() == PLAN + "- maybe\n"
    assert plan.read_text() == PLAN
    assert state(kb, second)["outcome"] == f"saved as {copied['path']}"


def test_a_refused_write_is_refused_at_once_and_nothing_is_held(kb: KnowledgeBase) -> None:
    edit = {"section": "Nowhere", "position": "append", "text": "x"}
    answer = as_claude(kb, "note_edit", {"note": "Plan", "edits": [edit]})
    assert answer["error_type"] == "TargetError"
    same = as_claude(
        kb, "note_write", {"path": "Plan", "mode": "append", "content": "", "inline": True}
    )
    assert not same["ok"]
    assert tui(kb, "app_proposals", {})["pending"] == 0


def test_other_writing_tools_are_refused_naming_the_note_tools(kb: KnowledgeBase) -> None:
    for tool, args in (
        ("daily_append", {"content": "x"}),
        ("kg_create_entity", {"name": "Ada", "type": "person"}),
    ):
        refused = as_claude(kb, tool, args)
        assert refused["error_type"] == "ForbiddenError", refused
        assert "note_write, note_edit or note_delete" in refused["message"]
    assert as_claude(kb, "note_read", {"note": "Plan"})["ok"]  # reads as ever


def test_the_vault_setting_holds_every_assistant_but_not_the_person(kb: KnowledgeBase) -> None:
    plan = kb.settings.vault / "Plan.md"
    append = {"path": "Plan", "mode": "append", "content": "- from"}
    assert tui(kb, "app_review", {"action": "mode", "on": True})["review"] is True
    with acting_as(Origin("mcp:other")):  # a server started without --review
        held = kb.call("note_write", append)
    assert held["pending"] is True and plan.read_text() == PLAN
    written = tui(kb, "note_write", append)  # the TUI itself is never held
    assert written["ok"] and "pending" not in written and plan.read_text() == PLAN + "- from\n"
    tui(kb, "app_review", {"action": "mode", "on": False})
    with acting_as(Origin("mcp:other")):
        assert "pending" not in kb.call("note_write", append)
    assert plan.read_text().count("- from") == 2


def test_delete_create_and_a_crlf_note_accepted_byte_for_byte(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    crlf = vault / "Crlf.md"
    edit = {"section": "Log", "position": "append", "text": "- second"}
    number = as_claude(kb, "note_edit", {"note": "Crlf", "edits": [edit]})["proposal"]
    assert tui(kb, "app_review", {"action": "accept", "id": number})["ok"]
    assert crlf.read_bytes() == b"# Crlf\r\n\r\n## Log\r\n\r\n- first\r\n- second\r\n"

    made = as_claude(kb, "note_write", {"path": "/Idea", "content": "# Idea\n"})
    assert made["pending"] and not (vault / "Idea.md").exists()
    assert tui(kb, "app_review", {"action": "accept", "id": made["proposal"]})["ok"]
    assert (vault / "Idea.md").read_text() == "# Idea\n"

    gone = as_claude(kb, "note_delete", {"note": "Idea"})
    assert gone["pending"] and (vault / "Idea.md").exists()
    assert tui(kb, "app_review", {"action": "accept", "id": gone["proposal"]})["ok"]
    assert not (vault / "Idea.md").exists() and (vault / ".trash" / "Idea.md").exists()


def test_the_assistant_lists_its_proposals_of_a_note(kb: KnowledgeBase) -> None:
    first, second = add_task(kb)["proposal"], add_task(kb, "- three")["proposal"]
    tui(kb, "app_review", {"action": "reject", "id": first})
    listed = as_claude(kb, "note_history", {"note": "Plan.md", "action": "proposal"})
    assert [(p["id"], p["state"]) for p in listed["proposals"]] == [
        (second, "pending"),
        (first, "rejected"),
    ]
    wrong = as_claude(kb, "note_history", {"note": "Crlf", "action": "proposal", "version": 1})
    assert wrong["error_type"] == "ValidationError"


def test_the_origin_says_review_across_the_owners_socket() -> None:
    assert Origin.from_dict(CLAUDE.as_dict()) == CLAUDE
    assert "review" not in Origin("cli").as_dict()  # the old wire format, unchanged


def test_mcp_review_lists_only_what_it_can_hold_and_holds_it(runtime: VaultRuntime) -> None:
    note = runtime.settings.vault / "people" / "andrei_clodius.md"
    before = note.read_bytes()
    with (
        served(runtime, McpScope(review=True)) as server,
        client(server, full_token(runtime), "Claude") as mcp,
    ):
        listed = mcp.tools()
        names = {t.name for t in listed}
        writers = {n for n, s in PUBLISHED.items() if not s.reads()}
        assert names & writers == {"note_write", "note_edit", "note_delete"}
        assert listed_chars(listed) < LIMIT
        held = mcp.call("note_write", {"path": "andrei_clodius", "mode": "append", "content": "x"})
        assert held["ok"] and held["pending"], held
        asked = mcp.call(
            "note_history",
            {"note": "andrei_clodius", "action": "proposal", "version": held["proposal"]},
        )
        assert asked["proposal"]["state"] == "pending"
        refused = mcp.call("daily_append", {"content": "x"})
        assert refused["error_type"] == "ForbiddenError"
    assert note.read_bytes() == before
    stored = json.loads(json.dumps(runtime.call("app_proposals", {"action": "list"})))
    assert stored["proposals"][0]["source"] == "mcp:Claude"
