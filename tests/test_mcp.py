"""`kbtui mcp` end to end: a real server subprocess, the SDK's own client, real DuckDB and the
real model. One server serves the whole module (its session lives in an anyio blocking portal,
so the tests stay plain functions); two more short-lived ones check shutdown and stdout."""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from kbtui.tools.registry import PUBLISHED
from tests.conftest import REPO, copy_vault

Answer = dict[str, Any]


def server_args(vault: Path, *extra: str) -> list[str]:
    return ["-m", "kbtui.cli", "mcp", "--vault", str(vault), *extra]


@asynccontextmanager
async def open_session(vault: Path, errlog: IO[str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=server_args(vault), cwd=REPO)
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


class Mcp:
    """A synchronous face on one live client session."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, vault: Path) -> None:
        self.portal, self.session, self.vault = portal, session, vault
        self.startup: list[tuple[str, int, int, int]] = []

    def call(self, name: str, args: dict[str, Any] | None = None) -> Answer:
        result = self.portal.call(self.session.call_tool, name, args)
        answer = result.structured_content
        assert isinstance(answer, dict), result
        assert json.loads(result.content[0].text) == answer  # type: ignore[union-attr]
        assert result.is_error is (not answer["ok"]) and answer["success"] is answer["ok"]
        return answer

    def good(self, name: str, args: dict[str, Any] | None = None) -> Answer:
        answer = self.call(name, args)
        assert answer["ok"] is True, (name, args, answer)
        return answer

    def bad(self, name: str, args: Any, error_type: str, field: str | None = None) -> Answer:
        """A failing call gets the spec's structured error, and the server keeps answering."""
        answer = self.call(name, args)
        assert answer["ok"] is False, (name, args, answer)
        assert answer["error_type"] == error_type, (name, args, answer)
        kind = {"ValidationError": "VALIDATION", "UnavailableError": "TRANSIENT"}
        assert answer["error"]["type"] == kind.get(error_type, "PERMANENT")
        assert answer["error"]["retryable"] is (error_type == "UnavailableError")
        assert answer["message"] == answer["error"]["message"] and answer["message"]
        if field is not None:
            assert answer["error"]["field"] == field, answer
        self.portal.call(self.session.send_ping)
        return answer

    def status(self) -> Answer:
        result = self.portal.call(self.session.read_resource, "kbtui://status")
        return json.loads(result.contents[0].text)  # type: ignore[union-attr,no-any-return]

    def wait_for(self, check: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return True
            time.sleep(0.1)
        return False

    def follow_first_pass(self, timeout: float = 120) -> None:
        """Poll a keyword search and the status until the first pass is done, recording
        (state, results found, chunks, chunks embedded) at each step."""

        def done() -> bool:
            found = self.good("kb_search", {"query": "Zephyr firmware", "mode": "keyword"})
            status = self.status()
            stats = status["stats"]
            self.startup.append(
                (status["index"]["state"], found["total_found"], stats["chunks"], stats["embedded"])
            )
            return status["index"]["state"] == "idle" and stats["chunks"] == stats["embedded"] > 0

        assert self.wait_for(done, timeout), self.startup[-3:]


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    vault = copy_vault(tmp_path_factory.mktemp("mcp") / "vault")
    with (
        open(vault.parent / "server.log", "w") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(open_session(vault, errlog)) as session,
    ):
        client = Mcp(portal, session, vault)
        client.follow_first_pass()
        yield client
    assert "closed the index" in (vault.parent / "server.log").read_text()


# -- listing --------------------------------------------------------------------------------
def test_the_18_tools_are_listed_with_our_schemas_and_descriptions(mcp: Mcp) -> None:
    tools = {t.name: t for t in mcp.portal.call(mcp.session.list_tools).tools}
    assert set(tools) == set(PUBLISHED) and len(tools) == 31  # 21 + #29's 4 + #32's 1 + #39's 5
    for name, tool in tools.items():
        assert tool.input_schema == PUBLISHED[name].input_schema()
        assert tool.description == PUBLISHED[name].description
    top_k = tools["kb_search"].input_schema["properties"]["top_k"]
    assert (top_k["default"], top_k["minimum"], top_k["maximum"]) == (5, 1, 10)
    size = tools["knowledge_import"].input_schema["properties"]["chunk_size"]
    assert (size["default"], size["minimum"], size["maximum"]) == (500, 100, 10000)
    assert tools["kb_get"].input_schema["required"] == ["id"]


def test_keyword_results_are_served_while_embeddings_are_computed(mcp: Mcp) -> None:
    during = [s for s in mcp.startup if s[1] > 0 and s[3] < s[2]]
    assert during, mcp.startup  # Zephyr found by keyword before every chunk had its vector
    assert mcp.startup[-1][0] == "idle"


# -- the kb tools ---------------------------------------------------------------------------
def test_kb_search_and_kb_get(mcp: Mcp) -> None:
    found = mcp.good("kb_search", {"query": "who worked on the watch project", "top_k": 3})
    assert 1 <= len(found["results"]) <= 3 and found["total_found"] == len(found["results"])
    for r in found["results"]:
        assert 0 <= r["score"] <= 1 and len(r["snippet"]) <= 200 and r["id"]
    voice = mcp.good("kb_search", {"query": "watch", "top_k": 10, "capabilities": {"voice": True}})
    assert len(voice["results"]) <= 3
    assert mcp.good("kb_search", {"query": "quantum computing blockchain NFTs"})["results"] == []
    mcp.bad("kb_search", {"query": "ab"}, "ValidationError", "query")
    mcp.bad("kb_search", {"query": "watch", "top_k": 11}, "ValidationError", "top_k")
    mcp.bad("kb_search", {"query": "watch", "filters": {"type": "x y"}}, "ValidationError")
    mcp.bad("kb_search", {"query": "watch", "colour": "red"}, "ValidationError", "colour")
    mcp.bad("kb_search", {}, "ValidationError", "query")

    note = mcp.good("kb_get", {"id": "person:andrei_clodius"})
    assert note["title"] == "Andrei Clodius" and "Vector Watch" in note["content"]
    assert note["chunks_count"] >= 1 and note["metadata"]["file_path"] == "people/andrei_clodius.md"
    missing = mcp.bad("kb_get", {"id": "person:nonexistent"}, "NotFoundError")
    assert missing["message"] == "Entity 'person:nonexistent' not found in KB"
    mcp.bad("kb_get", {"id": "Person:Andrei"}, "ValidationError", "id")
    mcp.bad("kb_get", {"id": 5}, "ValidationError", "id")


def test_get_chunk(mcp: Mcp) -> None:
    chunk = mcp.good("get_chunk", {"chunk_id": "person:andrei_clodius_chunk_0", "related_limit": 2})
    assert re.fullmatch(r"1/\d+", chunk["chunk_info"]) and chunk["content"]
    assert chunk["knowledge_card"]["summary"] and 1 <= len(chunk["related_chunks"]) <= 2
    mcp.bad("get_chunk", {"chunk_id": "person:nobody_chunk_0"}, "NotFoundError")
    mcp.bad("get_chunk", {"chunk_id": "x", "related_limit": 21}, "ValidationError", "related_limit")


def test_knowledge_import_then_query_finds_it(mcp: Mcp) -> None:
    text = " ".join(
        f"Paragraph {i}: the quokkaflux gateway allows 100 requests per minute per key, "
        "and bursts are smoothed with a token bucket."
        for i in range(8)
    )
    made = mcp.good("knowledge_import", {
        "title": "Quokkaflux API limits", "content": text, "category": "documentation",
        "source": "https://example.com/docs", "chunk_size": 300, "chunk_overlap": 30,
    })  # fmt: skip
    uuid.UUID(made["document_id"])
    assert made["chunks_created"] >= 2 and (mcp.vault / made["file_path"]).is_file()
    query = {"query": "quokkaflux rate limit per key", "category": "documentation", "top_k": 3}
    hits = mcp.good("knowledge_query", query)["results"]
    assert hits and hits[0]["document"]["id"] == made["document_id"]
    assert 0 <= hits[0]["similarity"] <= 1
    by_doc = mcp.good(
        "knowledge_query", {"query": "token bucket", "document_id": made["entity_id"]}
    )
    assert {h["document"]["entity_id"] for h in by_doc["results"]} == {made["entity_id"]}
    overlap = {"title": "T", "content": "x", "chunk_size": 100, "chunk_overlap": 100}
    mcp.bad("knowledge_import", overlap, "ValidationError", "chunk_overlap")
    mcp.bad("knowledge_import", {"title": "T", "content": "x", "chunk_size": 99}, "ValidationError")
    mcp.bad("knowledge_import", {"content": "no title"}, "ValidationError", "title")
    mcp.bad("knowledge_query", {"query": "x", "top_k": 51}, "ValidationError", "top_k")


# -- the graph tools ------------------------------------------------------------------------
def test_graph_reads(mcp: Mcp) -> None:
    entity = mcp.good("kg_get_entity", {"entityId": "person:andrei_clodius"})["entity"]
    assert entity["id"] == "person:andrei_clodius" and 0 <= entity["qValue"] <= 1
    mcp.bad("kg_get_entity", {"entityId": "person:nobody"}, "NotFoundError")
    mcp.bad("kg_get_entity", {"entityId": "ent abc"}, "ValidationError", "entityId")

    found = mcp.good("kg_find_entity", {"name": "Andrei"})
    assert "person:andrei_clodius" in [e["id"] for e in found["entities"]]
    mcp.bad("kg_find_entity", {"name": "x", "limit": 51}, "ValidationError", "limit")

    args = {"entityId": "person:andrei_clodius", "direction": "outgoing",
            "relationshipType": "WORKS_ON"}  # fmt: skip
    projects = mcp.good("kg_get_neighbors", args)
    assert "project:vector_watch_project" in {e["id"] for e in projects["entities"]}
    assert all(r["type"] == "WORKS_ON" for r in projects["relationships"])
    mcp.bad("kg_get_neighbors", {**args, "direction": "up"}, "ValidationError", "direction")

    path = {"fromEntityId": "person:amara_nwosu", "toEntityId": "technology:zephyr_rtos"}
    route = mcp.good("kg_find_path", {**path, "maxHops": 3})
    assert route["found"] is True and route["path"]["entityIds"][-1] == "technology:zephyr_rtos"
    mcp.bad("kg_find_path", {**path, "maxHops": 11}, "ValidationError", "maxHops")
    mcp.bad("kg_find_path", {**path, "toEntityId": "person:x"}, "NotFoundError")

    top = mcp.good("kg_get_high_utility_entities", {"limit": 3})
    assert top["count"] == len(top["entities"]) <= 3
    mcp.bad("kg_get_high_utility_entities", {"limit": 0}, "ValidationError", "limit")

    context = mcp.good("kg_get_context", {"keywords": ["Zephyr", "firmware", "watch"]})
    assert "technology:zephyr_rtos" in {e["id"] for e in context["context"]["entities"]}
    mcp.bad("kg_get_context", {"keywords": "Zephyr"}, "ValidationError", "keywords")

    phase = mcp.good("kg_get_phase_context", {
        "phase": "planning", "taskContent": "Fix the Zephyr power bug on the watch",
        "entityIds": ["project:vector_watch_project"],
    })  # fmt: skip
    assert phase["phaseContext"]["phase"] == "planning" and phase["summary"]
    mcp.bad("kg_get_phase_context", {"phase": "dreaming"}, "ValidationError", "phase")


def test_graph_image_is_an_svg_an_assistant_can_show(mcp: Mcp) -> None:
    from xml.etree import ElementTree

    args = {"entityId": "person:andrei_clodius", "depth": 2, "maxNodes": 30}
    image = mcp.good("kg_graph_image", args)
    root = ElementTree.fromstring(image["svg"])
    nodes = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-id")]
    assert len(nodes) == image["nodeCount"] <= 30 and image["edgeCount"] > 0
    assert "Andrei Clodius" in image["message"]
    overview = mcp.good("kg_graph_image", {})
    assert "person (14)" in overview["svg"]
    mcp.bad("kg_graph_image", {**args, "depth": 0}, "ValidationError", "depth")
    mcp.bad("kg_graph_image", {"entityId": "person:nobody"}, "NotFoundError")


def test_extraction_and_duplicates(mcp: Mcp) -> None:
    text = "Andrei Clodius works on the Vector Watch project, which uses Zephyr RTOS."
    got = mcp.good("kg_extract_from_text", {"text": text})
    assert got["entitiesExtracted"] == len(got["result"]["entities"]) >= 1
    assert "person:andrei_clodius" in {e["id"] for e in got["result"]["entities"]}
    memory = mcp.good("kg_extract_from_memory", {"memoryId": "m-1", "memoryContent": text})
    assert memory["result"]["linkedToMemory"] is False
    mcp.bad("kg_extract_from_text", {"text": ""}, "ValidationError", "text")
    mcp.bad("kg_extract_from_memory", {"memoryContent": text}, "ValidationError", "memoryId")

    dups = mcp.good("kg_find_duplicates", {"threshold": 0.8})
    assert dups["count"] == len(dups["duplicates"])
    pairs = [{d["entity1"]["id"], d["entity2"]["id"]} for d in dups["duplicates"]]
    assert {"technology:react", "technology:reactjs"} in pairs
    mcp.bad("kg_find_duplicates", {"threshold": 1.5}, "ValidationError", "threshold")


def test_graph_writes_land_in_the_vault(mcp: Mcp) -> None:
    made = mcp.good(
        "kg_create_entity", {"name": "Svelte", "type": "technology", "aliases": ["SvelteJS"]}
    )
    assert made["entity"]["id"] == "technology:svelte"
    assert "SvelteJS" in (mcp.vault / made["entity"]["source"]).read_text()
    mcp.bad("kg_create_entity", {"name": "Svelte", "type": "technology"}, "ConflictError")
    mcp.bad("kg_create_entity", {"name": "X", "type": "spaceship"}, "ValidationError", "type")

    link = {"fromEntityId": "person:sofia_marquez", "toEntityId": "project:vector_watch_project"}
    rel = mcp.good("kg_create_relationship", {**link, "type": "WORKS_ON"})["relationship"]
    assert rel["type"] == "WORKS_ON" and rel["fromEntityId"] == "person:sofia_marquez"
    mcp.bad("kg_create_relationship", {**link, "type": "LIKES"}, "ValidationError", "type")
    ghost = {**link, "toEntityId": "person:ghost", "type": "USES"}
    mcp.bad("kg_create_relationship", ghost, "NotFoundError")

    merge = {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:reactjs"]}
    merged = mcp.good("kg_merge_entities", merge)
    assert merged["result"]["mergedEntity"]["id"] == "technology:react"
    mcp.bad("kg_get_entity", {"entityId": "technology:reactjs"}, "NotFoundError")
    mcp.bad("kg_merge_entities", merge, "NotFoundError")
    itself = {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:react"]}
    mcp.bad("kg_merge_entities", itself, "ValidationError")


def test_unknown_tools_and_malformed_arguments_fail_cleanly(mcp: Mcp) -> None:
    mcp.bad("kb_teleport", {}, "ValidationError")
    mcp.bad("kb_get", None, "ValidationError", "id")
    mcp.bad("kb_search", {"query": ["a", "list"]}, "ValidationError", "query")
    mcp.bad("kg_merge_entities", {"targetEntityId": "a:b", "sourceEntityIds": 3}, "ValidationError")
    assert mcp.good("kb_get", {"id": "person:andrei_clodius"})["id"] == "person:andrei_clodius"


# -- resources ------------------------------------------------------------------------------
def test_notes_are_resources_by_entity_id(mcp: Mcp) -> None:
    listed = mcp.portal.call(mcp.session.list_resources)
    by_uri = {str(r.uri): r for r in listed.resources}
    andrei = by_uri["kbtui://note/person:andrei_clodius"]
    assert andrei.mime_type == "text/markdown" and andrei.title == "Andrei Clodius"
    assert "kbtui://status" in by_uri and len(by_uri) > 50
    templates = mcp.portal.call(mcp.session.list_resource_templates).resource_templates
    assert [t.uri_template for t in templates] == ["kbtui://note/{id}"]

    read = mcp.portal.call(mcp.session.read_resource, "kbtui://note/person:andrei_clodius")
    (content,) = read.contents
    assert content.mime_type == "text/markdown"
    expected = mcp.good("kb_get", {"id": "person:andrei_clodius"})["content"]
    assert content.text == expected  # type: ignore[union-attr]
    for uri in ("kbtui://note/person:nobody", "kbtui://elsewhere/x"):
        with pytest.raises(MCPError):
            mcp.portal.call(mcp.session.read_resource, uri)
    mcp.portal.call(mcp.session.send_ping)


# -- live watching --------------------------------------------------------------------------
def test_edits_while_serving_are_searchable_within_seconds(mcp: Mcp) -> None:
    note = mcp.vault / "people" / "andrei_clodius.md"
    note.write_text(note.read_text() + "\nHe keeps a pet axolotl named Quibblewick.\n")
    new = mcp.vault / "concepts" / "fresh_idea.md"
    new.write_text("# Fresh idea\nA zorblattic approach to note taking.\n")

    def found(word: str, entity: str) -> Callable[[], bool]:
        def check() -> bool:
            hits = mcp.good("kb_search", {"query": word, "mode": "keyword"})["results"]
            return entity in {h["id"] for h in hits}

        return check

    assert mcp.wait_for(found("Quibblewick", "person:andrei_clodius"), 5)
    assert mcp.wait_for(found("zorblattic", "concept:fresh_idea"), 5)
    new.unlink()
    assert mcp.wait_for(lambda: not found("zorblattic", "concept:fresh_idea")(), 5)


def test_the_server_logged_no_tracebacks(mcp: Mcp) -> None:
    log = (mcp.vault.parent / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]
