"""Images, audio and video in the vault are found by their file name, and the notes that
embed them are their neighbours (kbtui.vault.attachments.kinds); their bytes are never read."""

from __future__ import annotations

from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.attachments.kinds import attachment_kind
from tests.conftest import copy_vault


def test_attachments_are_found_by_name_and_linked_from_their_notes(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    media = vault / "attachments"
    (media / "dial sketch.png").write_bytes(b"\x89PNG not really an image")
    (media / "standup.m4a").write_bytes(b"\x00" * 64)
    (media / "demo.MP4").write_bytes(b"\x00" * 64)
    (media / "notes.txt").write_text("not indexed: no format Obsidian shows inline")
    (vault / "Design.md").write_text("# Design\n\n![[dial sketch.png|the first dial]]\n")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    report = Indexer(settings, store, HashEmbedder()).run()
    kb = KnowledgeBase(settings, store, HashEmbedder())
    try:
        assert not [w for w in report.warnings if w.path.startswith("attachments/")]
        got = kb.call("kb_get", {"id": "attachment:dial_sketch_png"})
        assert got["title"] == "dial sketch.png"
        assert got["metadata"]["attachment"] == "image" and got["content"] == ""
        hits = kb.call("kb_search", {"query": "dial sketch", "mode": "keyword"})
        assert "attachment:dial_sketch_png" in [r["id"] for r in hits["results"][:3]]
        for entity, kind in (("standup_m4a", "audio"), ("demo_mp4", "video")):
            got = kb.call("kb_get", {"id": f"attachment:{entity}"})
            assert got["metadata"]["attachment"] == kind, got
        assert not kb.call("kb_get", {"id": "attachment:notes_txt"})["ok"]
        near = kb.call(
            "kg_get_neighbors", {"entityId": "attachment:dial_sketch_png", "direction": "incoming"}
        )
        assert [e["id"] for e in near["entities"]] == ["note:design"]
    finally:
        kb.close()


def test_attachment_kind_follows_obsidians_formats() -> None:
    assert attachment_kind("a/b.JPG") == "image" and attachment_kind("x.svg") == "image"
    assert attachment_kind("x.mp3") == "audio" and attachment_kind("x.webm") == "video"
    assert attachment_kind("x.md") == "" and attachment_kind("x.pdf") == ""
    assert attachment_kind("noext") == ""
