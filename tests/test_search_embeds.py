"""Issue 31 item 6: an image or a PDF is found by the alt text, caption or figure line the
notes give it (search/embeds.py). Real DuckDB file; the real model for the hybrid search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.embeds import described_embeds, embeds_for
from tests.conftest import copy_vault
from tests.pdf_kit import WARRANTY_PAGES, image_only_pdf, make_pdf

TRIP = """# Lisbon trip

We walked down to the river in the evening.

![Sunset over the harbour cranes](photos/IMG%202041.jpg)

The boiler was serviced the week before we left.

![[scan_0007.pdf|Boiler warranty card]]

The watch came with its manual: ![[warranty.pdf#page=4|terms for a swollen cell]]

![[IMG_2050.png]]
*Figure 3: tram number 28 climbing towards the castle*

![badge](https://img.shields.io/badge/build-passing-green)
"""


def test_what_a_note_says_of_its_embeds() -> None:
    said = dict(described_embeds(TRIP))
    assert said["photos/IMG 2041.jpg"] == "Sunset over the harbour cranes"
    assert said["scan_0007.pdf"] == "Boiler warranty card"
    assert "tram number 28" in said["IMG_2050.png"]
    assert "watch came with its manual" in said["warranty.pdf#page=4"]
    assert not [t for t in said if "shields.io" in t]  # a web image is no vault file
    assert embeds_for(TRIP, "harbour sunset") == ["photos/IMG 2041.jpg"]
    assert embeds_for(TRIP, "tram to the castle") == ["IMG_2050.png"]
    assert embeds_for(TRIP, "river evening walk") == []  # prose, not what an embed shows


@pytest.fixture(scope="module")
def kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Iterator[KnowledgeBase]:
    vault = copy_vault(tmp_path_factory.mktemp("embeds") / "vault")
    (vault / "photos").mkdir()
    (vault / "photos" / "IMG 2041.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (vault / "IMG_2050.png").write_bytes(b"\x89PNG not really an image")
    image_only_pdf(vault / "scan_0007.pdf")  # no text of its own: only its name and caption
    make_pdf(vault / "warranty.pdf", WARRANTY_PAGES)
    (vault / "Lisbon trip.md").write_text(TRIP)
    kb = KnowledgeBase.open(Settings.for_vault(Path(vault)), real_embedder)
    kb.indexer.run()
    yield kb
    kb.close()


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize(
    ("query", "file"),
    [
        ("sunset over the harbour cranes", "photo:img_2041_jpg"),
        ("boiler warranty card", "note:scan_0007_pdf"),
        ("tram 28 climbing to the castle", "note:img_2050_png"),
        ("terms for a swollen cell", "note:warranty_pdf"),
    ],
)
def test_an_embedded_file_is_found_by_what_the_note_says_of_it(
    kb: KnowledgeBase, mode: str, query: str, file: str
) -> None:
    results = kb.call("kb_search", {"query": query, "mode": mode})["results"]
    ids = [r["id"] for r in results]
    assert file in ids[:3], ids
    assert ids.index(file) == ids.index("note:lisbon_trip") + 1  # right after its note
    assert results[ids.index(file)]["metadata"]["embedded_in"] == ["Lisbon trip.md"]


def test_an_embed_of_a_pdf_page_gives_that_page(kb: KnowledgeBase) -> None:
    results = kb.call("kb_search", {"query": "terms for a swollen cell", "mode": "keyword"})
    pdf = next(r for r in results["results"] if r["id"] == "note:warranty_pdf")
    assert pdf["metadata"]["page"] == 4 and pdf["metadata"]["link"] == "warranty.pdf#page=4"
