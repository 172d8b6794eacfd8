"""Issue 28 item 5: near-identical copies of one page fold into one result that names the
others, the copy outside version folders (else the newest) shown (search/copies.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.vault.versions import label, preference, unversioned, version_of
from tests.conftest import copy_vault

PAGE = """---
title: Rotate the cluster certificates
---
# Rotate the cluster certificates

Before a certificate expires, upload the new proxy certificate and the new syncer
certificate with the rotation command, then restart the proxies one node at a time so that
clients reconnect with the new chain. {extra}
"""


@pytest.fixture(scope="module")
def kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Iterator[KnowledgeBase]:
    vault = copy_vault(tmp_path_factory.mktemp("copies") / "vault")
    for folder, extra in [
        ("docs/7.4/security", "Version 7.4 needs a manual restart."),
        ("docs/security", ""),
        ("docs/8.0/security", ""),
        ("docs/7.22/security", "Since 7.22 the proxies restart by themselves."),
    ]:
        (vault / folder).mkdir(parents=True)
        (vault / folder / "rotate-certificates.md").write_text(PAGE.format(extra=extra))
    for folder in ("templates/a", "templates/b"):  # a template kept in two places
        (vault / folder).mkdir(parents=True)
        text = "# Certificate checklist\n\nList every certificate, its expiry and its owner.\n"
        (vault / folder / "Certificate checklist.md").write_text(text)
    (vault / "other").mkdir()
    (vault / "other" / "Certificate checklist.md").write_text(  # same title, other text
        "# Certificate checklist\n\nA diploma certificate from the pottery class of 2019.\n"
    )
    kb = KnowledgeBase.open(Settings.for_vault(vault), real_embedder)
    kb.indexer.run()
    yield kb
    kb.close()


def search(kb: KnowledgeBase, query: str) -> list[dict[str, Any]]:
    return list(kb.call("kb_search", {"query": query, "top_k": 10})["results"])


def test_versions_of_one_page_are_one_result_naming_the_others(kb: KnowledgeBase) -> None:
    found = search(kb, "rotate the proxy and syncer certificates before they expire")
    pages = [r for r in found if r["title"] == "Rotate the cluster certificates"]
    assert len(pages) == 1, [r["metadata"]["file_path"] for r in found]
    meta = pages[0]["metadata"]
    assert meta["file_path"] == "docs/security/rotate-certificates.md"
    assert meta["also_in"] == ["8.0", "7.22", "7.4"]
    assert meta["copies"][0] == "docs/8.0/security/rotate-certificates.md"
    scores = [r["score"] for r in found]
    assert scores == sorted(scores, reverse=True)


def test_template_copies_fold_but_a_namesake_with_other_text_does_not(kb: KnowledgeBase) -> None:
    found = search(kb, "certificate checklist expiry owner")
    checklists = [r for r in found if r["title"] == "Certificate checklist"]
    paths = {r["metadata"]["file_path"] for r in checklists}
    folded = [r for r in checklists if r["metadata"].get("copies")]
    assert len(folded) == 1 and folded[0]["metadata"]["also_in"] == ["b"]
    assert "other/Certificate checklist.md" in paths  # a different note, not a copy


def test_version_folders_and_preference() -> None:
    assert version_of("content/operate/rs/7.22/clusters/x.md") == (7, 22)
    assert version_of("content/operate/rs/clusters/x.md") is None
    assert unversioned("a/8.0/b/x.md") == unversioned("a/b/x.md") == "a/b/x.md"
    ordered = sorted(["a/7.4/x.md", "a/7.22/x.md", "a/x.md", "a/8.0/x.md"], key=preference)
    assert ordered == ["a/x.md", "a/8.0/x.md", "a/7.22/x.md", "a/7.4/x.md"]
    assert label("a/7.22/x.md", "a/x.md") == "7.22"
    assert label("t/b/x.md", "t/a/x.md") == "b"
