"""Issue 28 (findability goal): a list entry that answers the question gives its place to the
note it links to; the list is named in `listed_in` (search/listed.py). Real DuckDB file, the
real model for the hybrid ranking."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.cli.results import head_line
from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.listed import listed_target
from tests.conftest import copy_vault

LIST = """# Reading plugins

- [[bible-linker|Bible Linker]]: Link multiple bible verses easily
- [[bible-reference|Bible Reference]]: Suggest verses as references while you write
- [[bible-sidecar|Sidecar]]: Open the bible in your preferred translation in a splitscreen view
- [[verse-of-the-day|Verse of the day]]: A daily verse on your start page
- [[hymn-index|Hymn index]]: Number and tag the hymns of a hymnal
"""
PLUGIN = """# {title}

Plugin ID: `{id}`
Developed by: [[someone]]

{text}
"""


def test_the_answering_entry_is_found_in_a_list() -> None:
    query = "open the bible in my translation in a split screen view"
    assert listed_target(LIST, "Reading plugins", query) == "bible-sidecar"
    # no entry holds the question's words: no entry is the answer
    assert listed_target(LIST, "Reading plugins", "grocery shopping budget") is None
    # the list is what the question names
    assert listed_target(LIST, "Bible plugins", "bible plugins for verses") is None
    # two entries hold as many of the question's words: neither is the answer
    assert listed_target(LIST, "Reading plugins", "bible verses") is None
    # prose with a link in it is no list
    prose = "Use [[bible-sidecar]] to open the bible in your preferred translation in a view."
    assert listed_target(prose, "Notes", query) is None


@pytest.fixture(scope="module")
def kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Iterator[KnowledgeBase]:
    vault = copy_vault(tmp_path_factory.mktemp("listed") / "vault")
    plugins = vault / "plugins"
    plugins.mkdir()
    (plugins / "Reading plugins.md").write_text(LIST)
    texts = {
        "bible-linker": "Link verses.",
        "bible-reference": "Verse suggestions.",
        "bible-sidecar": "Open the bible beside your note.",
        "verse-of-the-day": "One verse a day.",
        "hymn-index": "Hymnals, numbered.",
    }
    for pid, text in texts.items():
        (plugins / f"{pid}.md").write_text(PLUGIN.format(title=pid, id=pid, text=text))
    kb = KnowledgeBase.open(Settings.for_vault(Path(vault)), real_embedder)
    kb.indexer.run()
    yield kb
    kb.close()


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_note_a_list_entry_links_to_comes_before_the_list(kb: KnowledgeBase, mode: str) -> None:
    answer = kb.call(
        "kb_search",
        {"query": "bible in my preferred translation in a splitscreen view", "mode": mode},
    )
    first = answer["results"][0]
    assert first["id"] == "plugin:bible_sidecar", answer["results"]
    assert first["metadata"]["listed_in"] == ["plugins/Reading plugins.md"]
    assert "plugins/Reading plugins.md" not in [
        r["metadata"]["file_path"] for r in answer["results"]
    ]


def test_a_list_the_question_names_stays_a_result(kb: KnowledgeBase) -> None:
    answer = kb.call("kb_search", {"query": "reading plugins", "mode": "keyword"})
    assert answer["results"][0]["metadata"]["file_path"] == "plugins/Reading plugins.md"


def test_kbtui_search_names_the_list(kb: KnowledgeBase) -> None:
    answer = kb.call(
        "kb_search", {"query": "bible in my preferred translation in a splitscreen view"}
    )
    line = head_line(answer["results"][0], ids=False, safe=False).plain
    assert line.endswith("plugins/  (listed in Reading plugins)"), line
