"""Daily notes, outline, tags, properties and search:context as a user runs them: on copies
of vault_example and kepano's vault, real DuckDB index, real files (writes checked byte for
byte)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.obsidian.daily import daily_path, moment_format
from tests.conftest import open_runtime

KEPANO = Path("/work/shared/data/vaults/kepano")
DAY = dt.date(2026, 3, 9)


def test_moment_formats() -> None:
    when = dt.datetime(2023, 1, 1, 14, 5)
    assert moment_format(when, "YYYY/MMMM/YYYY-MMM-DD") == "2023/January/2023-Jan-01"
    assert moment_format(when, "YYYY-MM-DD") == "2023-01-01"
    assert moment_format(when, "dddd, Do [of] MMMM YY, HH:mm") == "Sunday, 1st of January 23, 14:05"
    assert moment_format(when, "gggg-[W]ww") == "2023-W01"


def test_daily_path_follows_settings(tmp_path: Path) -> None:
    assert daily_path(tmp_path, DAY) == "2026-03-09.md"  # Obsidian's defaults
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text(
        json.dumps({"folder": "Journal/", "format": "YYYY/MM/YYYY-MM-DD ddd"})
    )
    assert daily_path(tmp_path, DAY) == "Journal/2026/03/2026-03-09 Mon.md"
    assert daily_path(KEPANO, DAY) == "Daily/2026-03-09.md"


@pytest.fixture(scope="module")
def kepano(tmp_path_factory: pytest.TempPathFactory) -> VaultRuntime:
    vault = tmp_path_factory.mktemp("kepano") / "vault"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    rt = open_runtime(vault, HashEmbedder())
    yield rt
    rt.close()


def test_daily_append_creates_from_template_then_appends(kepano: VaultRuntime) -> None:
    vault = kepano.settings.vault
    first = kepano.call("daily_append", {"content": "- [ ] log this", "date": "2026-03-09"})
    assert first["ok"] and first["path"] == "Daily/2026-03-09.md" and first["created"]
    template = (vault / "Templates" / "Daily Note Template.md").read_text()
    assert (vault / first["path"]).read_text() == template.rstrip("\n") + "\n- [ ] log this\n"
    again = kepano.call("daily_append", {"content": "second", "date": "2026-03-09"})
    assert again["ok"] and not again["created"]
    assert (vault / first["path"]).read_text().endswith("- [ ] log this\nsecond\n")
    pre = kepano.call("app_daily", {"action": "prepend", "content": "top", "date": "2026-03-09"})
    assert pre["ok"]
    assert (vault / first["path"]).read_text().startswith("---\ntags:\n  - daily\n---\ntop\n")
    tasks = kepano.call("tasks_list", {"note": "Daily/2026-03-09.md"})["results"]
    assert [t["text"] for t in tasks] == ["- [ ] log this"]  # indexed at once
    bad = kepano.call("daily_append", {"content": "x", "date": "09/03/2026"})
    assert bad["error"]["field"] == "date"


def test_outline(kepano: VaultRuntime) -> None:
    vault = kepano.settings.vault
    (vault / "Outline.md").write_text(
        "---\ntitle: t\n---\n# One\n\ntext\n\n## Two\n\n```\n# not a heading\n```\n\n### Three\n"
    )
    answer = kepano.call("app_outline", {"note": "Outline.md"})  # read from disk at once
    assert answer["ok"], answer
    kepano.reindex()
    assert kepano.call("app_outline", {"note": "Outline"})["results"] == answer["results"]
    assert answer["results"] == [
        {"heading": "One", "level": 1, "line": 4},
        {"heading": "Two", "level": 2, "line": 8},
        {"heading": "Three", "level": 3, "line": 14},
    ]


def test_tags_and_properties_equal_independent_count(kepano: VaultRuntime) -> None:
    import yaml

    vault = kepano.settings.vault
    compared = 0
    totals: dict[str, int] = {}
    first_type: dict[str, str] = {}  # a guessed type comes from the first note, by path
    for path in sorted(vault.rglob("*.md"), key=lambda p: p.relative_to(vault).as_posix()):
        rel = path.relative_to(vault).as_posix()
        if rel.startswith(".") or "/." in rel:
            continue
        text = path.read_text()
        answer = kepano.call("app_properties", {"note": rel})
        if not answer["ok"]:
            continue  # a note the index skipped
        names = [r["name"] for r in answer["results"]]
        for name in names:
            totals[name] = totals.get(name, 0) + 1
        for r in answer["results"]:
            first_type.setdefault(r["name"], r["type"])
        if not text.startswith("---\n"):
            assert names == []
            continue
        try:
            fm = yaml.safe_load(text.split("\n---", 1)[0][4:]) or {}
        except yaml.YAMLError:
            continue  # a template's `{{date}}`: read leniently by kbtui, not by this check
        assert sorted(names, key=str.lower) == sorted(map(str, fm), key=str.lower), rel
        compared += 1
    assert compared >= 50
    vault_wide = kepano.call("app_properties", {})["results"]
    assert {r["name"]: r["count"] for r in vault_wide} == totals
    types = {r["name"]: r["type"] for r in vault_wide}
    assert types == first_type
    assert types["rating"] == "number" and types["genre"] == "multitext"  # from types.json
    tags = {r["tag"]: r["count"] for r in kepano.call("app_tags", {})["results"]}
    assert tags["#categories"] == len(kepano.call("app_tags", {"name": "categories"})["results"])
    assert tags["#categories"] >= 10


def test_property_set_and_remove_keep_other_bytes(kepano: VaultRuntime) -> None:
    vault = kepano.settings.vault
    note = vault / "Props.md"
    original = (
        "---\n# a comment\ntitle:   'Kept as written'\ngenre:\n  - \"[[Sci-fi]]\"\n"
        "rating: 7\n---\nBody\n"
    )
    note.write_text(original)
    kepano.reindex()
    set_rating = {"action": "set", "name": "rating", "note": "Props.md", "value": "8.5"}
    assert kepano.call("app_property", set_rating)["ok"]
    assert note.read_text() == original.replace("rating: 7", "rating: 8.5")
    add = {"action": "set", "name": "topics", "note": "Props.md", "value": "a, b"}
    assert kepano.call("app_property", add)["ok"]  # multitext in types.json: a list
    assert note.read_text().endswith('rating: 8.5\ntopics:\n  - "a"\n  - "b"\n---\nBody\n')
    read = kepano.call("app_property", {"action": "read", "name": "topics", "note": "Props.md"})
    assert read["value"] == ["a", "b"]
    remove = {"action": "remove", "name": "genre", "note": "Props.md"}
    assert kepano.call("app_property", remove)["ok"]
    assert note.read_text() == (
        "---\n# a comment\ntitle:   'Kept as written'\nrating: 8.5\n"
        'topics:\n  - "a"\n  - "b"\n---\nBody\n'
    )
    wrong = {"action": "set", "name": "rating", "note": "Props.md", "value": "high"}
    answer = kepano.call("app_property", wrong)
    assert answer["error_type"] == "ValidationError" and "not a number" in answer["message"]
    assert answer["error"]["field"] == "value"


def test_search_context(kepano: VaultRuntime) -> None:
    answer = kepano.call("app_search_context", {"query": "EVERGREEN"})
    vault = kepano.settings.vault
    expected = [
        (p.relative_to(vault).as_posix(), n)
        for p in sorted(vault.rglob("*.md"))
        for n, line in enumerate(p.read_text().split("\n"), 1)
        if "evergreen" in line.lower()
    ]
    assert sorted((r["file"], r["line"]) for r in answer["results"]) == sorted(expected)
    assert len(expected) >= 5


@pytest.mark.parametrize("query", ["created: 2023-09-12", "RATING: 7", "genre: []", "[[Books]]"])
def test_search_context_matches_properties(kepano: VaultRuntime, query: str) -> None:
    """Obsidian's search reads the properties block as the lines it is: a line of YAML
    holding the query is a match like any other (grep over the files is the reference)."""
    answer = kepano.call("app_search_context", {"query": query})
    vault = kepano.settings.vault
    expected = [
        (p.relative_to(vault).as_posix(), n)
        for p in sorted(vault.rglob("*.md"))
        for n, line in enumerate(p.read_text().split("\n"), 1)
        if query.lower() in line.lower()
    ]
    assert sorted((r["file"], r["line"]) for r in answer["results"]) == sorted(expected)
    assert len(expected) >= 2
