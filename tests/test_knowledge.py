"""knowledge_import and knowledge_query against spec 003, writing into a real vault folder."""

from __future__ import annotations

import dataclasses
import itertools
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.chunk import fixed_chunks

API_DOC = (
    "# API\n\nThe authentication endpoint accepts a client id and secret and returns a bearer "
    "token. Send the token in the Authorization header of every request. Tokens expire after "
    "one hour; refresh them with the refresh token.\n\n"
    "Rate limiting: each client may send 100 requests per minute. Beyond that the server "
    "answers 429 with a Retry-After header. Error responses carry a JSON body with a code "
    "and a message.\n\n"
) * 4


def make_kb(vault: Path, embedder: Any, **settings: Any) -> KnowledgeBase:
    config = dataclasses.replace(Settings.for_vault(vault), **settings)
    return KnowledgeBase(config, Store(config.db_path), embedder)


@pytest.fixture
def kb(vault: Path) -> Iterator[KnowledgeBase]:
    base = make_kb(vault, HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def vault_files(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in vault.rglob("*")
        if p.is_file() and ".kbtui" not in p.parts
    }


def test_import_example_writes_a_note_and_indexes_it(kb: KnowledgeBase) -> None:
    response = kb.call(
        "knowledge_import",
        {
            "title": "API Documentation",
            "content": API_DOC,
            "source": "https://example.com/docs/api",
            "category": "documentation",
            "chunk_size": 500,
            "chunk_overlap": 50,
        },
    )
    assert response["ok"] is True
    uuid.UUID(response["document_id"])
    assert response["title"] == "API Documentation"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", response["created_at"])
    body = API_DOC.strip()
    expected = fixed_chunks(body, 500, 50)
    assert response["chunks_created"] == len(expected) == -(-(len(body) - 50) // 450)
    path = kb.settings.vault / response["file_path"]
    assert path.parent == kb.settings.vault / "imports" and path.name == "API Documentation.md"
    text = path.read_text()
    for line in (
        f"document_id: {response['document_id']}",
        "source: https://example.com/docs/api",
        "category: documentation",
        "chunk_size: 500",
        "chunk_overlap: 50",
    ):
        assert line in text
    chunks = kb.store.note_chunks(response["entity_id"])
    assert [c["content"] for c in chunks] == [c.content for c in expected]
    for a, b in itertools.pairwise(chunks):  # spec: 50 characters shared
        assert a["content"][-50:] == b["content"][:50]
    got = kb.call("kb_get", {"id": response["entity_id"]})
    assert got["content"] == body and got["metadata"]["document_id"] == response["document_id"]


def test_spec_chunking_diagram() -> None:
    chunks = [c.content for c in fixed_chunks("AAAAAABBBBBBCCCCCC", 6, 2)]
    assert chunks[:2] == ["AAAAAA", "AABBBB"]  # exactly as drawn in spec 003
    for a, b in itertools.pairwise(chunks):
        assert a[-2:] == b[:2]  # each overlaps the previous by 2
    # the diagram's third line ("BBCCCC") is not what its own rule gives; the rule wins:
    assert chunks[2] == "BBBBCC" and "".join(c[2:] for c in chunks[1:]) == "BBBBBBCCCCCC"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"title": "", "content": "x"}, "title cannot be empty"),
        ({"title": "   ", "content": "x"}, "title cannot be empty"),
        ({"title": "T", "content": ""}, "content cannot be empty"),
        (
            {"title": "T", "content": "x", "chunk_size": 99},
            "chunk_size must be between 100 and 10000",
        ),
        (
            {"title": "T", "content": "x", "chunk_size": 10001},
            "chunk_size must be between 100 and 10000",
        ),
        ({"title": "T", "content": "x", "chunk_overlap": -1}, "chunk_overlap must be at least 0"),
        (
            {"title": "T", "content": "x", "chunk_size": 100, "chunk_overlap": 100},
            "chunk_overlap must be less than chunk_size (100 >= 100)",
        ),
        ({"title": "T", "content": "x", "metadata": []}, "metadata must be an object, not list"),
        ({"title": "T", "content": "x", "source": 5}, "source must be a string, not int"),
        ({"title": "T\x00", "content": "x"}, "title must not contain NUL characters"),
        ({"content": "x"}, "title is required"),
    ],
)
def test_import_validation(kb: KnowledgeBase, args: dict[str, Any], message: str) -> None:
    before = vault_files(kb.settings.vault)
    response = kb.call("knowledge_import", args)
    assert response["ok"] is False and response["error"]  # spec 003: `error` is truthy
    assert response["error_type"] == "ValidationError" and response["message"] == message
    assert vault_files(kb.settings.vault) == before  # nothing written


@pytest.mark.parametrize(
    "title", ["../../outside", "/etc/passwd", "..", "a/b\\c:d", "CON", "  .hidden", "#^[[x]]|"]
)
def test_a_title_never_leaves_the_imports_folder(kb: KnowledgeBase, title: str) -> None:
    response = kb.call("knowledge_import", {"title": title, "content": "some text"})
    assert response["ok"], response
    path = (kb.settings.vault / response["file_path"]).resolve()
    assert path.parent == (kb.settings.vault / "imports").resolve()
    assert not path.name.startswith(".") and path.suffix == ".md"
    assert kb.call("kb_get", {"id": response["entity_id"]})["ok"]
    assert not list(kb.settings.vault.parent.glob("outside*"))


def test_a_name_collision_never_overwrites(kb: KnowledgeBase) -> None:
    """A note the index does not know yet (written a moment ago) is never overwritten: the
    import takes the next free file name."""
    (kb.settings.vault / "imports").mkdir()
    first = kb.settings.vault / "imports" / "Notes.md"
    first.write_text("first version\n")
    original = first.read_bytes()
    second = kb.call("knowledge_import", {"title": "Notes", "content": "second version"})
    assert second["ok"], second
    assert second["file_path"] == "imports/Notes 2.md"
    assert first.read_bytes() == original
    assert kb.call("kb_get", {"id": second["entity_id"]})["content"] == "second version"
    leftovers = [p.name for p in (kb.settings.vault / "imports").iterdir()]
    assert sorted(leftovers) == ["Notes 2.md", "Notes.md"]  # no temporary files left


@pytest.mark.parametrize(
    ("existing", "title"),
    [
        ("Readme.md", "Readme"),  # at the root
        ("docs/guides/changelog.md", "CHANGELOG"),  # any folder, any case
        ("imports/Notes.md", "Notes"),  # imported before
        ("meetings/2026/Sync.md", "  Sync  "),  # the file name the title becomes
    ],
)
def test_a_title_a_note_already_has_is_refused(
    kb: KnowledgeBase, existing: str, title: str
) -> None:
    """`kbtui import f.txt --title Readme` on a vault with a Readme.md made imports/Readme.md,
    a second note `[[Readme]]` answers to (Obsidian resolves it by file name, any case)."""
    vault = kb.settings.vault
    (vault / existing).parent.mkdir(parents=True, exist_ok=True)
    (vault / existing).write_text("# Already here\n")
    kb.indexer.run()
    before = vault_files(vault)
    response = kb.call("knowledge_import", {"title": title, "content": "new text"})
    assert response["ok"] is False and response["error"], response
    assert response["error_type"] == "ConflictError"
    assert existing in response["message"] and f"[[{title.strip()}]]" in response["message"]
    assert vault_files(vault) == before  # nothing written
    other = kb.call("knowledge_import", {"title": f"{title.strip()} notes", "content": "x"})
    assert other["ok"] and other["file_path"].startswith("imports/"), other


def test_reindexing_from_scratch_reproduces_the_chunks(kb: KnowledgeBase, vault: Path) -> None:
    response = kb.call(
        "knowledge_import",
        {"title": "Code", "content": API_DOC, "chunk_size": 300, "chunk_overlap": 30},
    )
    before = [(c["content"], c["start_pos"]) for c in kb.store.note_chunks(response["entity_id"])]
    kb.close()
    Settings.for_vault(vault).db_path.unlink()
    fresh = make_kb(vault, HashEmbedder())
    try:
        fresh.indexer.run()
        after = fresh.store.note_chunks(response["entity_id"])
        assert [(c["content"], c["start_pos"]) for c in after] == before
        assert len(before) == response["chunks_created"]
    finally:
        fresh.close()


def test_imports_folder_is_configurable(vault: Path) -> None:
    base = make_kb(vault, HashEmbedder(), imports_folder="inbox/clips")
    try:
        response = base.call("knowledge_import", {"title": "Clip", "content": "a clipping"})
        assert response["file_path"] == "inbox/clips/Clip.md"
    finally:
        base.close()


def test_query_filters_and_document_info(kb: KnowledgeBase) -> None:
    api = kb.call(
        "knowledge_import", {"title": "API", "content": API_DOC, "category": "documentation"}
    )
    faq = kb.call(
        "knowledge_import",
        {"title": "FAQ", "content": "Reset a password from settings. " * 20, "category": "faq"},
    )
    everything = kb.call("knowledge_query", {"query": "rate limiting requests"})
    assert everything["ok"] and 1 <= len(everything["results"]) <= 5 == 5  # default top_k 5
    assert everything["total"] == len(everything["results"])
    sims = [r["similarity"] for r in everything["results"]]
    assert sims == sorted(sims, reverse=True) and all(0 <= s <= 1 for s in sims)
    docs = kb.call("knowledge_query", {"query": "rate limiting", "category": "documentation"})
    assert docs["results"]
    assert {r["document"]["id"] for r in docs["results"]} == {api["document_id"]}
    assert docs["results"][0]["document"] == {
        "id": api["document_id"],
        "title": "API",
        "category": "documentation",
        "entity_id": api["entity_id"],
        "file_path": api["file_path"],
        "chunk_index": docs["results"][0]["document"]["chunk_index"],
    }
    within = kb.call(
        "knowledge_query",
        {"query": "password", "document_id": faq["document_id"], "include_document_info": False},
    )
    assert within["results"] and all("document" not in r for r in within["results"])
    assert all(r["chunk_id"].startswith(faq["entity_id"] + "_chunk_") for r in within["results"])
    by_entity = kb.call("knowledge_query", {"query": "watch", "document_id": "person:maya_okafor"})
    assert {r["document"]["entity_id"] for r in by_entity["results"]} == {"person:maya_okafor"}
    nothing = kb.call("knowledge_query", {"query": "password", "category": "no-such-category"})
    assert nothing["ok"] is True and nothing["results"] == [] and nothing["total"] == 0


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "top_k": 51}, "top_k"),
        ({"query": "x", "include_document_info": 1}, "include_document_info"),
        ({"query": "x", "category": ["a"]}, "category"),
    ],
)
def test_query_validation(kb: KnowledgeBase, args: dict[str, Any], field: str) -> None:
    response = kb.call("knowledge_query", args)
    assert response["error_type"] == "ValidationError" and response["error"]["field"] == field


def test_use_cases_with_the_real_model(tmp_path: Path, real_embedder: FastEmbedder) -> None:
    """Spec 003's use cases on an empty vault: guides, reference, an FAQ, source code."""
    kb = make_kb(tmp_path, real_embedder)
    try:
        guide = kb.call(
            "knowledge_import",
            {
                "title": "Getting Started Guide",
                "content": "Install the app, create a workspace and invite your team. "
                "Pick a theme and set up notifications for the channels you follow.",
                "category": "guides",
            },
        )
        reference = kb.call(
            "knowledge_import",
            {"title": "API Reference", "content": API_DOC, "category": "reference"},
        )
        faq = kb.call(
            "knowledge_import",
            {
                "title": "FAQ",
                "content": "How do I reset my password? Open Settings, then Security, and "
                "choose Reset password; a link arrives by email.\n\n"
                "Can I export my notes? Yes: File, Export, and pick Markdown or PDF.\n\n"
                "Why is sync slow? Large attachments upload first; check your connection.",
                "category": "faq",
                "chunk_size": 200,
                "chunk_overlap": 0,
            },
        )
        code = kb.call(
            "knowledge_import",
            {
                "title": "auth_module.py",
                "content": "def login(user, password):\n    token = issue_token(user)\n"
                "    return token\n\n" * 10,
                "source": "/src/auth/auth_module.py",
                "category": "source_code",
                "chunk_size": 300,
                "chunk_overlap": 30,
            },
        )
        assert all(r["ok"] for r in (guide, reference, faq, code))
        assert faq["chunks_created"] == 2  # 200-character items, no overlap
        answer = kb.call(
            "knowledge_query", {"query": "How do I authenticate API requests?", "top_k": 3}
        )
        assert answer["results"][0]["document"]["id"] == reference["document_id"]
        reset = kb.call("knowledge_query", {"query": "how to reset password", "category": "faq"})
        assert reset["results"][0]["chunk_id"] == faq["entity_id"] + "_chunk_0"
        assert "reset my password" in reset["results"][0]["content"]
        assert reset["results"][0]["similarity"] >= 0.6
    finally:
        kb.close()
