"""kg_extract_from_text / kg_extract_from_memory and kg_find_duplicates (spec 004) on a real
vault copy and a real DuckDB file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kbtui.config import Settings
from kbtui.runtime.knowledge_base import KnowledgeBase
from tests.kg_kit import SPEC_ENTITIES, SPEC_RELATIONS, SPEC_TEXT, fails, indexed_kb


@pytest.fixture
def kb(settings: Settings) -> Iterator[KnowledgeBase]:
    yield from indexed_kb(settings)


def test_extract_from_text_spec_example(kb: KnowledgeBase, settings: Settings) -> None:
    before = sorted(p.name for p in settings.vault.rglob("*.md"))
    answer = kb.call("kg_extract_from_text", {"text": SPEC_TEXT})
    assert answer["success"], answer
    result = answer["result"]
    entities = {(e["name"], e["type"]) for e in result["entities"]}
    assert entities >= SPEC_ENTITIES
    names = {e["id"]: e["name"] for e in result["entities"]}
    rels = {
        (names[r["fromEntityId"]], r["type"], names[r["toEntityId"]])
        for r in result["relationships"]
    }
    assert rels >= SPEC_RELATIONS
    assert answer["entitiesExtracted"] == result["entitiesExtracted"] == len(result["entities"])
    assert answer["relationshipsExtracted"] == len(result["relationships"])
    assert sorted(p.name for p in settings.vault.rglob("*.md")) == before  # proposes only


def test_extract_finds_known_entities_and_can_persist(kb: KnowledgeBase) -> None:
    text = "Andrei Clodius now uses Zephyr for the Atlas Sync prototype with Maya."
    answer = kb.call("kg_extract_from_memory", {"memoryId": "mem_1", "memoryContent": text})
    known = {e["id"] for e in answer["result"]["entities"] if not e["isNew"]}
    assert {"person:andrei_clodius", "technology:zephyr_rtos"} <= known
    assert answer["result"]["linkedToMemory"] is False
    new = kb.call(
        "kg_extract_from_text", {"text": "Rosa Diaz from Initech uses Kubernetes.", "persist": True}
    )
    created = [e for e in new["result"]["entities"] if e["isNew"]]
    assert created and all(
        kb.call("kg_get_entity", {"entityId": e["id"]})["success"] for e in created
    )
    fails(kb.call("kg_extract_from_text", {"text": ""}), "ValidationError", result=None)
    fails(kb.call("kg_extract_from_memory", {"memoryContent": "x"}), "ValidationError")


def test_find_duplicates_on_the_example_vault(kb: KnowledgeBase) -> None:
    found = kb.call("kg_find_duplicates", {"threshold": 0.85})
    pairs = {frozenset((d["entity1"]["id"], d["entity2"]["id"])) for d in found["duplicates"]}
    assert frozenset(("technology:react", "technology:reactjs")) in pairs
    assert found["count"] == len(found["duplicates"])
    sims = [d["similarity"] for d in found["duplicates"]]
    assert sims == sorted(sims, reverse=True) and all(0.85 <= s <= 1 for s in sims)
    stricter = kb.call("kg_find_duplicates", {"threshold": 0.99})
    assert stricter["count"] <= found["count"]
    fails(kb.call("kg_find_duplicates", {"threshold": 1.5}), "ValidationError", duplicates=[])
