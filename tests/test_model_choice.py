"""Which embedding model a vault uses (issue 43): `auto` decides from the vault's languages at
its first index and keeps the decision; a forced model or an asked-for new decision re-embeds
every chunk, with keyword search whole meanwhile and never another model's vectors compared.

Fake embedders stand in for both models (HashEmbedder with each model's kind of id): what is
tested is the choice and the switch, not what the vectors mean."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kbtui.cli import main
from kbtui.config import Settings
from kbtui.embed import EmbedderError, HashEmbedder
from kbtui.indexing.languages import note_language, vault_languages
from kbtui.indexing.model_choice import (
    E5,
    MINILM,
    Choice,
    VaultEmbedder,
    auto_choice,
    build,
    decide,
)
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.tui.widgets.status import status_text

ZH = "在 Obsidian 里可以把笔记导出成 PDF 文件：打开命令面板，选择导出为 PDF，再设置页面大小和边距。"
TERMS = "用 Obsidian Sync 同步 vault，在 Settings 里设置 encryption 密码。"  # English terms
EN = "Export a note to PDF from the command palette, then pick the page size and the margins."


class FakeMiniLM(HashEmbedder):
    model_id = "hash-minilm"


class FakeE5(HashEmbedder):
    model_id = "multilingual-e5-small-fake"


def fake(name: str, settings: Settings) -> HashEmbedder:
    return FakeE5() if name == E5 else FakeMiniLM()


def write_notes(vault: Path, prefix: str, text: str, count: int) -> None:
    vault.mkdir(exist_ok=True)
    for i in range(count):
        (vault / f"{prefix}{i}.md").write_text(f"# {prefix} {i}\n\n{text} ({i})\n", "utf-8")


def opened(vault: Path, **options: Any) -> tuple[KnowledgeBase, VaultEmbedder]:
    settings = Settings.for_vault(vault, **options)
    embedder = VaultEmbedder(settings, fake)
    return KnowledgeBase.open(settings, embedder, approximate=False), embedder


def first_index(vault: Path) -> tuple[Choice, dict[str, Any]]:
    """Index the vault once under auto: the choice made and the index's stats."""
    kb, embedder = opened(vault)
    try:
        kb.indexer.run()
        assert embedder.choice is not None
        return embedder.choice, kb.store.stats()
    finally:
        kb.close()


def keyword_hits(kb: KnowledgeBase, query: str) -> list[str]:
    found = kb.call("kb_search", {"query": query, "mode": "keyword"})
    return [r["id"] for r in found["results"]]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (ZH, "zh"),
        ("ノートを PDF に書き出すには、コマンドパレットから「エクスポート」を選びます。", "ja"),
        ("노트를 PDF로 내보내려면 명령 팔레트에서 내보내기를 선택하고 여백을 정합니다.", "ko"),
        ("Die Notiz lässt sich über die Befehlspalette als PDF exportieren; Ränder wählen.", "de"),
        ("Экспорт заметки в PDF: откройте палитру команд и выберите размер страницы.", "ru"),
        (EN, "en"),
        # Chinese with English terms: each character counts as a word would
        ("用 Obsidian Sync 同步 vault，在 Settings 里打开 end-to-end encryption 设置密码。", "zh"),
        ("- milk\n- eggs", None),  # too short to tell
    ],
)
def test_a_note_is_counted_in_the_language_it_is_written_in(text: str, language: str) -> None:
    assert note_language(text) == language


def test_auto_takes_e5_for_a_chinese_vault_keeps_it_and_says_why(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_notes(vault, "zh", ZH, 6)
    write_notes(vault, "en", EN, 2)
    choice, stats = first_index(vault)
    assert choice == Choice(E5, "auto: 75% of notes in Chinese")
    assert stats["embed_model"] == FakeE5.model_id and stats["embedded"] == 8
    assert stats["model_reason"] == choice.reason
    line = status_text({"stats": stats, "index": {"state": "idle"}}, "vault").plain
    assert line.endswith("multilingual-e5-small (auto: 75% of notes in Chinese)")
    write_notes(vault, "more", EN, 30)  # the vault drifts to English: the choice stays
    kb, embedder = opened(vault)
    try:
        assert embedder.choice is not None and embedder.choice.model == E5
        assert embedder.model_id == FakeE5.model_id
        assert kb.store.stats()["embedded"] == 8  # nothing dropped
        # hybrid weighs the multilingual model's cosines for a Chinese question in full
        found = kb.call("kb_search", {"query": ZH})["results"]
        assert found[0]["metadata"]["vector_score"] > 0.5
    finally:
        kb.close()


def test_a_forced_switch_drops_the_old_vectors_and_the_next_pass_embeds_all(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    write_notes(vault, "en", EN, 5)
    write_notes(vault, "zh", ZH, 1)
    choice, stats = first_index(vault)
    assert choice == Choice(MINILM, "auto: 83% of notes in English") and stats["embedded"] == 6
    kb, embedder = opened(vault, model="e5", model_set_by="KBTUI_MODEL")
    try:
        stats = kb.store.stats()  # before any pass: no MiniLM vector is left to compare with
        assert (stats["embedded"], stats["embed_model"]) == (0, FakeE5.model_id)
        assert stats["model_reason"] == "set by KBTUI_MODEL"
        assert "note:zh0" in keyword_hits(kb, "导出 PDF")  # keywords answer meanwhile
        vector = kb.call("kb_search", {"query": EN, "mode": "vector"})
        assert vector["ok"] and vector["results"] == []
        assert "0 of 6 passages have their vectors so far" in vector["message"]
        hybrid = kb.call("kb_search", {"query": EN})  # says it ranks by keywords meanwhile
        assert hybrid["results"] and "ranked by keywords alone" in hybrid["message"]
        progress: list[tuple[str, int, int]] = []
        kb.indexer.progress = lambda phase, done, total: progress.append((phase, done, total))
        report = kb.indexer.run()
        assert report.chunks_embedded == 6 and progress[-1] == ("embed", 6, 6)
        assert kb.call("kb_search", {"query": EN, "mode": "vector"})["results"]
    finally:
        kb.close()
    kb, embedder = opened(vault)  # the setting gone: auto keeps what was forced, no flip back
    try:
        assert embedder.model_id == FakeE5.model_id
        assert embedder.choice == Choice(E5, "kept (set by KBTUI_MODEL before)")
        assert decide(embedder.settings, kb.store) == embedder.choice  # and so at every open
        assert kb.store.stats()["embedded"] == 6
    finally:
        kb.close()
    kb, embedder = opened(vault, choose_model_again=True)  # asked: decided again, re-embeds
    try:
        assert embedder.model_id == FakeMiniLM.model_id
        assert kb.store.stats()["embedded"] == 0
        assert kb.indexer.run().chunks_embedded == 6
    finally:
        kb.close()


def test_without_the_multilingual_module_e5_says_so_and_auto_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    write_notes(vault, "zh", ZH, 3)
    monkeypatch.setitem(sys.modules, "kbtui.embed_e5", None)  # the import fails
    settings = Settings.for_vault(vault, model="e5")
    with pytest.raises(EmbedderError, match="KBTUI_MODEL=minilm"):
        build(E5, settings)

    def real_e5(name: str, settings: Settings) -> HashEmbedder:
        if name == E5:
            build(E5, settings)
        return FakeMiniLM()

    settings = Settings.for_vault(vault)
    embedder = VaultEmbedder(settings, real_e5)
    kb = KnowledgeBase.open(settings, embedder, approximate=False)
    try:
        assert embedder.model_id == FakeMiniLM.model_id
        assert kb.store.meta("model_choice") is None  # not kept: decided again once it is there
    finally:
        kb.close()


def test_the_setting_comes_from_the_option_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBTUI_MODEL", "Multilingual")
    chosen = Settings.for_vault(tmp_path)
    assert (chosen.model, chosen.model_set_by) == ("e5", "KBTUI_MODEL")
    chosen = Settings.for_vault(tmp_path, model="minilm")
    assert (chosen.model, chosen.model_set_by) == ("minilm", "--model")
    monkeypatch.setenv("KBTUI_MODEL", "bert")
    result = CliRunner().invoke(main, ["index", "--vault", str(tmp_path)])
    assert result.exit_code == 1
    assert "KBTUI_MODEL is 'bert': use auto, minilm or e5" in result.output


def test_mixed_vaults_take_e5_from_a_fifth_of_notes_not_in_english(tmp_path: Path) -> None:
    """The choice on mixed vaults (the bench measures what each model then finds)."""
    cases = {"half": (10, 10), "fifth": (8, 2), "tenth": (18, 2), "chinese_terms": (0, 6)}
    chosen = {}
    for name, (english, chinese) in cases.items():
        vault = tmp_path / name
        write_notes(vault, "en", EN, english)
        write_notes(vault, "zh", TERMS, chinese)
        chosen[name] = auto_choice(vault_languages(vault)).model
    assert chosen == {"half": E5, "fifth": E5, "tenth": MINILM, "chinese_terms": E5}


def test_the_cli_option_forces_the_model_and_stats_say_why(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_notes(vault, "zh", ZH, 3)
    runner = CliRunner()
    forced = runner.invoke(
        main, ["index", "--no-embed", "--model", "minilm", "--vault", str(vault)]
    )
    assert forced.exit_code == 0, forced.output
    assert "model all-MiniLM-L6-v2 (set by --model)" in forced.output
    said = runner.invoke(main, ["stats", "--vault", str(vault)]).output
    assert "model_choice minilm" in said and "model_reason set by --model" in said
