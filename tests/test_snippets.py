"""Issue 28 item 7: snippets show readable text, not badge alt text or cut link markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.snippets import make_snippet
from tests.conftest import copy_vault

BADGES = (
    "![GitHub all releases](https://img.shields.io/github/downloads/a/b/total?color=573E7A)   \n"
    "![GitHub manifest version](https://img.shields.io/github/manifest-json/v/a/b)   \n"
)
PLUGIN = f"""%% ----- Badges ----- %%

{BADGES}
%% ----- Badges ----- %%

# Outline Weaver

Plugin ID: `outline-weaver`
Links: [GitHub repository](https://github.com/a/outline-weaver)
Developed by: [[someone]]

Weaves a list outline of your slip-box notes.
"""


@pytest.mark.parametrize(
    ("chunk", "shown", "absent"),
    [
        (BADGES + "Weaves a list outline.", "Weaves a list outline.", "GitHub all releases"),
        ("[![stars](https://img.shields.io/x)](https://github.com/x) Stars.", "Stars.", "stars"),
        ("See ![[screenshot.png|300]] the panel.", "See the panel.", "screenshot"),
        (
            "zettelkasten-navigation|zettelkasten-navigation]] - zettelkasten-outliner - zhihu",
            "zettelkasten-navigation - zettelkasten-outliner - zhihu",
            "]]",
        ),
        (
            'tabases/active-active/develop/develop-for-aa">}}) - Review recovery strategies',
            "- Review recovery strategies",
            "develop-for-aa",
        ),
        ("More in [[02 - Community Expansions/Plugins/zett", "More in", "[["),
        ("Read [the guide](https://example.com/gu", "Read the guide", "https"),
        ("A [[People/Ann|Ann]] and [the site](https://x.y) stay.", "A Ann and the site stay.", "|"),
    ],
)
def test_snippets_are_readable_text(chunk: str, shown: str, absent: str) -> None:
    snippet = make_snippet(chunk, "outline")
    assert snippet == shown
    assert absent not in snippet


def test_a_badge_only_chunk_shows_the_notes_readable_text(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    vault = copy_vault(tmp_path / "vault")
    (vault / "plugins").mkdir()
    (vault / "plugins" / "outline-weaver.md").write_text(PLUGIN)
    kb = KnowledgeBase.open(
        Settings.for_vault(vault, chunk_size=200, chunk_overlap=0), real_embedder
    )
    try:
        kb.indexer.run()
        # the badges' alt text is searchable; the chunk it finds holds nothing readable
        found = kb.call("kb_search", {"query": "GitHub all releases", "top_k": 3})["results"]
    finally:
        kb.close()
    result = next(r for r in found if r["metadata"]["file_path"] == "plugins/outline-weaver.md")
    assert result["metadata"]["chunk_index"] == 0
    assert "GitHub all releases" not in result["snippet"]
    assert "Weaves a list outline of your slip-box notes." in result["snippet"]
