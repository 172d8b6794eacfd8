"""Issue 42 item 1: Bases' `file.tags` as Obsidian gives them (`#` first, the case written,
each once) and `contains()` on a list of tags as Obsidian's Bases answer it (nested tags, `#`
optional, any case), on a small vault shaped like the second-brain vault of the issue: tags
`#Area`, `#Journal/Daily` ..., views filtered with `file.tags.contains("Area")`."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtui.bases.service import BaseService
from kbtui.bases.views import run_view
from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.db import SCHEMA_VERSION
from tests.bases_kit import indexed

JOURNAL = """\
filters:
  and:
    - file.tags.contains("Journal")
views:
  - type: table
    name: Daily
    filters:
      and:
        - file.tags.contains("Journal/Daily")
    order: [file.name]
  - type: table
    name: Meetings
    filters: 'file.tags.contains("#Journal/Meeting")'
    order: [file.name]
  - type: table
    name: All
    groupBy:
      property: kind
      direction: ASC
    order: [file.name, file.tags]
"""
KNOWLEDGE = """\
views:
  - type: table
    name: Areas
    filters: 'file.tags.contains("Area")'
    order: [file.name, file.tags]
  - type: table
    name: Areas written with a hash
    filters: 'file.tags.contains("#Area")'
    order: [file.name]
  - type: table
    name: Resources
    filters: 'tags.contains("#Resource")'
    order: [file.name]
  - type: table
    name: Techniques
    filters: 'file.hasTag("technique")'
    order: [file.name]
  - type: table
    name: Exact list element
    filters: 'file.tags.filter(value == "#Area").length > 0'
    order: [file.name]
"""
NOTES = {
    "Journal.base": JOURNAL,
    "Knowledge.base": KNOWLEDGE,
    "Journal/2026-01-05.md": "---\ntags: [Journal/Daily]\nkind: daily\n---\nA day. #Mood/Good\n",
    "Journal/2026-W02.md": "---\ntags: [Journal/Weekly]\nkind: weekly\n---\nA week.\n",
    "Journal/Standup.md": "---\ntags:\n  - Journal/Meeting\n  - Area\nkind: meeting\n---\n"
    "Notes. #Area again, and #area in lower case.\n",
    "Knowledge/Health.md": "---\ntags: [Area]\n---\nSleep well. #Area\n",
    "Knowledge/Work.md": "# Work\n\nAn area of life. #Area/Work\n",
    "Knowledge/Zettel book.md": "---\ntags: [Resource, Book]\n---\nA book.\n",
    "Knowledge/Pomodoro.md": "Focus in 25 minutes. #Technique\n",
    "Knowledge/Areal.md": "---\ntags: [Areal]\n---\nNot an area: only a longer tag.\n",
}


def names(service: BaseService, base: str, view: str) -> list[str]:
    return [r["path"].rsplit("/", 1)[-1] for r in service.query(base, view=view)[1].rows]


@pytest.fixture
def service(tmp_path: Path) -> BaseService:
    return indexed(tmp_path / "vault", NOTES)[1]


def test_file_tags_keep_the_hash_and_the_case_written_each_once(service: BaseService) -> None:
    rows = {r["path"]: r["values"] for r in service.query("Knowledge", view="Areas")[1].rows}
    # frontmatter first, then the body; `#Area` written twice is listed once, `#area` is
    # another written form and stays (Obsidian's getAllTags keeps every form)
    assert rows["Journal/Standup.md"]["file.tags"] == ["#Journal/Meeting", "#Area", "#area"]
    assert rows["Knowledge/Health.md"]["file.tags"] == ["#Area"]
    assert rows["Knowledge/Work.md"]["file.tags"] == ["#Area/Work"]


def test_contains_on_file_tags_matches_as_obsidian(service: BaseService) -> None:
    # without `#`, with `#`, a nested tag under its parent; never a longer tag (#Areal)
    expected = ["Standup.md", "Health.md", "Work.md"]
    assert sorted(names(service, "Knowledge", "Areas")) == sorted(expected)
    assert sorted(names(service, "Knowledge", "Areas written with a hash")) == sorted(expected)
    assert names(service, "Journal", "Daily") == ["2026-01-05.md"]
    assert names(service, "Journal", "Meetings") == ["Standup.md"]
    # the `tags` property is a list of tags too (Obsidian 1.9.14): `#` optional
    assert names(service, "Knowledge", "Resources") == ["Zettel book.md"]
    assert names(service, "Knowledge", "Techniques") == ["Pomodoro.md"]  # hasTag: any case
    # the elements themselves are plain text: `==` compares them as written
    assert sorted(names(service, "Knowledge", "Exact list element")) == ["Health.md", "Standup.md"]


def test_the_sql_prefilter_and_the_rows_in_memory_agree(service: BaseService) -> None:
    for base, views in (("Knowledge", ("Areas", "Resources", "Techniques")),
                        ("Journal", ("Daily", "Meetings", "All"))):  # fmt: skip
        for view in views:
            through_sql = [r["path"] for r in BaseService(service.store, service.vault)
                           .query(base, view=view)[1].rows]  # fmt: skip
            found = service.load(service.find(base))
            held = run_view(found.base, service.rows(), found.base.view(view), None)
            assert [r["path"] for r in held.rows] == through_sql, (base, view)
            assert through_sql, (base, view)


def test_an_index_at_schema_10_reads_its_notes_again_for_the_written_tags(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, _ = indexed(vault, NOTES)
    store.con.execute("DROP TABLE file_tags")  # as schema 10 left it
    store.con.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
    store.close()
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        report = Indexer(settings, store, None).run(embed=False)
        assert len(report.changed) == len([p for p in NOTES if p.endswith(".md")])
        service = BaseService(store, vault)
        assert sorted(names(service, "Knowledge", "Areas")) == [
            "Health.md", "Standup.md", "Work.md"]  # fmt: skip
    finally:
        store.close()
