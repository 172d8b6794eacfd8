"""PDFs in a vault are indexed page by page like notes (kbtui.indexing.pdf_notes): entities
with ids, types and titles, page and link in answers, links to them, damaged ones reported
and still findable by name, changed ones re-read keeping unchanged pages' vectors. Real
DuckDB files, the fake embedder (test_pdf_search.py has the real model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from tests.conftest import copy_vault
from tests.pdf_kit import WARRANTY_PAGES, image_only_pdf, make_pdf


def pdf_vault(root: Path) -> Path:
    vault = copy_vault(root / "vault")
    (vault / "manuals").mkdir()
    make_pdf(vault / "manuals" / "warranty.pdf", WARRANTY_PAGES, title="Kestrel warranty")
    make_pdf(vault / "receipt.pdf", ["Receipt 2026-11 for one Kestrel watch, 349 euros."])
    (vault / "watch notes.md").write_text(
        "# Watch notes\n\nThe battery terms: ![[warranty.pdf#page=4]]. Receipt: [[receipt.pdf]]\n"
    )
    return vault


def index(vault: Path, **settings: Any) -> tuple[KnowledgeBase, Any]:
    s = Settings.for_vault(vault, **settings)
    store = Store(s.db_path)
    report = Indexer(s, store, HashEmbedder()).run()
    return KnowledgeBase(s, store, HashEmbedder()), report


@pytest.fixture
def kb(tmp_path: Path) -> Any:
    base, _ = index(pdf_vault(tmp_path))
    yield base
    base.close()


def test_a_pdf_is_an_entity_with_its_pages_as_text(kb: KnowledgeBase) -> None:
    got = kb.call("kb_get", {"id": "manual:warranty_pdf"})
    assert got["ok"] and got["type"] == "manual" and got["title"] == "Kestrel warranty"
    assert [p["page"] for p in got["pages"]] == [1, 2, 3, 4, 5]
    assert got["pages"][3]["text"].startswith("Batteries. The rechargeable battery")
    assert "eighteen months" in got["content"] and got["metadata"]["pages"] == 5
    receipt = kb.call("kb_get", {"id": "note:receipt_pdf"})
    assert receipt["title"] == "receipt.pdf"  # no metadata title: the file name
    note = kb.call("kb_get", {"id": "note:watch_notes"})
    assert "pages" not in note  # notes answer as before


def test_a_hit_says_its_page_and_link(kb: KnowledgeBase) -> None:
    found = kb.call("kb_search", {"query": "battery charge replaced", "mode": "keyword"})
    top = found["results"][0]
    assert top["id"] == "manual:warranty_pdf"
    assert top["metadata"]["page"] == 4
    assert top["metadata"]["link"] == "manuals/warranty.pdf#page=4"
    passages = kb.call("knowledge_query", {"query": "refund within thirty days"})
    doc = passages["results"][0]["document"]
    assert doc["entity_id"] == "manual:warranty_pdf" and doc["page"] == 5
    notes = kb.call("kb_search", {"query": "watch notes battery terms", "mode": "keyword"})
    assert all(
        "page" not in r["metadata"] for r in notes["results"] if r["id"] == "note:watch_notes"
    )


def test_a_chunk_never_spans_two_pages(kb: KnowledgeBase) -> None:
    chunks = kb.store.note_chunks("manual:warranty_pdf")
    assert [c["heading"] for c in chunks] == [f"p. {n}" for n in range(1, 6)]
    for c, page in zip(chunks, WARRANTY_PAGES, strict=True):
        assert " ".join(c["content"].split()) == page


def test_the_note_that_embeds_a_pdf_is_its_neighbour(kb: KnowledgeBase) -> None:
    for pdf in ("manual:warranty_pdf", "note:receipt_pdf"):
        got = kb.call("kg_get_neighbors", {"entityId": pdf, "direction": "incoming"})
        assert got["ok"], got
        assert [e["id"] for e in got["entities"]] == ["note:watch_notes"], got


def test_damaged_pdfs_are_reported_and_findable_by_name(tmp_path: Path) -> None:
    vault = pdf_vault(tmp_path)
    make_pdf(vault / "locked.pdf", ["secret"], user_password="pw")
    whole = (vault / "manuals" / "warranty.pdf").read_bytes()
    (vault / "cut.pdf").write_bytes(whole[: len(whole) // 2])
    image_only_pdf(vault / "scan.pdf")
    base, report = index(vault)
    try:
        reasons = {w.path: w.reason for w in report.warnings}
        assert reasons["locked.pdf"].startswith("PDF encrypted")
        assert reasons["cut.pdf"].startswith("PDF damaged")
        assert reasons["scan.pdf"].startswith("PDF image-only")
        assert not [s for s in report.skipped if s.path.endswith(".pdf")]
        summary = base.store.pdf_summary()
        assert summary["pdfs"] == 5
        assert set(summary["pdfs_unreadable"]) == {"locked.pdf", "cut.pdf", "scan.pdf"}
        for name in ("locked", "cut", "scan"):
            hits = base.call("kb_search", {"query": f"{name}.pdf", "mode": "keyword"})
            assert hits["results"][0]["id"] == f"note:{name}_pdf", hits
            got = base.call("kb_get", {"id": f"note:{name}_pdf"})
            assert got["pages"] == [] and got["content"] == ""  # nothing half-read
        assert base.call("kb_get", {"id": "manual:warranty_pdf"})["ok"]  # the rest indexed
    finally:
        base.close()


def test_max_pdf_mb_leaves_a_larger_pdf_unread(tmp_path: Path) -> None:
    vault = pdf_vault(tmp_path)
    big = vault / "big.pdf"
    make_pdf(big, ["word " * 200] * 3)
    with big.open("ab") as fh:  # a PDF may carry trailing bytes; readers ignore them
        fh.write(b"\n%" + b"x" * 1_100_000 + b"\n")
    base, report = index(vault, max_pdf_mb=1)
    try:
        reasons = {w.path: w.reason for w in report.warnings}
        assert reasons["big.pdf"].startswith("PDF too large (1.1 MB; max_pdf_mb is 1)")
        assert base.call("kb_get", {"id": "note:big_pdf"})["chunks_count"] == 1
    finally:
        base.close()
    base, report = index(vault)  # the default limit (100 MB) reads it
    try:
        assert "big.pdf" in report.changed
        assert len(base.call("kb_get", {"id": "note:big_pdf"})["pages"]) == 3
    finally:
        base.close()


def test_a_changed_pdf_is_read_again_and_unchanged_pages_keep_their_vectors(
    tmp_path: Path,
) -> None:
    vault = pdf_vault(tmp_path)
    base, _ = index(vault)
    base.close()
    pages = list(WARRANTY_PAGES)
    pages[1] = "Registering your product is no longer needed: the serial number is enough."
    make_pdf(vault / "manuals" / "warranty.pdf", pages, title="Kestrel warranty")
    base, report = index(vault)
    try:
        assert report.changed == ["manuals/warranty.pdf"]
        assert report.chunks_embedded == 1  # page 2 alone: the other pages' text is the same
        got = base.call("kb_get", {"id": "manual:warranty_pdf"})
        assert got["pages"][1]["text"].startswith("Registering your product is no longer")
        _, again = index(vault)
        assert again.changed == [] and again.chunks_embedded == 0
    finally:
        base.close()


def test_every_note_is_written_before_any_pdf_is_read(tmp_path: Path) -> None:
    vault = pdf_vault(tmp_path)
    s = Settings.for_vault(vault)
    store = Store(s.db_path)
    seen: list[tuple[str, int]] = []
    notes_on_disk = len(list(vault.rglob("*.md"))) - 1  # _broken/binary.md is skipped

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "read" and done > total - 2:  # the two PDFs are read last
            seen.append((phase, store.note_count()))

    Indexer(s, store, None, progress=progress).run(embed=False)
    store.close()
    assert seen and all(count >= notes_on_disk for _, count in seen), (seen, notes_on_disk)


def test_writes_never_edit_or_move_a_pdf_but_may_link_to_one(kb: KnowledgeBase) -> None:
    pdf = kb.settings.vault / "manuals" / "warranty.pdf"
    before = pdf.read_bytes()
    for tool, args, field in (
        ("kg_rename_entity", {"entityId": "manual:warranty_pdf", "newName": "w"}, "entityId"),
        (
            "kg_create_relationship",
            {"fromEntityId": "manual:warranty_pdf", "toEntityId": "note:watch_notes",
             "type": "REFERENCES"},
            "fromEntityId",
        ),
        (
            "kg_merge_entities",
            {"targetEntityId": "note:watch_notes", "sourceEntityIds": ["note:receipt_pdf"]},
            "sourceEntityIds",
        ),
    ):  # fmt: skip
        got = kb.call(tool, args)
        assert got["ok"] is False and got["error"]["type"] == "VALIDATION", got
        assert got["error"]["field"] == field and "not a markdown note" in got["message"]
    assert pdf.read_bytes() == before and (kb.settings.vault / "receipt.pdf").exists()
    made = kb.call(
        "kg_create_relationship",
        {"fromEntityId": "person:andrei_clodius", "toEntityId": "manual:warranty_pdf",
         "type": "REFERENCES"},
    )  # fmt: skip
    assert made["ok"], made
    assert "[[warranty.pdf]]" in (kb.settings.vault / "people" / "andrei_clodius.md").read_text()
