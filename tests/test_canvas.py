"""Canvases (JSON Canvas 1.0) in a copy of vault_example, real DuckDB index: text cards found
by search (the hit names the canvas and the card), file cards as links (backlinks, graph),
edges as relationships from card to card (the way the arrows point), kept current when the
canvas or a card's note changes, kb_get reading the cards, a broken canvas skipped."""

from __future__ import annotations

import json

from kbtui.runtime.runtime import VaultRuntime

CANVAS = {
    "nodes": [
        {
            "id": "t1",
            "type": "text",
            "text": "Ship the zebra-striped prototype by May",
            "x": 0,
            "y": 0,
            "width": 200,
            "height": 100,
        },
        {
            "id": "f1",
            "type": "file",
            "file": "projects/atlas_sync.md",
            "x": 0,
            "y": 200,
            "width": 200,
            "height": 100,
        },
        {
            "id": "f2",
            "type": "file",
            "file": "tech/sqlite.md",
            "x": 300,
            "y": 200,
            "width": 200,
            "height": 100,
        },
    ],
    "edges": [{"id": "e1", "fromNode": "f1", "toNode": "f2", "label": "stores data in"}],
}


def test_canvas_cards_links_and_edges(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "boards").mkdir()
    (vault / "boards" / "Plan.canvas").write_text(json.dumps(CANVAS))
    (vault / "boards" / "Broken.canvas").write_text('{"nodes": [{"type": "text"')
    report = runtime.reindex()
    assert any(
        s.path == "boards/Broken.canvas" and "broken canvas" in s.reason for s in report.skipped
    )
    hits = runtime.call("kb_search", {"query": "zebra-striped prototype", "mode": "keyword"})
    top = hits["results"][0]
    assert top["id"] == "canvas:plan" and top["metadata"]["heading"] == "Card t1"
    assert top["metadata"]["file_path"] == "boards/Plan.canvas"
    back = runtime.call("vault_links", {"kind": "backlinks", "note": "projects/atlas_sync.md"})
    assert {"file": "boards/Plan.canvas", "count": 1} in back["results"]
    near = runtime.call(
        "kg_get_neighbors", {"entityId": "technology:sqlite", "direction": "incoming"}
    )
    labels = {(r["fromEntityId"], r["label"]) for r in near["relationships"]}
    assert ("project:atlas_sync", "stores data in") in labels  # card to card, as drawn
    assert ("canvas:plan", "stores data in") not in labels
    got = runtime.call("kb_get", {"id": "canvas:plan"})
    assert "Ship the zebra-striped prototype by May" in got["content"]
    assert "projects/atlas_sync.md → stores data in → tech/sqlite.md" in got["content"]
    assert runtime.call("vault_links", {"kind": "links", "note": "boards/Plan.canvas"})[
        "results"
    ] == [{"file": "projects/atlas_sync.md"}, {"file": "tech/sqlite.md"}]


def _edges(runtime: VaultRuntime) -> set[tuple[str, str, str | None]]:
    """(from, to, label) of every relationship a canvas drew, read from the graph."""
    ids = ("project:atlas_sync", "technology:sqlite", "technology:figma")
    out = set()
    for entity in ids:
        near = runtime.call("kg_get_neighbors", {"entityId": entity, "direction": "outgoing"})
        assert near["ok"], near
        out |= {
            (r["fromEntityId"], r["toEntityId"], r["label"])
            for r in near["relationships"]
            if r["toEntityId"] in ids
            and r["label"] in ("stores data in", "drawn in", None, "")
            and r["type"] == "RELATED_TO"
        }
    return out


def test_edges_follow_arrows_and_stay_current(runtime: VaultRuntime) -> None:
    """Arrow at the end (the default), at the start, at both ends, at neither; then the
    canvas edited, a card's note renamed on disk and the canvas deleted: the graph follows
    each change, and equals a rebuild from scratch."""
    vault = runtime.settings.vault
    canvas = json.loads(json.dumps(CANVAS))
    canvas["nodes"].append(
        {"id": "f3", "type": "file", "file": "tech/figma.md", "x": 600, "y": 200,
         "width": 200, "height": 100}
    )  # fmt: skip
    canvas["edges"] += [
        {"id": "e2", "fromNode": "f2", "toNode": "f3", "fromEnd": "arrow", "toEnd": "none",
         "label": "drawn in"},
        {"id": "e3", "fromNode": "f1", "toNode": "f3", "fromEnd": "arrow", "toEnd": "arrow"},
        {"id": "e4", "fromNode": "f3", "toNode": "t1"},  # a text card: no note at that end
    ]  # fmt: skip
    (vault / "Plan.canvas").write_text(json.dumps(canvas))
    runtime.reindex()
    atlas, sqlite, figma = "project:atlas_sync", "technology:sqlite", "technology:figma"
    assert _edges(runtime) >= {
        (atlas, sqlite, "stores data in"),
        (figma, sqlite, "drawn in"),  # the arrow is at the start: figma -> sqlite
        (atlas, figma, None),
        (figma, atlas, None),
    }
    assert (sqlite, figma, "drawn in") not in _edges(runtime)

    canvas["edges"] = [e for e in canvas["edges"] if e["id"] != "e1"]
    (vault / "Plan.canvas").write_text(json.dumps(canvas))
    runtime.reindex()
    assert (atlas, sqlite, "stores data in") not in _edges(runtime)
    assert (figma, sqlite, "drawn in") in _edges(runtime)

    (vault / "tech" / "figma.md").rename(vault / "tech" / "figma_tool.md")  # the card is stale
    runtime.reindex()
    assert not {e for e in _edges(runtime) if e[2] == "drawn in"}
    (vault / "tech" / "figma_tool.md").rename(vault / "tech" / "figma.md")
    runtime.reindex()
    assert (figma, sqlite, "drawn in") in _edges(runtime)
    assert _same_as_rebuild(runtime)

    (vault / "Plan.canvas").unlink()
    runtime.reindex()
    assert not {e for e in _edges(runtime) if e[2] == "drawn in" or e[:2] == (figma, atlas)}
    assert _same_as_rebuild(runtime)


def _same_as_rebuild(runtime: VaultRuntime) -> bool:
    """The relationships and Obsidian's resolved links kept current by the writes equal
    those derived again from the links."""
    store = runtime.kb.store
    with runtime.lock:
        before = store.snapshot()
        with store.transaction():
            store.rebuild_relationships()
        after = store.snapshot()
    diff = [d for d in before.differences(after) if d.split(":")[0] in ("relationships",
            "link_dest", "graph_edges")]  # fmt: skip
    assert not diff, diff
    return True


def test_each_card_is_its_own_chunk(runtime: VaultRuntime) -> None:
    """A small canvas: the text card's hit is that card alone, not the file cards' paths
    and the edge packed with it (they stay findable, as chunks of their own)."""
    vault = runtime.settings.vault
    board = json.loads(json.dumps(CANVAS))
    board["nodes"][0]["text"] = "Launch party in Lisbon on the roof terrace"
    (vault / "board.canvas").write_text(json.dumps(board))
    runtime.reindex()
    hits = runtime.call("kb_search", {"query": "launch party Lisbon", "mode": "keyword"})
    top = hits["results"][0]
    assert top["id"] == "canvas:board" and top["metadata"]["heading"] == "Card t1"
    shown = json.dumps(top)
    assert "roof terrace" in shown
    assert "atlas_sync.md" not in shown and "stores data in" not in shown
    edge = runtime.call("kb_search", {"query": "stores data in", "mode": "keyword"})
    assert any(
        r["id"] == "canvas:board" and r["metadata"]["heading"] == "Edge e1" for r in edge["results"]
    )
