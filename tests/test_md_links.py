"""Markdown links resolved as Obsidian does, on a real index of vault_example copies: in the
graph, in unlinked-mention suppression, and rewritten in their own style by a rename."""

from __future__ import annotations

from pathlib import Path

from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.obsidian.mdlinks import md_target
from kbtui.vault.parse import parse_note


def test_md_target_forms() -> None:
    assert md_target("Other%20note.md", "a/n.md") == ("Other note.md", "")
    assert md_target("../dir/x.md#Heading", "a/b/n.md") == ("a/dir/x.md", "Heading")
    assert md_target("a%20b.md", "n.md") == ("a b.md", "")  # `<a b.md>` as markdown-it gives it
    assert md_target("/people/x.md", "a/b/n.md") == ("people/x.md", "")
    assert md_target("./x.md", "a/n.md") == ("a/x.md", "")
    for outside in ("https://example.com/x.md", "mailto:a@b.c", "#Heading", "../../x.md"):
        assert md_target(outside, "a/n.md") is None


def test_parse_finds_md_links_outside_code_only() -> None:
    text = (
        "See [t](Other%20note.md), [h](../dir/x.md#Heading) and [s](<a b.md>).\n\n"
        "![pic](img/p%201.png) and [web](https://e.com).\n\n"
        "`[no](code.md)`\n\n```\n[no](fence.md)\n```\n"
    )
    note = parse_note("a/b/n.md", text)
    got = [(lk.target, lk.rel, lk.heading) for lk in note.links]
    assert got == [
        ("Other note.md", "references", ""),
        ("a/dir/x.md", "references", "Heading"),
        ("a b.md", "references", ""),
        ("img/p 1.png", "embeds", ""),
    ]


def _neighbors(rt: VaultRuntime, entity_id: str) -> set[str]:
    answer = rt.call("kg_get_neighbors", {"entityId": entity_id, "direction": "incoming"})
    assert answer["ok"], answer
    return {e["id"] for e in answer["entities"]}


def test_md_links_are_relationships(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "notes" / "deep").mkdir(parents=True)
    (vault / "notes" / "Other note.md").write_text("# Other note\n")
    (vault / "notes" / "deep" / "x.md").write_text("# X\n\n## Heading\n")
    (vault / "notes" / "deep" / "a b.md").write_text("# A B\n")
    (vault / "notes" / "deep" / "src.md").write_text(
        "[o](../Other%20note.md) [x](x.md#Heading) [ab](<a b.md>) [abs](/projects/atlas_sync.md)"
        " [ret](deep/x.md)\n"
    )
    runtime.reindex()
    src = "note:src"
    assert src in _neighbors(runtime, "note:other_note")
    assert src in _neighbors(runtime, "note:x")
    assert src in _neighbors(runtime, "note:a_b")
    assert src in _neighbors(runtime, "project:atlas_sync")


def test_rename_rewrites_md_links_in_their_style(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "notes" / "sub").mkdir(parents=True)
    (vault / "notes" / "Old name.md").write_text("# Old name\n")
    (vault / "notes" / "sub" / "rel.md").write_text(
        "A [r](../Old%20name.md#Top), B [s](<../Old name.md>), C [n](Old%20name), "
        "D [abs](/notes/Old%20name.md), E `[c](../Old%20name.md)`.\n"
    )
    runtime.reindex()
    answer = runtime.call("kg_rename_entity", {"entityId": "note:old_name", "newName": "New name"})
    assert answer["ok"], answer
    text = (vault / "notes" / "sub" / "rel.md").read_text()
    assert text == (
        "A [r](../New%20name.md#Top), B [s](<../New name.md>), C [n](New%20name), "
        "D [abs](/notes/New%20name.md), E `[c](../Old%20name.md)`.\n"
    )
    runtime.reindex()
    assert "note:rel" in _neighbors(runtime, "note:new_name")


def test_suffix_path_reaches_nested_note(tmp_path: Path, runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    (vault / "a" / "b").mkdir(parents=True)
    (vault / "a" / "b" / "deep.md").write_text("# Deep\n")
    (vault / "a" / "from.md").write_text("[[b/deep]] and [d](b/deep.md)\n")
    runtime.reindex()
    assert "a:from" in _neighbors(runtime, "a:deep")


def test_md_link_suppresses_unlinked_mention(runtime: VaultRuntime) -> None:
    """A note that links Zephyr RTOS with a markdown link is not told to link it again; the
    words inside the link are never a mention."""
    vault = runtime.settings.vault
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes" / "plain.md").write_text("We picked Zephyr RTOS for the firmware.\n")
    (vault / "notes" / "linked.md").write_text(
        "We picked Zephyr RTOS for the firmware, see [Zephyr RTOS](../tech/zephyr_rtos.md).\n"
    )
    runtime.reindex()
    got = runtime.call("kg_suggest_links", {"limit": 100})
    pairs = {(s["sourceEntityId"], s["targetEntityId"]) for s in got["suggestions"]}
    assert ("note:plain", "technology:zephyr_rtos") in pairs
    assert ("note:linked", "technology:zephyr_rtos") not in pairs
    mine = runtime.call("app_note_mentions", {"entityId": "note:linked"})["outgoing"]
    assert not [m for m in mine if m["targetEntityId"] == "technology:zephyr_rtos"]
