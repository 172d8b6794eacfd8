"""kb_search, kb_get and get_chunk against spec 000-002, on vault_example with the real model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.decode import decode_note
from kbtui.vault.parse import parse_note

WATCH_TEAM = {
    "person:andrei_clodius",
    "person:maya_okafor",
    "person:tomas_lindqvist",
    "person:priya_raman",
    "person:lena_hartmann",
    "person:daniel_cho",
    "person:kenji_watanabe",
    "person:felix_brandt",
    "person:ines_duarte",
}
ML_PEOPLE = {
    "person:priya_raman",
    "person:sofia_marquez",
    "person:noor_haddad",
    "person:ruth_abernathy",
}


@pytest.fixture(scope="module")
def kb(indexed_example: Settings, real_embedder: FastEmbedder) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase(indexed_example, Store(indexed_example.db_path), real_embedder)
    yield base
    base.close()


def assert_error(response: dict[str, Any], error_type: str, kind: str, field: str | None = None):
    assert response["ok"] is False and response["success"] is False
    assert response["error_type"] == error_type
    assert response["error"]["type"] == kind
    assert response["error"]["retryable"] is (kind == "TRANSIENT")
    assert response["message"] == response["error"]["message"] and response["message"]
    if field is not None:
        assert response["error"]["field"] == field


# -- kb_get (spec 000) ----------------------------------------------------------------------
def test_kb_get_example_1_person_returns_the_whole_note(kb: KnowledgeBase) -> None:
    response = kb.call("kb_get", {"id": "person:andrei_clodius"})
    assert response["ok"] is True
    assert response["id"] == "person:andrei_clodius" and response["type"] == "person"
    assert response["title"] == "Andrei Clodius"
    assert response["metadata"]["aliases"] == ["Andrei", "A. Clodius"]
    assert response["metadata"]["roles"] == ["mobile lead", "designer"]
    assert response["metadata"]["file_path"] == "people/andrei_clodius.md"
    assert response["chunks_count"] == len(kb.store.note_chunks("person:andrei_clodius")) > 1
    path = kb.settings.vault / "people/andrei_clodius.md"
    body = parse_note("people/andrei_clodius.md", decode_note(path.read_bytes())[0]).body
    assert response["content"] == body  # every chunk, in order, overlap removed


def test_kb_get_example_2_project(kb: KnowledgeBase) -> None:
    response = kb.call("kb_get", {"id": "project:vector_watch_project"})
    assert response["ok"] and response["title"] == "Vector Watch"
    assert "glanceable" in response["content"] and response["chunks_count"] >= 1


def test_kb_get_reassembles_every_note_exactly(kb: KnowledgeBase) -> None:
    for path, (entity_id, *_rest) in kb.store.note_states().items():
        text = decode_note((kb.settings.vault / path).read_bytes())[0]
        response = kb.call("kb_get", {"id": entity_id})
        assert response["ok"], (entity_id, response)
        assert response["content"] == parse_note(path, text).body, path


def test_kb_get_example_3_not_found_is_permanent(kb: KnowledgeBase) -> None:
    response = kb.call("kb_get", {"id": "person:nonexistent"})
    assert response["ok"] is False
    assert response["error"] == {
        "type": "PERMANENT",
        "message": "Entity 'person:nonexistent' not found in KB",
        "retryable": False,
        "field": None,
    }
    assert_error(response, "NotFoundError", "PERMANENT")


@pytest.mark.parametrize(
    "bad",
    [
        "Andrei Clodius",  # mistake 2: a display name
        "Person:Andrei_Clodius",  # mistake 3: ids are case-sensitive, lower case
        "person-andrei",
        "person:andrei clodius",
        "a:",  # too short and no name
        "person:" + "a" * 94,  # 101 characters
    ],
)
def test_kb_get_validation(kb: KnowledgeBase, bad: str) -> None:
    assert_error(kb.call("kb_get", {"id": bad}), "ValidationError", "VALIDATION", "id")


def test_kb_get_length_limits(kb: KnowledgeBase) -> None:
    assert kb.call("kb_get", {"id": "a:b"})["error_type"] == "NotFoundError"  # 3 chars: valid
    longest = "person:" + "a" * 93  # exactly 100
    assert kb.call("kb_get", {"id": longest})["error_type"] == "NotFoundError"
    assert_error(kb.call("kb_get", {}), "ValidationError", "VALIDATION", "id")
    assert_error(kb.call("kb_get", {"id": 5}), "ValidationError", "VALIDATION", "id")


def test_kb_get_on_an_empty_index_says_not_initialized(tmp_path: Path) -> None:
    settings = Settings.for_vault(tmp_path)
    empty = KnowledgeBase(settings, Store(settings.db_path), None)
    try:
        response = empty.call("kb_get", {"id": "person:andrei_clodius"})
        assert_error(response, "NotFoundError", "PERMANENT")
        assert "not initialized" in response["message"]
        search = empty.call("kb_search", {"query": "anything at all"})
        assert search["ok"] is True and search["results"] == []  # spec 001: ok, empty
    finally:
        empty.close()


def test_an_unavailable_store_is_transient_and_retryable(tmp_path: Path) -> None:
    settings = Settings.for_vault(tmp_path)
    base = KnowledgeBase(settings, Store(settings.db_path), None)
    base.store.con.close()  # the database went away under the service
    response = base.call("kb_get", {"id": "person:andrei_clodius"})
    assert_error(response, "UnavailableError", "TRANSIENT")


# -- kb_search (spec 001) -------------------------------------------------------------------
def test_kb_search_example_1_voice_mode_clamps_to_three(kb: KnowledgeBase) -> None:
    response = kb.call(
        "kb_search",
        {"query": "Who worked on Vector Watch?", "top_k": 10, "capabilities": {"voice": True}},
    )
    assert response["ok"] is True and response["query"] == "Who worked on Vector Watch?"
    results = response["results"]
    assert len(results) == 3 == response["total_found"] and response["voice_mode"] is True
    assert {r["id"] for r in results} <= WATCH_TEAM | {
        "project:vector_watch_project",
        "organization:vector_studio",
    }
    for r in results:
        assert r["source_type"] == "kb_document"
        assert r["metadata"]["entity_id"] == r["id"]
        assert isinstance(r["metadata"]["chunk_index"], int)
        assert (kb.settings.vault / r["metadata"]["file_path"]).is_file()


def test_kb_search_example_2_filtered_text_mode(kb: KnowledgeBase) -> None:
    response = kb.call(
        "kb_search",
        {
            "query": "AI and machine learning expertise",
            "top_k": 8,
            "filters": {"type": "person"},
            "capabilities": {"voice": False, "messaging": True},
        },
    )
    results = response["results"]
    assert response["ok"] and {r["type"] for r in results} == {"person"}
    assert {r["id"] for r in results[:4]} == ML_PEOPLE
    assert response["filters_applied"] == {"type": "person"}


def test_kb_search_example_3_no_match_is_an_empty_success(kb: KnowledgeBase) -> None:
    response = kb.call("kb_search", {"query": "quantum computing blockchain NFTs"})
    assert response["ok"] is True
    assert response["results"] == [] and response["total_found"] == 0


def test_kb_search_invariants(kb: KnowledgeBase) -> None:
    response = kb.call("kb_search", {"query": "battery life of the watch", "top_k": 10})
    scores = [r["score"] for r in response["results"]]
    assert 5 <= len(scores) <= 10 and scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert all(len(r["snippet"]) <= 200 for r in response["results"])
    assert len({r["id"] for r in response["results"]}) == len(scores)  # one result per note


def test_kb_search_filters_are_and(kb: KnowledgeBase) -> None:
    both = kb.call("kb_search", {"query": "design", "filters": {"type": "person", "tag": "ml"}})
    assert both["ok"] and both["results"]
    for r in both["results"]:
        tags = kb.call("kb_get", {"id": r["id"]})["metadata"]["tags"]
        assert r["type"] == "person" and any(t == "ml" or t.startswith("ml/") for t in tags)
    none = kb.call("kb_search", {"query": "design", "filters": {"type": "person", "tag": "nope"}})
    assert none["ok"] is True and none["results"] == []


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"query": "ab"}, "query"),
        ({"query": "   a   "}, "query"),
        ({"query": "x" * 501}, "query"),
        ({"query": "watch", "top_k": 0}, "top_k"),
        ({"query": "watch", "top_k": 11}, "top_k"),
        ({"query": "watch", "top_k": "5"}, "top_k"),
        ({"query": "watch", "filters": {"type": "wizard"}}, "filters.type"),
        ({"query": "watch", "filters": {"type": "Person"}}, "filters.type"),
        ({"query": "watch", "filters": {"colour": "red"}}, "filters.colour"),
        ({"query": "watch", "capabilities": {"voice": "yes"}}, "capabilities.voice"),
        ({"query": "watch", "mode": "fuzzy"}, "mode"),
        ({"query": "watch", "topk": 3}, "topk"),
        ({}, "query"),
    ],
)
def test_kb_search_validation(kb: KnowledgeBase, args: dict[str, Any], field: str) -> None:
    assert_error(kb.call("kb_search", args), "ValidationError", "VALIDATION", field)


def test_kb_search_query_limits_are_inclusive(kb: KnowledgeBase) -> None:
    assert kb.call("kb_search", {"query": "BLE"})["ok"] is True
    assert kb.call("kb_search", {"query": "watch " * 83 + "ab"})["ok"] is True  # 500 chars


# -- get_chunk (spec 002) -------------------------------------------------------------------
def test_get_chunk_with_all_fields(kb: KnowledgeBase) -> None:
    response = kb.call("get_chunk", {"chunk_id": "project:vector_watch_project_chunk_0"})
    assert response["ok"] is True
    assert response["chunk_id"] == "project:vector_watch_project_chunk_0"
    assert response["title"] == "Vector Watch" and response["entity_id"] == (
        "project:vector_watch_project"
    )
    assert isinstance(response["tags"], list) and response["content"]
    assert re.fullmatch(r"1/\d+", response["chunk_info"])
    card = response["knowledge_card"]
    assert card["summary"] and isinstance(card["takeaways"], list)
    cluster = response["cluster"]
    assert re.fullmatch(r"cluster-\d+", cluster["cluster_id"][0])
    assert cluster["cluster_name"] and cluster["description"]
    assert response["source_url"] == "https://git.example.com/vector/watch"
    assert response["urls"]["source_url"] == "https://git.example.com/vector/watch"
    assert response["file_path"] == "projects/vector_watch_project.md"
    assert response["obsidian_url"].startswith("obsidian://open?vault=")
    assert response["obsidian_url"].endswith("&file=projects%2Fvector_watch_project")
    related = response["related_chunks"]
    assert 1 <= len(related) <= 5
    sims = [r["similarity_score"] for r in related]
    assert sims == sorted(sims, reverse=True) and all(0 <= s <= 1 for s in sims)
    assert response["chunk_id"] not in {r["chunk_id"] for r in related}
    assert all(set(r) >= {"chunk_id", "title", "author", "snippet"} for r in related)


def test_get_chunk_include_related_false_and_limit(kb: KnowledgeBase) -> None:
    cid = "person:andrei_clodius_chunk_1"
    assert kb.call("get_chunk", {"chunk_id": cid, "include_related": False})["related_chunks"] == []
    two = kb.call("get_chunk", {"chunk_id": cid, "related_limit": 2})["related_chunks"]
    assert len(two) == 2
    twenty = kb.call("get_chunk", {"chunk_id": cid, "related_limit": 20})["related_chunks"]
    assert len(twenty) == 20


def test_get_chunk_can_leave_out_its_own_note(kb: KnowledgeBase) -> None:
    cid = "person:andrei_clodius_chunk_1"
    others = kb.call("get_chunk", {"chunk_id": cid, "related_limit": 10, "exclude_same_note": True})
    assert others["related_chunks"]
    assert all(r["entity_id"] != "person:andrei_clodius" for r in others["related_chunks"])


def test_get_chunk_card_from_frontmatter_or_extracted(kb: KnowledgeBase) -> None:
    andrei = kb.call("get_chunk", {"chunk_id": "person:andrei_clodius_chunk_0"})
    assert andrei["knowledge_card"]["source"] == "frontmatter"
    assert andrei["knowledge_card"]["takeaways"][0] == (
        "Led the mobile team on the Vector Watch project"
    )
    bare = kb.call("get_chunk", {"chunk_id": "concept:local_first_software_chunk_0"})
    assert bare["ok"], bare
    card = bare["knowledge_card"]
    assert card["source"] == "extracted" and card["summary"]
    assert "[[" not in card["summary"] and "**" not in card["summary"]


def test_get_chunk_not_found_and_validation(kb: KnowledgeBase) -> None:
    missing = kb.call("get_chunk", {"chunk_id": "person:nobody_chunk_0"})
    assert_error(missing, "NotFoundError", "PERMANENT")
    assert missing["message"] == "Chunk 'person:nobody_chunk_0' not found in KB"
    for args, field in (
        ({}, "chunk_id"),
        ({"chunk_id": ""}, "chunk_id"),
        ({"chunk_id": "x", "related_limit": 0}, "related_limit"),
        ({"chunk_id": "x", "related_limit": 21}, "related_limit"),
        ({"chunk_id": "x", "include_related": "no"}, "include_related"),
    ):
        assert_error(kb.call("get_chunk", args), "ValidationError", "VALIDATION", field)


def test_every_tool_name_is_dispatched_and_unknown_ones_fail_cleanly(kb: KnowledgeBase) -> None:
    assert_error(kb.call("kb_teleport", {}), "ValidationError", "VALIDATION")
    assert_error(kb.call("kb_get", None), "ValidationError", "VALIDATION", "id")
