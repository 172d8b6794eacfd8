"""Patterns of real public vaults (issue 19), on small copies in tests/data/vault_patterns and on
kepano's vault: properties YAML refuses, Chinese titles, notes sharing a name in two folders, a
link as a property value, numbered folders and Hugo's `_index.md`. Real DuckDB files.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing import indexer as indexer_module
from kbtui.indexing.indexer import Indexer
from kbtui.models import IndexReport
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault import parse

PATTERNS = Path(__file__).parent / "data" / "vault_patterns"
KEPANO = Path("/work/shared/data/vaults/kepano")


def index(settings: Settings) -> IndexReport:
    store = Store(settings.db_path)
    try:
        return Indexer(settings, store, HashEmbedder()).run()
    finally:
        store.close()


@pytest.fixture
def patterns(tmp_path: Path) -> Settings:
    return Settings.for_vault(Path(shutil.copytree(PATTERNS, tmp_path / "vault")))


def ids_by_path(settings: Settings) -> dict[str, str]:
    store = Store(settings.db_path)
    try:
        return {path: state[0] for path, state in store.note_states().items()}
    finally:
        store.close()


def relationships(settings: Settings, entity_id: str) -> list[dict[str, Any]]:
    store = Store(settings.db_path)
    try:
        return store.neighbor_relationships(entity_id, "both", None, 100)
    finally:
        store.close()


def test_properties_yaml_refuses_are_read_leniently_else_the_body_is_indexed(
    patterns: Settings,
) -> None:
    """obsidian-hub's `aliases: [- @kepano]`: Obsidian shows the note and searches it."""
    report = index(patterns)
    assert report.skipped == []
    warnings = {w.path: w.reason for w in report.warnings}
    assert warnings["01 - Community/People/kepano.md"] == (
        "properties line 2: a value YAML refuses was read as text: aliases: [- @kepano]"
    )
    assert warnings["01 - Community/People/broken.md"].startswith(
        "invalid YAML frontmatter, properties not read: line 3: "
    )
    kb = KnowledgeBase.open(patterns, HashEmbedder())
    try:
        person = kb.call("kb_get", {"id": "community:kepano"})
        assert person["metadata"]["aliases"] == ["@kepano"]
        assert person["metadata"]["tags"] == ["people"]
        found = kb.call("kb_search", {"query": "kepano", "mode": "keyword"})["results"]
        assert found[0]["id"] == "community:kepano"
        found = kb.call("kb_search", {"query": "lighthouse keepers", "mode": "keyword"})
        assert found["results"][0]["id"] == "community:broken"
    finally:
        kb.close()
    text = (patterns.vault / "01 - Community/People/kepano.md").read_text()
    assert text == (PATTERNS / "01 - Community/People/kepano.md").read_text()  # not rewritten


def test_chinese_titles_get_ids_that_say_which_note(patterns: Settings) -> None:
    index(patterns)
    ids = ids_by_path(patterns)
    assert ids["在团队中使用 Obsidian.md"] == "note:zai_tuan_dui_zhong_shi_yong_obsidian"
    assert ids["编辑与格式化/模板.md"] == "bian_ji_yu_ge_shi_hua:mo_ban"
    assert ids["模板.md"] == "note:mo_ban"
    assert all(re.fullmatch(r"[a-z_]+:[a-z0-9_]+", i) for i in ids.values())


def test_a_link_to_a_shared_name_goes_to_the_nearest_note(patterns: Settings) -> None:
    """Obsidian's help vault: `[[Security and privacy]]` in Obsidian Sync/ means Sync's."""
    index(patterns)

    def target(source: str) -> list[str]:
        rels = relationships(patterns, source)
        return [r["toEntityId"] for r in rels if r["fromEntityId"] == source]

    assert target("obsidian_sync:headless_sync") == ["obsidian_sync:security_and_privacy"]
    assert target("obsidian_publish:publish_your_site") == ["obsidian_publish:security_and_privacy"]
    assert target("bian_ji_yu_ge_shi_hua:ge_shi") == ["bian_ji_yu_ge_shi_hua:mo_ban"]
    assert target("note:zai_tuan_dui_zhong_shi_yong_obsidian") == ["note:mo_ban"]
    # The nearer note leaves: the link goes to the other one, and back when it returns.
    moved = patterns.vault / "Obsidian Sync/Security and privacy.md"
    kept = moved.read_bytes()
    moved.unlink()
    index(patterns)
    assert target("obsidian_sync:headless_sync") == ["obsidian_publish:security_and_privacy"]
    moved.write_bytes(kept)
    index(patterns)
    assert target("obsidian_sync:headless_sync") == ["obsidian_sync:security_and_privacy"]


def test_a_link_in_any_property_is_a_relationship_named_after_it(patterns: Settings) -> None:
    """kepano's `type: [[Parks]]` is no type: the note keeps its folder's, Parks gains it."""
    index(patterns)
    ids = ids_by_path(patterns)
    assert ids["References/Fushimi Inari.md"] == "reference:fushimi_inari"
    parks = relationships(patterns, "reference:parks")
    assert [(r["fromEntityId"], r["type"], r["label"]) for r in parks] == [
        ("reference:fushimi_inari", "RELATED_TO", "type")
    ]


def test_ids_and_types_a_person_can_guess(patterns: Settings) -> None:
    index(patterns)
    ids = ids_by_path(patterns)
    assert ids["01 - Community/People/kepano.md"] == "community:kepano"
    assert ids["Files and folders/Manage notes.md"] == "files_and_folders:manage_notes"
    assert ids["develop/plugins/_index.md"] == "develop:plugins"  # the page of its folder
    assert ids["develop/_index.md"] == "note:develop"
    kb = KnowledgeBase.open(patterns, HashEmbedder())
    try:
        assert kb.call("kb_get", {"id": "develop:plugins"})["title"] == "plugins"
        assert kb.call("kb_get", {"id": "note:develop"})["title"] == "Develop"
    finally:
        kb.close()


def _old_type_and_name(path: str, meta: dict[str, Any]) -> tuple[str, str]:
    """The id rule before issue 19 (accents folded, other letters dropped), to build an
    index as an older kbtui left it."""

    def old_slug(text: str) -> str:
        folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
        return re.sub(r"[^a-z0-9]+", "_", folded.lower()).strip("_")

    parts = path.split("/")
    declared = meta.get("type")
    declared = declared[0] if isinstance(declared, list) and declared else declared
    entity_type = old_slug(declared) if isinstance(declared, str) else ""
    if not entity_type and len(parts) > 1:
        entity_type = parse.singular(old_slug(parts[0]))
    entity_type = re.sub(r"[^a-z_]", "", entity_type) or "note"
    stem = parts[-1].rsplit(".", 1)[0]
    name = old_slug(stem) or "n" + hashlib.sha1(stem.encode()).hexdigest()[:10]
    return entity_type, name


def test_an_index_built_by_the_old_rule_migrates_once(
    patterns: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as old:
        old.setattr(parse, "derive_type_and_name", _old_type_and_name)
        old.setattr(indexer_module, "ID_RULE_VERSION", "1")
        index(patterns)
    before = ids_by_path(patterns)
    assert before["References/Fushimi Inari.md"] == "parks:fushimi_inari"
    assert before["模板.md"].startswith("note:n")
    store = Store(patterns.db_path)
    try:
        store.record_usage([before["模板.md"]], reward=1.0, alpha=0.5, count=True)
        store.flush_usage()
    finally:
        store.close()
    report = index(patterns)  # the current rule
    assert report.skipped == [] and not report.new and not report.deleted
    assert len(report.changed) == len(before)  # every note read again, once
    after = ids_by_path(patterns)
    assert after["模板.md"] == "note:mo_ban"
    assert after["References/Fushimi Inari.md"] == "reference:fushimi_inari"
    store = Store(patterns.db_path)
    try:
        usage = store.entity_rows(["note:mo_ban"])["note:mo_ban"]
        assert (usage["access_count"], usage["q_value"]) == (1, 0.75)  # carried
        assert store.entity_rows([before["模板.md"]]) == {}
    finally:
        store.close()
    rels = relationships(patterns, "note:zai_tuan_dui_zhong_shi_yong_obsidian")
    assert [r["toEntityId"] for r in rels] == ["note:mo_ban"]  # links resolved again
    assert index(patterns).changed == []  # once


@pytest.mark.skipif(not KEPANO.is_dir(), reason="the kepano vault is not on this machine")
def test_kepano_types_come_from_folders_and_links_in_type_are_relationships(
    tmp_path: Path,
) -> None:
    settings = Settings.for_vault(Path(shutil.copytree(KEPANO, tmp_path / "kepano")))
    report = index(settings)
    assert report.skipped == []
    ids = ids_by_path(settings)
    assert ids["References/Fushimi Inari.md"] == "reference:fushimi_inari"
    assert ids["References/Obsidian.md"] == "reference:obsidian"
    assert ids["Notes/Minimal Theme.md"] == "note:minimal_theme"
    parks = relationships(settings, "reference:parks")
    assert ("reference:fushimi_inari", "type") in [(r["fromEntityId"], r["label"]) for r in parks]
