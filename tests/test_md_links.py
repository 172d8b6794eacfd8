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


def test_moved_note_keeps_its_own_relative_links(runtime: VaultRuntime) -> None:
    """A note moved to another folder: its `./` and `../` links (to notes and attachments)
    are written from its new folder, each in its style, so they reach what they reached;
    links that never depended on its folder are left as they were, and so is code."""
    vault = runtime.settings.vault
    (vault / "notes" / "sub").mkdir(parents=True)
    (vault / "img").mkdir()
    (vault / "img" / "flow chart.png").write_bytes(b"\x89PNG")
    (vault / "notes" / "sub" / "Mover.md").write_text(
        "A [up](../../tech/sqlite.md#Usage), B [img](../../img/flow%20chart.png), "
        "C [here](./Sibling.md), D [b](<../../tech/figma.md>), E [abs](/tech/react.md), "
        "F [name](zephyr_rtos.md), G [self](./Mover.md), H `[c](../../tech/sqlite.md)`.\n"
    )
    (vault / "notes" / "sub" / "Sibling.md").write_text("# Sibling\n")
    runtime.reindex()
    answer = runtime.call("kg_rename_entity", {"entityId": "note:mover", "newName": "tech/Mover"})
    assert answer["ok"], answer
    assert (vault / "tech" / "Mover.md").read_text() == (
        "A [up](./sqlite.md#Usage), B [img](../img/flow%20chart.png), "
        "C [here](../notes/sub/Sibling.md), D [b](<./figma.md>), E [abs](/tech/react.md), "
        "F [name](zephyr_rtos.md), G [self](./Mover.md), H `[c](../../tech/sqlite.md)`.\n"
    )
    runtime.reindex()
    mover = runtime.call("vault_links", {"kind": "links", "note": "tech/Mover.md"})["results"]
    assert {"file": "notes/sub/Sibling.md"} in mover and {"file": "img/flow chart.png"} in mover
    assert {"file": "tech/sqlite.md"} in mover and {"file": "tech/figma.md"} in mover
    assert not [r for r in mover if "link" in r]  # nothing it reached is unresolved now


def test_rename_rewrites_canvas_file_cards(runtime: VaultRuntime) -> None:
    """A canvas's file card holds the note's path: a rename points the card at the new path,
    changing only that string, and the canvas's edge follows the note in the graph."""
    vault = runtime.settings.vault
    canvas = (
        '{\n\t"nodes":[\n\t\t{"id":"a","type":"file","file":"tech/sqlite.md","x":0,"y":0,'
        '"width":10,"height":10},\n\t\t{"id":"b","type":"file","file":"tech/figma.md",'
        '"x":20,"y":0,"width":10,"height":10},\n\t\t{"id":"t","type":"text",'
        '"text":"see tech/sqlite.md","x":0,"y":20,"width":10,"height":10}\n\t],\n'
        '\t"edges":[{"id":"e","fromNode":"a","toNode":"b","label":"designed in"}]\n}'
    )
    (vault / "Board.canvas").write_text(canvas)
    runtime.reindex()
    answer = runtime.call(
        "kg_rename_entity", {"entityId": "technology:sqlite", "newName": "storage/SQLite engine"}
    )
    assert answer["ok"], answer
    assert {"path": "Board.canvas", "linksRewritten": 1} in answer["filesChanged"]
    assert (vault / "Board.canvas").read_text() == canvas.replace(
        '"file":"tech/sqlite.md"', '"file":"storage/SQLite engine.md"'
    )
    runtime.reindex()
    back = runtime.call("vault_links", {"kind": "backlinks", "note": "storage/SQLite engine.md"})
    assert {"file": "Board.canvas", "count": 1} in back["results"]
    new_id = answer["newEntityId"]
    out = runtime.call("kg_get_neighbors", {"entityId": new_id, "direction": "outgoing"})
    assert ("technology:figma", "designed in") in {
        (r["toEntityId"], r["label"]) for r in out["relationships"]
    }
