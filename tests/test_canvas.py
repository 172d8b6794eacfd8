"""Canvases (JSON Canvas 1.0) in a copy of vault_example, real DuckDB index: text cards found
by search (the hit names the canvas and the card), file cards as links (backlinks, graph),
labelled edges as relationships, kb_get reading the cards, a broken canvas skipped."""

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
    assert ("canvas:plan", "stores data in") in labels
    got = runtime.call("kb_get", {"id": "canvas:plan"})
    assert "Ship the zebra-striped prototype by May" in got["content"]
    assert "projects/atlas_sync.md → stores data in → tech/sqlite.md" in got["content"]
    assert runtime.call("vault_links", {"kind": "links", "note": "boards/Plan.canvas"})[
        "results"
    ] == [{"file": "projects/atlas_sync.md"}, {"file": "tech/sqlite.md"}]
