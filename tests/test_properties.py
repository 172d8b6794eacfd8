"""Notes that are properties only (an empty body under frontmatter) are found by search.

Obsidian vaults keep many notes that way: kepano's vault has a film, a board game and a book
as nothing but properties. Each gets one chunk of `key: value` lines; the note's content stays
its (empty) body. Real DuckDB files; the real model where meaning matters.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from kbtui.config import Settings
from kbtui.embed import Embedder, FastEmbedder, HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.models import IndexReport
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.chunk import properties_chunk, reassemble

KEPANO = Path("/work/shared/data/vaults/kepano")
FILM = """---
categories:
  - "[[Movies]]"
cover: https://example.org/cover.jpg
genre:
  - "[[Sci-fi]]"
director:
  - "[[Ridley Scott|Scott]]"
rating: 7
year: 1982
seen: true
chunk_size: 400
extra: {nested: map}
---
"""


def index(settings: Settings, embedder: Embedder) -> IndexReport:
    store = Store(settings.db_path)
    try:
        return Indexer(settings, store, embedder).run()
    finally:
        store.close()


def test_properties_chunk_shows_what_the_note_is() -> None:
    fm = {
        "categories": ["[[Movies]]"],
        "cover": "https://example.org/cover.jpg",
        "director": ["[[Ridley Scott|Scott]]", "[[Notes/Hampton Fancher#Life]]"],
        "rating": 7,
        "year": 1982,
        "seen": True,
        "empty": [],
        "none": None,
        "id": "film:blade_runner",
        "chunk_size": 400,
        "extra": {"nested": "map"},
    }
    chunk = properties_chunk(fm)
    assert chunk is not None and (chunk.start, chunk.end, chunk.index) == (0, 0, 0)
    assert chunk.content == (
        "categories: Movies\ndirector: Scott, Notes/Hampton Fancher\nrating: 7\nyear: 1982"
    )
    assert properties_chunk({"cover": "https://x.org", "seen": False, "tags": []}) is None
    assert properties_chunk({}) is None
    assert len(properties_chunk({"a": "word " * 1000}, limit=100).content) <= 100  # type: ignore[union-attr]


def test_a_properties_chunk_is_no_body_text() -> None:
    assert reassemble([(0, 0, "year: 1982")]) == ""
    assert reassemble([(0, 5, "Hello"), (3, 9, "lo you")]) == "Hello you"


def test_a_properties_only_note_is_found_and_reads_as_itself(vault: Path) -> None:
    (vault / "films").mkdir()
    (vault / "films" / "Blade Runner.md").write_text(FILM)
    settings = Settings.for_vault(vault)
    index(settings, HashEmbedder())
    kb = KnowledgeBase.open(settings, HashEmbedder())
    try:
        found = kb.call("kb_search", {"query": "Ridley Scott 1982", "mode": "keyword"})
        assert found["results"][0]["id"] == "film:blade_runner", found
        assert "director: Scott" in found["results"][0]["snippet"]
        note = kb.call("kb_get", {"id": "film:blade_runner"})
        assert note["content"] == "" and note["chunks_count"] == 1
        assert note["metadata"]["year"] == 1982
        chunk = kb.call("get_chunk", {"chunk_id": "film:blade_runner_chunk_0"})
        assert chunk["content"].startswith("categories: Movies\ngenre: Sci-fi\n")
        assert "cover" not in chunk["content"] and "chunk_size" not in chunk["content"]
    finally:
        kb.close()
    # Once the note has a body, the body is what is indexed.
    (vault / "films" / "Blade Runner.md").write_text(FILM + "\nReplicants on the run.\n")
    index(settings, HashEmbedder())
    kb = KnowledgeBase.open(settings, HashEmbedder())
    try:
        note = kb.call("kb_get", {"id": "film:blade_runner"})
        assert note["content"] == "Replicants on the run." and note["chunks_count"] == 1
        chunk = kb.call("get_chunk", {"chunk_id": "film:blade_runner_chunk_0"})
        assert chunk["content"] == "Replicants on the run."
    finally:
        kb.close()


def test_a_note_with_a_body_is_found_by_words_only_its_properties_give(vault: Path) -> None:
    """Redis's docs say what a page is about in `description`, hub notes name a plugin in
    `aliases`: a keyword search for those words finds the note, whose chunks stay its body."""
    (vault / "proxy-based.md").write_text(
        "---\ndescription: Proxy-based disaster recovery for Active-Active databases.\n"
        "aliases:\n  - Failover Relay\npublish: true\n---\n"
        "If you add a lightweight component between the clients and the database, "
        "applications can route requests to the optimal endpoint.\n"
    )
    settings = Settings.for_vault(vault)
    index(settings, HashEmbedder())
    kb = KnowledgeBase.open(settings, HashEmbedder())
    try:
        for query in ("disaster recovery", "failover relay"):
            found = kb.call("kb_search", {"query": query, "mode": "keyword"})
            assert [r["id"] for r in found["results"]][:1] == ["note:proxy_based"], found
        note = kb.call("kb_get", {"id": "note:proxy_based"})
        assert note["content"].startswith("If you add") and "disaster" not in note["content"]
        assert note["chunks_count"] == 1
    finally:
        kb.close()


def test_a_template_is_found_by_the_names_of_its_empty_fields(vault: Path) -> None:
    """kepano's Real Estate Template is `price:`, `sqft:`, `lotsqft:` left empty: those names
    are all it says of itself, and Obsidian's search finds them in the file."""
    (vault / "Templates").mkdir(exist_ok=True)
    (vault / "Templates" / "House Listing.md").write_text(
        '---\ncategories:\n  - "[[Places]]"\ntype: []\naddress:\nprice:\nsqft:\nlotsqft:\n---\n'
    )
    (vault / "Templates" / "Stock Trade.md").write_text("---\nticker:\nshares:\n---\nA trade.\n")
    settings = Settings.for_vault(vault)
    index(settings, HashEmbedder())
    kb = KnowledgeBase.open(settings, HashEmbedder())
    try:
        found = kb.call("kb_search", {"query": "sqft lotsqft", "mode": "keyword"})
        assert [r["title"] for r in found["results"]][:1] == ["House Listing"], found
        found = kb.call("kb_search", {"query": "ticker shares", "mode": "keyword"})
        assert [r["title"] for r in found["results"]][:1] == ["Stock Trade"], found
        chunk = kb.call("get_chunk", {"chunk_id": found["results"][0]["metadata"]["chunk_id"]})
        assert chunk["content"] == "A trade."  # the names are words, not the note's text
    finally:
        kb.close()


def test_an_index_from_before_gets_the_properties_chunks(vault: Path) -> None:
    """Schema 4 re-reads notes that have no chunk, so an upgraded index finds them too."""
    (vault / "Blade Runner.md").write_text(FILM)
    settings = Settings.for_vault(vault)
    index(settings, HashEmbedder())
    con = duckdb.connect(str(settings.db_path))  # the index as schema 3 left it
    con.execute(
        "DELETE FROM postings WHERE cid IN (SELECT cid FROM chunks WHERE entity_id "
        "= 'note:blade_runner')"
    )
    con.execute("DELETE FROM chunks WHERE entity_id = 'note:blade_runner'")
    con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    con.close()
    # every note that had no chunk (later schemas re-read the other notes once too)
    changed = index(settings, HashEmbedder()).changed
    assert {"Blade Runner.md", "_broken/empty.md"} <= set(changed)
    store = Store(settings.db_path)
    try:
        chunks = store.note_chunks("note:blade_runner")
        assert [c["content"].split("\n")[0] for c in chunks] == ["categories: Movies"]
    finally:
        store.close()


@pytest.mark.skipif(not KEPANO.is_dir(), reason="the kepano vault is not on this machine")
def test_kepano_films_and_games_are_found_by_meaning(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    vault = Path(shutil.copytree(KEPANO, tmp_path / "kepano"))
    settings = Settings.for_vault(vault)
    report = index(settings, real_embedder)
    assert report.skipped == []  # its templates' `{{date}}` placeholders are text, not errors
    kb = KnowledgeBase.open(settings, real_embedder)
    try:
        for query, expected in [
            ("the science fiction film by Ridley Scott", "reference:blade_runner"),
            ("a board game about trading and settling an island", "reference:catan"),
            ("Kevin Kelly's book about self-organising systems", "reference:out_of_control"),
        ]:
            results = kb.call("kb_search", {"query": query, "top_k": 3})["results"]
            assert expected in [r["id"] for r in results], (query, results)
    finally:
        kb.close()
