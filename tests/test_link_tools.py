"""kg_rename_entity and kg_suggest_links on real copies of vault_example (real DuckDB index,
real files): what a user would see in their notes and in the graph afterwards."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from kbtui.runtime.runtime import VaultRuntime

FORMS = [
    "Talked to [[Widget Theory]] today.",
    "See [[widget theory|the widget idea]] for why.",
    "Background: [[concepts/Widget Theory#History]].",
    "![[Widget Theory]]",
    "Block ref [[WIDGET THEORY#^abc]] and `[[Widget Theory]]` in code.",
]
EXPECTED = [
    "Talked to [[Gadget Theory]] today.",
    "See [[Gadget Theory|the widget idea]] for why.",
    "Background: [[ideas/Gadget Theory#History]].",
    "![[Gadget Theory]]",
    "Block ref [[Gadget Theory#^abc]] and `[[Widget Theory]]` in code.",
]


def snapshot(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in vault.rglob("*")
        if p.is_file() and ".kbtui" not in p.parts
    }


@pytest.fixture
def linked(runtime: VaultRuntime) -> VaultRuntime:
    """vault_example plus a note (id from its file name) that 10 notes link to, in every form
    (5 body forms, frontmatter wikilinks and bare relation values)."""
    vault = runtime.settings.vault
    (vault / "concepts" / "Widget Theory.md").write_text(
        "---\ntitle: Widget Theory\n---\n# Widget Theory\n\nSelf link [[Widget Theory#Top]].\n"
    )
    (vault / "refs").mkdir()
    for i in range(10):
        fm = (
            '---\nrelated_to: ["[[Widget Theory]]"]\n---\n'
            if i % 3 == 0
            else "---\nuses: [Widget Theory]\n---\n"
            if i % 3 == 1
            else ""
        )
        (vault / "refs" / f"ref{i}.md").write_text(f"{fm}# Ref {i}\n\n{FORMS[i % 5]}\n")
    runtime.reindex()
    runtime.call("kg_get_entity", {"entityId": "concept:widget_theory"})  # some usage history
    return runtime


def incoming(rt: VaultRuntime, entity_id: str) -> set[str]:
    got = rt.call("kg_get_neighbors", {"entityId": entity_id, "direction": "incoming"})
    return {e["id"] for e in got["entities"]}


def test_rename_rewrites_every_link_and_nothing_else(linked: VaultRuntime) -> None:
    vault = linked.settings.vault
    before = snapshot(vault)
    sources = incoming(linked, "concept:widget_theory")
    assert {f"ref:ref{i}" for i in range(10)} <= sources
    dry = linked.call(
        "kg_rename_entity",
        {"entityId": "concept:widget_theory", "newName": "ideas/Gadget Theory", "dryRun": True},
    )
    assert dry["ok"] and dry["dryRun"] and dry["linksRewritten"] >= 10
    assert snapshot(vault) == before  # a dry run writes nothing

    done = linked.call(
        "kg_rename_entity", {"entityId": "concept:widget_theory", "newName": "ideas/Gadget Theory"}
    )
    assert done["ok"], done
    assert done["newPath"] == "ideas/Gadget Theory.md" and done["oldPath"] == dry["oldPath"]
    assert done["entity"]["id"] == "idea:gadget_theory"  # type from the new folder (id rule)
    assert done["entity"]["name"] == "Gadget Theory"  # the title was the file name
    assert done["linksRewritten"] == dry["linksRewritten"]
    after = snapshot(vault)
    changed = {c["path"] for c in done["filesChanged"]}
    assert changed == {f"refs/ref{i}.md" for i in range(10)} | {"ideas/Gadget Theory.md"}
    for i in range(10):
        text = after[f"refs/ref{i}.md"].decode()
        assert EXPECTED[i % 5] in text
        assert 'Widget Theory]]"' not in text and "uses: [Widget" not in text
    assert after["ideas/Gadget Theory.md"].decode() == (
        "---\ntitle: Gadget Theory\n---\n# Widget Theory\n\nSelf link [[Gadget Theory#Top]].\n"
    )
    untouched = {p for p in before if p not in changed and p != "concepts/Widget Theory.md"}
    assert {p: after[p] for p in untouched} == {p: before[p] for p in untouched}
    assert "concepts/Widget Theory.md" not in after
    # the graph: every note that linked the old name links the new one
    assert incoming(linked, "idea:gadget_theory") == sources
    assert linked.call("kg_get_entity", {"entityId": "concept:widget_theory"})["ok"] is False
    assert done["entity"]["accessCount"] >= 1  # usage history carried to the new id


def test_rename_failure_mid_way_leaves_every_file(
    linked: VaultRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = linked.settings.vault
    before = snapshot(vault)
    real_rename, calls = os.rename, []

    def failing(src: Any, dst: Any) -> None:  # each note's swap renames it aside, then keeps it
        calls.append(dst)
        if len(calls) == 5:
            raise PermissionError(13, "Permission denied", str(dst))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    got = linked.call("kg_rename_entity", {"entityId": "concept:widget_theory", "newName": "X"})
    monkeypatch.undo()
    assert got["ok"] is False and got["error"]["type"] == "PERMANENT"
    assert "nothing was changed" in got["message"]
    assert len(calls) > 5  # it had written files before the failure, and put them back
    assert snapshot(vault) == before
    assert linked.call("kg_get_entity", {"entityId": "concept:widget_theory"})["ok"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_refuses_whole_rename(linked: VaultRuntime) -> None:
    vault = linked.settings.vault
    folder = vault / "refs"
    before = snapshot(vault)
    folder.chmod(0o555)  # no temp file can be created there: the 2nd+ writes fail
    try:
        got = linked.call("kg_rename_entity", {"entityId": "concept:widget_theory", "newName": "Y"})
    finally:
        folder.chmod(0o755)
    assert got["ok"] is False
    assert snapshot(vault) == before


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("../outside", "leave the vault"),
        ("/etc/passwd", "leave the vault"),
        ("a/../../b", "leave the vault"),
        ("bad:name", "file name cannot hold"),
        ("what?", "file name cannot hold"),
        ("x|y", "file name cannot hold"),
        ("line\nbreak", "file name cannot hold"),
        (".hidden", "start with '.'"),
        ("crdt", "already exists"),
        ("Widget Theory", "already named"),
    ],
)
def test_bad_names_are_validation_errors(linked: VaultRuntime, name: str, why: str) -> None:
    vault = linked.settings.vault
    before = snapshot(vault)
    got = linked.call("kg_rename_entity", {"entityId": "concept:widget_theory", "newName": name})
    assert got["ok"] is False and got["error"]["type"] == "VALIDATION", got
    assert why in got["message"] and got["error"]["field"] == "newName"
    assert snapshot(vault) == before


def test_frontmatter_id_stays(runtime: VaultRuntime) -> None:
    for _ in range(3):
        runtime.call("kg_get_entity", {"entityId": "person:ines_duarte"})
    sources = incoming(runtime, "person:ines_duarte")
    got = runtime.call("kg_rename_entity", {"entityId": "person:ines_duarte", "newName": "Inês"})
    assert got["ok"], got
    assert got["entity"]["id"] == "person:ines_duarte" and got["newPath"] == "people/Inês.md"
    assert got["entity"]["name"] == "Inês Duarte"  # a frontmatter title is kept
    assert got["entity"]["accessCount"] >= 3  # the same id keeps its history
    assert incoming(runtime, "person:ines_duarte") == sources
    note = runtime.call("kb_get", {"id": "person:ines_duarte"})
    assert note["ok"] and note["metadata"]["file_path"] == "people/Inês.md"
    text = (runtime.settings.vault / "meetings").rglob("*.md")
    assert not any("[[ines_duarte" in p.read_text() for p in text)


def test_suggestions_for_a_person(runtime: VaultRuntime) -> None:
    got = runtime.call("kg_suggest_links", {"entityId": "person:andrei_clodius"})
    assert got["ok"] and got["count"] >= 2
    for s in got["suggestions"]:
        assert s["targetEntityId"] == "person:andrei_clodius"
        assert s["sourceEntityId"] != "person:andrei_clodius"
        line = (runtime.settings.vault / s["filePath"]).read_text().split("\n")[s["line"] - 1]
        assert line[s["column"] - 1 :].startswith(s["text"])
        assert s["text"].lower() in s["context"].lower()
    kickoff = [s for s in got["suggestions"] if "kickoff" in s["filePath"]]
    assert kickoff and kickoff[0]["text"] == "Andrei"


def test_linking_a_suggestion_changes_only_those_words(runtime: VaultRuntime) -> None:
    got = runtime.call("kg_suggest_links", {"entityId": "person:andrei_clodius"})
    s = got["suggestions"][0]
    path = runtime.settings.vault / s["filePath"]
    before = path.read_text()
    args = {k: s[k] for k in ("sourceEntityId", "targetEntityId", "text", "line", "column")}
    linked = runtime.call("app_link_mention", args)
    assert linked["ok"], linked
    lines = before.split("\n")
    row = lines[s["line"] - 1]
    col = s["column"] - 1
    lines[s["line"] - 1] = (
        row[:col] + f"[[andrei_clodius|{s['text']}]]" + row[col + len(s["text"]) :]
    )
    assert path.read_text() == "\n".join(lines)
    assert s["sourceEntityId"] in incoming(runtime, "person:andrei_clodius")
    again = runtime.call("app_link_mention", args)
    assert again["ok"] is False  # it is a link now, not a mention


def test_vault_wide_suggestions(runtime: VaultRuntime) -> None:
    got = runtime.call("kg_suggest_links", {"limit": 100})
    assert got["ok"] and got["count"] > 0
    pairs = [(s["sourceEntityId"], s["targetEntityId"]) for s in got["suggestions"]]
    assert len(pairs) == len(set(pairs))
    assert all(not (" " not in s["text"] and s["text"].islower()) for s in got["suggestions"])
    bad = runtime.call("kg_suggest_links", {"entityId": "person:nobody"})
    assert bad["ok"] is False and bad["suggestions"] == []


def test_a_link_not_indexed_yet_follows_too(linked: VaultRuntime) -> None:
    vault = linked.settings.vault
    fresh = vault / "daily" / "just typed.md"
    fresh.write_text("Typed a second ago: [[Widget Theory|the theory]] and `[[Widget Theory]]`.\n")
    got = linked.call("kg_rename_entity", {"entityId": "concept:widget_theory", "newName": "W2"})
    assert got["ok"], got
    assert fresh.read_text() == ("Typed a second ago: [[W2|the theory]] and `[[Widget Theory]]`.\n")
    assert "daily/just typed.md" in {c["path"] for c in got["filesChanged"]}
