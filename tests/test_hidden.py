"""What Obsidian's reading view hides stays out of snippets, embedded text and cards.

Real files of each pattern (tests/data/obsidian_hidden/hub, modelled on obsidian-hub's plugin
pages and hub notes): `%%` block and inline comments, a `<button>`, inline HTML, an HTML
comment, `%%` inside code, a comment longer than a chunk, a hub note that is all boilerplate.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.indexer import INDEX_VERSION_KEY, Indexer
from kbtui.indexing.texts import content_hash, embed_text
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.chunk import chunk_body
from kbtui.vault.hidden import MARKUP, HiddenText, visible_markdown
from kbtui.vault.parse import parse_note
from tests.conftest import copy_vault

HUB = Path(__file__).parent / "data" / "obsidian_hidden" / "hub"
HIDDEN_WORDS = ("%%", "<button", "Open in Obsidian", "Do not edit", "reviewer", "mod-cta")


def note_body(name: str) -> str:
    return parse_note(f"hub/{name}", (HUB / name).read_text(encoding="utf-8")).body


def test_comments_and_html_are_hidden_code_is_kept() -> None:
    shown = visible_markdown(note_body("Advanced Tables.md"))
    for word in ("Do not edit", "Add a description", "reviewer", "<button", "Open in Obsidian"):
        assert word not in shown
    assert "<b>" not in shown and "<!--" not in shown and "<span" not in shown
    # the text inside tags stays, as Obsidian shows it
    assert "written by Tony Grosinger and works in every vault." in shown
    assert "Tab moves to the next cell  and tables re-align" in shown
    assert "[Edit In GitHub](https://github.dev/obsidian-community/obsidian-hub)" in shown
    # code keeps %% verbatim: a fence and a code span
    assert 'const marker = "%% not a comment %%";' in shown
    assert "Use `%%` in a code span" in shown


def test_inline_rules() -> None:
    text = "a %%x `%%` y%% b <b>c</b>d<br>e <https://x.org> 1 < 2 <script>var s</script>f"
    assert visible_markdown(text) == "a  b cd e <https://x.org> 1 < 2  f"
    assert visible_markdown("kept %% an unclosed comment hides the rest\n\nrest") == "kept "
    assert visible_markdown("    %% indented code %%\n\ntext") == "    %% indented code %%\n\ntext"
    plain = "no markup at all: 5 < 6 and 100% sure"
    assert visible_markdown(plain) is plain or visible_markdown(plain) == plain


def test_markup_only_keeps_comments() -> None:
    """BM25 keeps what comments say (Obsidian's search finds it), not tag attributes."""
    searched = HiddenText(note_body("Advanced Tables.md")).shown(kinds=frozenset({MARKUP}))
    assert "reviewer: check the Tab key" in searched
    assert "mod-cta" not in searched and "button" not in searched


def test_a_chunk_cut_inside_a_long_comment_knows_it() -> None:
    body = note_body("Calendar.md")
    chunks = chunk_body(body, [(0, "")], size=300, overlap=30)
    hidden = HiddenText(body)
    inside = [c for c in chunks if "%%" not in c.content and "taxonomy" in c.content]
    assert inside, "the comment should span a chunk with no %% in it"
    for chunk in inside:
        assert "taxonomy" not in hidden.shown(chunk.start, chunk.end)
    shown = "".join(hidden.shown(c.start, c.end) for c in chunks)
    assert "monthly calendar in the sidebar" in shown and "maintainers" not in shown


@pytest.fixture(scope="module")
def hub_kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Iterator[KnowledgeBase]:
    vault = copy_vault(tmp_path_factory.mktemp("hidden") / "vault")
    shutil.copytree(HUB, vault / "hub")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, real_embedder).run()
    kb = KnowledgeBase(settings, store, real_embedder)
    yield kb
    kb.close()


def snippets(kb: KnowledgeBase, query: str, mode: str = "hybrid") -> dict[str, str]:
    response = kb.call("kb_search", {"query": query, "top_k": 10, "mode": mode})
    assert response["ok"], response
    return {r["id"]: r["snippet"] for r in response["results"]}


def test_search_snippets_show_what_obsidian_shows(hub_kb: KnowledgeBase) -> None:
    found = snippets(hub_kb, "table navigation plugin")
    assert "hub:advanced_tables" in found
    assert found["hub:advanced_tables"].startswith("Improved table navigation")
    calendar = snippets(hub_kb, "calendar in the sidebar")["hub:calendar"]
    assert calendar.startswith("The Calendar plugin shows a monthly calendar")
    for snippet in [*found.values(), calendar]:
        for word in HIDDEN_WORDS:
            assert word not in snippet


def test_keyword_index(hub_kb: KnowledgeBase) -> None:
    """Words of tag attributes are not the note's; comment text stays searchable."""
    assert "hub:advanced_tables" not in snippets(hub_kb, "mod-cta", mode="keyword")
    assert "hub:advanced_tables" in snippets(hub_kb, "reviewer macOS", mode="keyword")


def test_embedded_text_leaves_comments_out(hub_kb: KnowledgeBase) -> None:
    """The calendar note's comment is longer than a chunk: the chunks inside it embed none of
    it, so a question about the template instructions does not find it by meaning."""
    pending = hub_kb.store.con.execute(
        "SELECT count(*) FROM chunks WHERE embedding IS NULL"
    ).fetchone()
    assert pending == (0,)
    found = snippets(hub_kb, "where do screenshots of a plugin go", mode="vector")
    assert "hub:calendar" not in found


def test_a_hub_card_is_not_built_from_boilerplate(hub_kb: KnowledgeBase) -> None:
    chunk = hub_kb.call("get_chunk", {"chunk_id": "hub:plugins_by_category_chunk_0"})
    card = chunk["knowledge_card"]
    text = " ".join([card["summary"], *card["takeaways"]])
    assert "edit" not in text.lower() and "script" not in text
    tables = hub_kb.call("get_chunk", {"chunk_id": "hub:advanced_tables_chunk_0"})
    summary = tables["knowledge_card"]["summary"]
    assert summary.startswith("Improved table navigation") and "%%" not in summary


def test_an_older_index_follows(hub_kb: KnowledgeBase, real_embedder: FastEmbedder) -> None:
    """An index written before hidden text was left out (older text version, no `shown`,
    hashes of the raw text): the next pass re-reads every note and re-embeds only the chunks
    whose text changed, those that hold a comment or HTML."""
    store = hub_kb.store
    rows = store.con.execute(
        "SELECT c.cid, n.title, c.heading, c.content, c.shown FROM chunks c "
        "JOIN notes n USING (entity_id)"
    ).fetchall()
    changed = sum(1 for *_, shown in rows if shown is not None)
    assert changed >= 4  # the hub notes' chunks with a comment or HTML
    for cid, title, heading, content, _ in rows:  # what the old rule hashed and embedded
        old_hash = content_hash(embed_text(title, heading, content))
        store.con.execute(
            "UPDATE chunks SET shown = NULL, content_hash = ? WHERE cid = ?", [old_hash, cid]
        )
    store.set_meta(INDEX_VERSION_KEY, "tok1-title2-chunk1-500/50")
    report = Indexer(hub_kb.settings, store, real_embedder).run()
    assert len(report.changed) == len({r[0] for r in store.note_states().values()})
    assert report.chunks_embedded == changed
    assert "%%" not in snippets(hub_kb, "table navigation plugin")["hub:advanced_tables"]


@pytest.mark.parametrize(
    "text",
    [
        "a <!-- " * 140_000,  # unclosed HTML comments on one line
        '<a x="' * 170_000,  # unclosed attribute quotes
        "<button> " * 110_000,  # elements without their end tag
        "%% ` `` " * 120_000,  # comment marks among unmatched backticks
    ],
    ids=["comments", "quotes", "buttons", "backticks"],
)
def test_a_megabyte_of_unclosed_markup_stays_linear(text: str) -> None:
    """Guards against runaway scans (each was seconds to minutes when every "<" or "`"
    searched to the end of the note); ~0.3 s each measured, 5 s is the alarm. CPU time of
    this thread, not wall time: a loaded machine must not set the alarm off."""
    started = time.thread_time()
    HiddenText(text).shown()
    assert time.thread_time() - started < 5.0
