"""The kg_* tools of spec 004 on a real vault copy and a real DuckDB file."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from tests.kg_kit import fails, indexed_kb


@pytest.fixture
def kb(settings: Settings) -> Iterator[KnowledgeBase]:
    yield from indexed_kb(settings)


def graph(kb: KnowledgeBase) -> set[tuple[str, str, str, str]]:
    rows = kb.store.con.execute(
        "SELECT source_id, type, target_id, coalesce(label, '') FROM relationships"
    ).fetchall()
    return {tuple(r) for r in rows}


# -- entity queries -------------------------------------------------------------------------
def test_get_entity(kb: KnowledgeBase) -> None:
    got = kb.call("kg_get_entity", {"entityId": "person:andrei_clodius"})
    entity = got["entity"]
    assert got["success"] is True and entity["name"] == "Andrei Clodius"
    assert entity["type"] == "person" and entity["aliases"] == ["Andrei", "A. Clodius"]
    assert set(entity) >= {
        "id", "channelId", "name", "type", "aliases", "description", "confidence", "qValue",
        "accessCount", "lastAccessed", "source", "createdAt", "updatedAt",
    }  # fmt: skip
    assert 0 <= entity["qValue"] <= 1 and entity["accessCount"] == 1  # this call used it
    fails(kb.call("kg_get_entity", {"entityId": "person:nobody"}), "NotFoundError", entity=None)
    fails(kb.call("kg_get_entity", {"entityId": "ent abc"}), "ValidationError", entity=None)


def test_find_entity_partial_exact_and_aliases(kb: KnowledgeBase) -> None:
    partial = kb.call("kg_find_entity", {"name": "Andrei", "limit": 5})
    assert partial["success"] and partial["entities"][0]["id"] == "person:andrei_clodius"
    assert partial["count"] == len(partial["entities"]) <= 5 <= 5
    assert partial["totalFound"] >= partial["count"]
    exact = kb.call("kg_find_entity", {"name": "BLE", "exact": True})
    assert [e["id"] for e in exact["entities"]] == ["technology:bluetooth_le"]
    assert kb.call("kg_find_entity", {"name": "bluetooth", "exact": True})["entities"] == []
    many = kb.call("kg_find_entity", {"name": "a", "limit": 50})
    assert many["count"] == 50 and many["totalFound"] > 50
    for bad in ({"name": ""}, {"name": "x", "limit": 0}, {"name": "x", "limit": 51}):
        fails(kb.call("kg_find_entity", bad), "ValidationError", entities=[], count=0)


def test_neighbors_by_direction_and_type(kb: KnowledgeBase) -> None:
    projects = kb.call(
        "kg_get_neighbors",
        {
            "entityId": "person:andrei_clodius",
            "direction": "outgoing",
            "relationshipType": "WORKS_ON",
        },
    )
    assert {e["id"] for e in projects["entities"]} == {
        "project:vector_watch_project",
        "project:tidepool_app",
    }
    assert all(r["type"] == "WORKS_ON" for r in projects["relationships"])
    assert projects["entityCount"] == 2 and projects["relationshipCount"] == 2
    incoming = kb.call(
        "kg_get_neighbors",
        {
            "entityId": "project:vector_watch_project",
            "direction": "incoming",
            "relationshipType": "WORKS_ON",
        },
    )
    team = {e["id"] for e in incoming["entities"]}
    assert {"person:andrei_clodius", "person:tomas_lindqvist", "person:priya_raman"} <= team
    both = kb.call("kg_get_neighbors", {"entityId": "person:andrei_clodius", "limit": 3})
    assert both["entityCount"] == 3
    fails(
        kb.call("kg_get_neighbors", {"entityId": "person:andrei_clodius", "direction": "up"}),
        "ValidationError",
        entities=[],
        relationships=[],
    )
    fails(
        kb.call("kg_get_neighbors", {"entityId": "person:x", "relationshipType": "LIKES"}),
        "ValidationError",
    )


def test_find_path(kb: KnowledgeBase) -> None:
    found = kb.call(
        "kg_find_path",
        {
            "fromEntityId": "person:amara_nwosu",
            "toEntityId": "technology:zephyr_rtos",
            "maxHops": 3,
        },
    )
    assert found["success"] and found["found"] is True
    ids, rels = found["path"]["entityIds"], found["path"]["relationshipIds"]
    assert ids[0] == "person:amara_nwosu" and ids[-1] == "technology:zephyr_rtos"
    assert found["hopCount"] == len(rels) == len(ids) - 1 <= 3
    by_id = {r["id"]: r for r in found["relationships"]}
    for (a, b), rel_id in zip(itertools.pairwise(ids), rels, strict=True):
        assert {by_id[rel_id]["fromEntityId"], by_id[rel_id]["toEntityId"]} == {a, b}
    for hops in (0, 11):
        fails(
            kb.call(
                "kg_find_path",
                {
                    "fromEntityId": "person:amara_nwosu",
                    "toEntityId": "technology:zephyr_rtos",
                    "maxHops": hops,
                },
            ),
            "ValidationError",
            path=None,
            found=False,
        )
    fails(
        kb.call("kg_find_path", {"fromEntityId": "person:amara_nwosu", "toEntityId": "person:x"}),
        "NotFoundError",
        path=None,
    )


def test_q_values_learn_and_survive_reindexing(kb: KnowledgeBase, settings: Settings) -> None:
    for _ in range(5):
        kb.call("kg_get_entity", {"entityId": "technology:zephyr_rtos"})
    top = kb.call("kg_get_high_utility_entities", {"limit": 3})
    assert top["entities"][0]["id"] == "technology:zephyr_rtos"
    q = top["entities"][0]["qValue"]
    assert 0.5 < q < 1 and top["entities"][0]["accessCount"] == 5
    assert [e["qValue"] for e in top["entities"]] == sorted(
        (e["qValue"] for e in top["entities"]), reverse=True
    )
    note = settings.vault / "tech/zephyr_rtos.md"
    note.write_text(note.read_text() + "\nMore notes.\n")
    kb.indexer.run()
    again = kb.call("kg_get_entity", {"entityId": "technology:zephyr_rtos"})["entity"]
    assert again["accessCount"] == 6 and again["qValue"] > q


def test_context_and_phase_context(kb: KnowledgeBase) -> None:
    context = kb.call("kg_get_context", {"keywords": ["Zephyr", "firmware", "watch"]})
    ids = {e["id"] for e in context["context"]["entities"]}
    assert "technology:zephyr_rtos" in ids
    assert context["stats"] == context["context"]["stats"]
    assert context["stats"]["entityCount"] == len(ids)
    assert "highUtilityEntities" in context["context"]
    for phase in ("observation", "reasoning", "planning", "action", "reflection"):
        answer = kb.call(
            "kg_get_phase_context",
            {
                "phase": phase,
                "taskContent": "Fix the Zephyr firmware power bug on the watch",
                "entityIds": ["project:vector_watch_project"],
            },
        )
        assert answer["success"], (phase, answer)
        assert answer["phaseContext"]["phase"] == phase and answer["summary"]
        assert answer["entityCount"] == len(answer["phaseContext"]["entities"]) > 0
        assert answer["executionTimeMs"] >= 0
    fails(kb.call("kg_get_phase_context", {"phase": "dreaming"}), "ValidationError")


# -- writes land in the vault ---------------------------------------------------------------
def test_create_entity_writes_a_note(kb: KnowledgeBase, settings: Settings) -> None:
    made = kb.call(
        "kg_create_entity",
        {
            "name": "Svelte",
            "type": "technology",
            "aliases": ["SvelteJS", "Svelte.js"],
            "description": "A compiler for building user interfaces",
        },
    )
    assert made["success"], made
    entity = made["entity"]
    assert entity["id"] == "technology:svelte" and entity["source"] == "tech/Svelte.md"
    path = settings.vault / entity["source"]
    assert path.is_file() and "SvelteJS" in path.read_text()
    # the properties vault_example's notes use, no more: its descriptions are `summary`
    props = path.read_text().split("---\n")[1]
    assert [line.split(":")[0] for line in props.splitlines() if ":" in line] == [
        "id", "type", "title", "aliases", "summary",
    ]  # fmt: skip
    assert entity["confidence"] == 0.8 and entity["aliases"] == ["SvelteJS", "Svelte.js"]
    assert kb.call("kg_find_entity", {"name": "sveltejs", "exact": True})["count"] == 1
    duplicate = kb.call("kg_create_entity", {"name": "React", "type": "technology"})
    fails(duplicate, "ConflictError", entity=None)  # technology:react exists
    fails(kb.call("kg_create_entity", {"name": "X", "type": "spaceship"}), "ValidationError")
    again = kb.call("kg_create_entity", {"name": entity["name"], "type": "technology"})
    fails(again, "ConflictError", entity=None)


def test_find_path_follows_graph_edits(kb: KnowledgeBase) -> None:
    """The search's in-memory adjacency is rebuilt when a write changes the relationships."""
    ends = {"fromEntityId": "person:amara_nwosu", "toEntityId": "technology:zephyr_rtos"}
    before = kb.call("kg_find_path", {**ends, "maxHops": 5})
    assert before["found"] is True and before["hopCount"] > 1
    made = kb.call("kg_create_relationship", {**ends, "type": "USES"})
    assert made["success"], made
    after = kb.call("kg_find_path", {**ends, "maxHops": 5})
    assert after["hopCount"] == 1
    assert after["path"]["relationshipIds"] == [made["relationship"]["id"]]


def test_create_relationship_edits_only_that_frontmatter_field(
    kb: KnowledgeBase, settings: Settings
) -> None:
    note = settings.vault / "people/sofia_marquez.md"
    before = note.read_text()
    made = kb.call(
        "kg_create_relationship",
        {
            "fromEntityId": "person:sofia_marquez",
            "toEntityId": "project:vector_watch_project",
            "type": "WORKS_ON",
            "label": "ML advisor",
        },
    )
    assert made["success"], made
    rel = made["relationship"]
    assert (rel["fromEntityId"], rel["toEntityId"], rel["type"], rel["label"]) == (
        "person:sofia_marquez",
        "project:vector_watch_project",
        "WORKS_ON",
        "ML advisor",
    )
    assert rel["confidence"] == 0.8
    after = note.read_text()
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(added) <= 2 and any("vector_watch_project|ML advisor" in a for a in added)
    assert after.replace("".join(f"{a}\n" for a in added), "") == before or len(
        after.splitlines()
    ) == len(before.splitlines()) + len(added) - (1 if len(added) == 1 else 0)
    same = kb.call(
        "kg_create_relationship",
        {
            "fromEntityId": "person:sofia_marquez",
            "toEntityId": "project:vector_watch_project",
            "type": "WORKS_ON",
            "label": "ML advisor",
        },
    )
    assert same["relationship"]["id"] == rel["id"] and note.read_text() == after
    for bad, kind in (
        (
            {
                "fromEntityId": "person:sofia_marquez",
                "toEntityId": "person:sofia_marquez",
                "type": "RELATED_TO",
            },
            "ValidationError",
        ),
        (
            {
                "fromEntityId": "person:sofia_marquez",
                "toEntityId": "person:ghost",
                "type": "RELATED_TO",
            },
            "NotFoundError",
        ),
        (
            {
                "fromEntityId": "person:sofia_marquez",
                "toEntityId": "person:maya_okafor",
                "type": "LIKES",
            },
            "ValidationError",
        ),
    ):
        fails(kb.call("kg_create_relationship", bad), kind, relationship=None)


def test_the_graph_is_rebuilt_identically_from_the_vault(
    kb: KnowledgeBase, settings: Settings
) -> None:
    kb.call("kg_create_entity", {"name": "Kubernetes", "type": "technology"})
    kb.call(
        "kg_create_relationship",
        {
            "fromEntityId": "project:atlas_sync",
            "toEntityId": "technology:kubernetes",
            "type": "DEPENDS_ON",
        },
    )
    before = graph(kb)
    kb.close()
    settings.db_path.unlink()
    fresh = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    try:
        fresh.indexer.run()
        assert graph(fresh) == before
        assert ("project:atlas_sync", "DEPENDS_ON", "technology:kubernetes", "") in before
    finally:
        fresh.close()


def test_merge_keeps_everything_and_links_still_resolve(
    kb: KnowledgeBase, settings: Settings
) -> None:
    vault = settings.vault
    incoming_before = {(s, t) for s, t, target, _ in graph(kb) if target == "technology:reactjs"}
    assert incoming_before  # notes link to reactjs
    source_text = (vault / "tech/reactjs.md").read_text()
    merged = kb.call(
        "kg_merge_entities",
        {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:reactjs"]},
    )
    assert merged["success"], merged
    result = merged["result"]
    assert result["success"] is True and result["mergedEntity"]["id"] == "technology:react"
    assert result["relationshipsTransferred"] >= len(incoming_before)
    assert {a.lower() for a in result["aliasesMerged"]} >= {"reactjs"}
    assert not (vault / "tech/reactjs.md").exists()
    trashed = vault / result["trashed"][0]  # the vault's trash (.obsidian/app.json: unset)
    assert trashed.parent == vault / ".trash"
    assert trashed.read_text() == source_text  # nothing lost
    target_text = (vault / "tech/react.md").read_text()
    assert "## Merged from" in target_text
    after = graph(kb)
    assert not any("technology:reactjs" in (s, t) for s, _, t, _ in after)
    for source, kind in incoming_before - {("technology:react", "RELATED_TO")}:
        if source == "technology:react":
            continue  # the target's own link to the source became a self-link: dropped
        assert (source, kind, "technology:react") in {(s, k, t) for s, k, t, _ in after}
    assert kb.call("kg_get_entity", {"entityId": "technology:reactjs"})["success"] is False
    fails(
        kb.call(
            "kg_merge_entities",
            {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:react"]},
        ),
        "ValidationError",
        result=None,
    )
    fails(
        kb.call(
            "kg_merge_entities",
            {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:nothing"]},
        ),
        "NotFoundError",
    )


def test_merge_dry_run_answers_what_would_happen_and_writes_nothing(
    kb: KnowledgeBase, settings: Settings
) -> None:
    """kg_merge_entities moved the source note into .archive/ with no preview: dryRun gives
    the answer the merge would, from the same plan, and leaves the vault and the index be."""
    vault = settings.vault

    def files() -> dict[str, bytes]:
        return {
            p.relative_to(vault).as_posix(): p.read_bytes()
            for p in vault.rglob("*")
            if p.is_file() and ".kbtui" not in p.parts
        }

    source = vault / "tech/reactjs.md"
    source.write_text(
        source.read_text().replace("related_to:", 'uses: ["[[sqlite]]"]\nrelated_to:')
    )
    kb.indexer.run(paths=["tech/reactjs.md"])
    before, relations = files(), graph(kb)
    args = {"targetEntityId": "technology:react", "sourceEntityIds": ["technology:reactjs"]}
    plan = kb.call("kg_merge_entities", {**args, "dryRun": True})
    assert plan["success"], plan
    preview = plan["result"]
    assert preview["dryRun"] is True and "nothing was written" in plan["message"]
    assert preview["filesChanged"] == ["tech/react.md"]
    assert preview["removed"] == ["tech/reactjs.md"]
    assert preview["linksAdded"] == ["uses: [[sqlite]]"]  # its relation, now the target's
    assert "reactjs" in {a.lower() for a in preview["aliasesMerged"]}
    assert set(preview["mergedEntity"]["aliases"]) >= set(preview["aliasesMerged"])
    incoming = {s for s, _, t, _ in relations if t == "technology:reactjs"} - {"technology:react"}
    assert incoming and len(preview["linkingNotes"]) >= len(incoming)
    assert "tech/react.md" in preview["linkingNotes"]  # its related_to: [[reactjs]]
    assert files() == before and not (vault / ".trash").exists()
    assert graph(kb) == relations
    assert kb.call("kg_get_entity", {"entityId": "technology:reactjs"})["success"]

    merged = kb.call("kg_merge_entities", args)["result"]
    assert merged["dryRun"] is False and merged["trashed"] == [".trash/reactjs.md"]
    for key in ("filesChanged", "removed", "linksAdded", "aliasesMerged", "linkingNotes"):
        assert merged[key] == preview[key], key
    assert merged["relationshipsTransferred"] == preview["relationshipsTransferred"]
    assert sorted(merged["mergedEntity"]["aliases"]) == sorted(preview["mergedEntity"]["aliases"])
    target = (vault / "tech/react.md").read_text()
    assert all(link.split(": ", 1)[1] in target for link in merged["linksAdded"])


def git_diff(vault: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(vault), "diff", "--stat"], capture_output=True, text=True
    ).stdout
