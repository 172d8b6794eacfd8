"""Relationships resolve like Obsidian links and stay equal to a full rebuild as notes change."""

from __future__ import annotations

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def relationships(store: Store) -> set[tuple[str, ...]]:
    rows = store.con.execute(
        "SELECT rel_id, source_id, target_id, type, coalesce(label, ''), origin FROM relationships"
    ).fetchall()
    return {tuple(r) for r in rows}


def assert_same_as_rebuild(store: Store) -> set[tuple[str, ...]]:
    incremental = relationships(store)
    store.rebuild_relationships()
    assert relationships(store) == incremental
    return incremental


def test_links_resolve_by_id_file_name_title_and_alias(settings: Settings, store: Store) -> None:
    Indexer(settings, store, HashEmbedder()).run(embed=False)
    rels = assert_same_as_rebuild(store)
    andrei = {(r[2], r[3], r[4]) for r in rels if r[1] == "person:andrei_clodius"}
    assert ("project:vector_watch_project", "WORKS_ON", "") in andrei  # [[vector_watch_project]]
    assert ("organization:vector_studio", "MEMBER_OF", "") in andrei  # [[Vector Studio]]: title
    assert ("technology:bluetooth_le", "REFERENCES", "BLE") in andrei  # [[bluetooth_le|BLE]]
    assert ("technology:rust", "USES", "") in andrei  # [[rust]] -> tech/Rust.md, any case
    targets = {r[2] for r in rels}
    assert not any("someday" in t or "q3_roadmap" in t for t in targets)  # unresolved links
    assert all(r[1] != r[2] for r in rels)


def test_incremental_relinking_matches_a_full_rebuild(settings: Settings, store: Store) -> None:
    indexer = Indexer(settings, store, HashEmbedder())
    indexer.run(embed=False)
    before = assert_same_as_rebuild(store)
    vault = settings.vault
    # A note that did not exist: [[Someday Ideas]] links now resolve to it.
    (vault / "Someday Ideas.md").write_text("# Someday Ideas\n\n- a watch for dogs\n")
    indexer.run(embed=False)
    after = assert_same_as_rebuild(store)
    assert {r[1] for r in after if r[2] == "note:someday_ideas"} >= {"person:andrei_clodius"}
    # An alias removed: links that used it stop resolving; a deleted note loses its edges.
    ble = vault / "tech/bluetooth_le.md"
    ble.write_text(ble.read_text().replace("BLE", "Bluetooth Low Energy"))
    (vault / "people/maya_okafor.md").unlink()
    indexer.run(embed=False)
    final = assert_same_as_rebuild(store)
    assert not any("person:maya_okafor" in (r[1], r[2]) for r in final)
    assert len(final) < len(after) and len(after) > len(before)
