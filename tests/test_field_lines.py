"""Notes made from one template say what they are in one sentence among field lines.

obsidian-hub's plugin pages each hold "Plugin ID: `x`", "Links: [GitHub repository](...)",
"Developed by: [[x]]", "Mobile compatible: [[...|Yes]]" and one line of description; the
fields outweighed the description in the embedding, so a question asking for what the plugin
does ranked other pages first. The model now reads the prose without field lines; BM25 keeps
them. Real DuckDB files; the real model where meaning matters.
"""

from __future__ import annotations

from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.indexer import Indexer, embed_text
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.plain import is_field_line, prose_text

# (file name, description): the page shape of obsidian-hub's plugin notes, text of our own
PLUGINS = [
    ("runner", "Create buttons that run shell commands from your notes."),
    ("sidecar", "Open the bible in your preferred translation in a splitscreen view."),
    ("ghostline", "Focused on the current line, others faded like a ghost!"),
    ("stamper", "Update the 'update time' element when saving or manually."),
    ("hider", "Hide chosen files and folders in the built-in file explorer."),
    ("chords", "Render guitar chord diagrams from chord symbols in your notes."),
]


def _page(name: str, description: str, mobile: str) -> str:
    return (
        f"---\nplugin-id: {name}\npublish: true\n---\n# {name.title()}\n\n"
        f"Plugin ID: `{name}`\n"
        f"Links: [GitHub repository](https://github.com/dev-{name}/obsidian-{name}) or "
        f"[Open in Obsidian](obsidian://show-plugin?id={name})\n"
        f"Developed by: [[dev-{name}]]\n"
        f"Mobile compatible: [[{mobile} plugins|{'No' if 'Desktop' in mobile else 'Yes'}]]\n\n"
        f"{description}\n"
    )


def test_field_lines_are_told_apart_from_prose() -> None:
    assert is_field_line("Plugin ID: `runsh`")
    assert is_field_line("Developed by: [[Deedone]]")
    assert is_field_line("- GitHub: [someone](https://github.com/someone/) ^github")
    assert is_field_line("Links: [GitHub repository](https://x.org) or [ ](obsidian://x)")
    assert not is_field_line("Note: see [[Setup]] for every setting the plugin supports")
    assert not is_field_line("- Discussed the book [[Out of Control]] on [[Emergence]]")
    assert not is_field_line("BACKGROUND: We studied 12 patients over two years.")
    assert not is_field_line("Mobile compatible: yes")  # a value that points nowhere
    # a sentence that ends in a colon, an embed and its caption: prose (tests/test_search_embeds)
    assert not is_field_line("The watch came with its manual: ![[warranty.pdf#page=4|terms]]")
    assert not is_field_line("Cover: ![[cover.png|the harbour at dusk]]")
    page = _page("runner", PLUGINS[0][1], "Desktop-only")
    text = embed_text("runner", "Runner", page.split("---\n", 2)[2])
    assert "run shell commands" in text and "Deedone" not in text
    assert "Plugin ID" not in text and "GitHub repository" not in text
    # a chunk that is nothing but fields keeps them: they are all it says
    only = "Designed by: [[kraasch]]\nModes: [[Dark-mode themes|dark]]"
    assert prose_text(only) == "Designed by: kraasch\nModes: dark"


def test_a_templated_page_is_found_by_what_it_does(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    vault = tmp_path / "hub"
    vault.mkdir()
    for i, (name, description) in enumerate(PLUGINS):
        mobile = "Desktop-only" if i % 2 else "Mobile-compatible"
        (vault / f"{name}.md").write_text(_page(name, description, mobile))
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, real_embedder).run()
    finally:
        store.close()
    kb = KnowledgeBase.open(settings, real_embedder)
    try:
        for query, expected in [
            ("buttons in a note that execute shell scripts", "note:runner"),
            ("read scripture side by side with my notes", "note:sidecar"),
            ("dim every line except the one I am typing on", "note:ghostline"),
            ("refresh the modified timestamp when I save", "note:stamper"),
        ]:
            found = kb.call("kb_search", {"query": query, "mode": "vector", "top_k": 3})
            assert [r["id"] for r in found["results"]][:1] == [expected], (query, found)
        # the fields are still words: BM25 finds a page by its developer
        found = kb.call("kb_search", {"query": "dev-chords", "mode": "keyword"})
        assert found["results"][0]["id"] == "note:chords", found
    finally:
        kb.close()
