"""Every writer of kbtui goes through the one write path (issue 39, item 1): properties, tasks,
daily notes, renames, links, merges, imports, new entities and the TUI's $EDITOR. Each keeps a
note's encoding, line endings and every byte it does not name, records the versions before and
after in the history with who and what, and leaves the index answering with the new text.
Real files, a real DuckDB index, the hash embedder (meaning is not under test here)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.store.history import Version
from kbtui.textdiff import content_hash
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.vault.edit.batch import FileEdit, write_all
from kbtui.vault.edit.codec import decode_for_edit
from kbtui.vault.edit.swap import StaleError

BOM16 = b"\xff\xfe"
U16_PLAIN = "# Wombat notes\n\nBurrows are long.\n".encode("utf-16")
U16_PROPS = "---\nstatus: draft\n---\n# Quoll\n\nSpots everywhere.\n".encode("utf-16")
WIN = "---\r\nstatus: draft\r\n---\r\n# Café\r\n\r\nÜber das Café — très bien.\r\n"
TASKS_CRLF = b"# Chores\r\n\r\n- [ ] feed the cat\r\n- [ ] water the fern\r\n"
TASKS_WIN = "# Einkauf\r\n\r\n- [ ] Käse kaufen\r\n- [ ] Brötchen holen\r\n".encode("cp1252")
LINKER_WIN = "# Verweise\r\n\r\nSiehe [[Target]] für das Café.\r\n".encode("cp1252")
MENTION_WIN = "# Zoo\n\nDer Target ist schön.\n".encode("cp1252")
DAY = "2026-12-07"
DAILY_U16 = "# 7 December\r\n\r\n- morning\r\n".encode("utf-16")
REL_U16 = "---\nid: person:ada\ntitle: Ada\n---\n# Ada\n\nWrites code.\n".encode("utf-16")
PROJECT = b"---\nid: project:engine\ntitle: Engine\n---\n# Engine\n"
DUP_A = b"---\nid: person:bea\ntitle: Bea\n---\n# Bea\n\nKeeps bees.\n"
DUP_B = b"---\nid: person:beatrix\ntitle: Beatrix\n---\n# Beatrix\n\nKeeps hives too.\n"

FILES = {
    "u16.md": U16_PLAIN,
    "u16props.md": U16_PROPS,
    "win.md": WIN.encode("cp1252"),
    "chores.md": TASKS_CRLF,
    "einkauf.md": TASKS_WIN,
    "Target.md": b"# Target\n\nThe goal.\n",
    "linker.md": LINKER_WIN,
    "zoo.md": MENTION_WIN,
    f"{DAY}.md": DAILY_U16,
    "people/ada.md": REL_U16,
    "projects/engine.md": PROJECT,
    "people/bea.md": DUP_A,
    "people/beatrix.md": DUP_B,
}


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    for name, data in FILES.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_bytes(data)
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def call(kb: KnowledgeBase, name: str, args: dict[str, Any], who: str = "cli") -> dict[str, Any]:
    with acting_as(Origin(who)):
        answer = kb.call(name, args)
    assert answer["ok"], answer
    return answer


def found(kb: KnowledgeBase, words: str) -> list[str]:
    hits = kb.call("kb_search", {"query": words, "mode": "keyword"})
    return [r["metadata"]["file_path"] for r in hits["results"]]


def versions(kb: KnowledgeBase, path: str) -> list[Version]:
    return kb.history.versions(path)


def wrote(kb: KnowledgeBase, path: str, before: bytes, source: str, operation: str) -> bytes:
    """The history's newest version of `path` is the file now, by `source` and `operation`,
    and the one before it holds `before`. Returns the file's bytes."""
    after = (kb.settings.vault / path).read_bytes()
    newest, previous = versions(kb, path)[:2]
    assert (newest.source, newest.operation) == (source, operation), newest
    assert newest.hash == content_hash(after) and kb.history.data(newest.hash) == after
    assert previous.hash == content_hash(before)
    return after


# -- properties: the first trial item ----------------------------------------------


def test_property_set_on_a_utf16_note_keeps_it_utf16_and_searchable(kb: KnowledgeBase) -> None:
    call(kb, "app_property", {"note": "u16.md", "action": "set", "name": "rating", "value": "5"})
    block = "---\nrating: 5\n---\n".encode("utf-16-le")
    after = (kb.settings.vault / "u16.md").read_bytes()
    assert after == BOM16 + block + U16_PLAIN[2:]  # the old bytes follow the new block whole
    wrote(kb, "u16.md", U16_PLAIN, "cli", "property:set rating")
    assert "u16.md" in found(kb, "burrows")  # still a note the index reads
    props = call(kb, "app_property", {"note": "u16.md", "action": "read", "name": "rating"})
    assert props["value"] == 5


def test_property_remove_on_a_utf16_note_changes_only_that_line(kb: KnowledgeBase) -> None:
    call(kb, "app_property", {"note": "u16props.md", "action": "set", "name": "n", "value": "2"})
    call(kb, "app_property", {"note": "u16props.md", "action": "remove", "name": "status"})
    after = (kb.settings.vault / "u16props.md").read_bytes()
    assert after == "---\nn: 2\n---\n# Quoll\n\nSpots everywhere.\n".encode("utf-16")
    assert [v.operation for v in versions(kb, "u16props.md")[:3]] == [
        "property:remove status",
        "property:set n",
        "seen",
    ]
    assert "u16props.md" in found(kb, "spots everywhere")


@pytest.mark.parametrize("action", ["set", "remove"])
def test_property_edit_on_a_windows_1252_note_keeps_every_other_byte(
    kb: KnowledgeBase, action: str
) -> None:
    args = {"note": "win.md", "action": action, "name": "status", "value": "done"}
    call(kb, "app_property", args, who="mcp:claude")
    new_line = "status: done\r\n" if action == "set" else ""
    expected = WIN.replace("status: draft\r\n", new_line)
    if action == "remove":
        expected = expected.replace("---\r\n---\r\n", "", 1)  # the last property: no block
    after = (kb.settings.vault / "win.md").read_bytes()
    assert b"\xe9" in after and "\ufffd".encode() not in after
    assert after == expected.encode("cp1252")  # é, Ü, — as Windows-1252 bytes, no U+FFFD
    wrote(kb, "win.md", WIN.encode("cp1252"), "mcp:claude", f"property:{action} status")
    assert "win.md" in found(kb, "über")


# -- tasks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "before", "old", "new"),
    [
        ("chores.md", TASKS_CRLF, b"- [ ] water the fern\r\n", b"- [x] water the fern\r\n"),
        ("einkauf.md", TASKS_WIN, "- [ ] Brötchen".encode("cp1252"), b"- [x] Br\xf6tchen"),
    ],
)
def test_a_task_toggle_changes_one_line_in_the_notes_own_bytes(
    kb: KnowledgeBase, path: str, before: bytes, old: bytes, new: bytes
) -> None:
    answer = call(kb, "task_update", {"file": path, "line": 4, "status": "toggle"})
    assert answer["task"]["status"] == "x"
    after = wrote(kb, path, before, "cli", "task line 4: [ ] -> [x]")
    assert after == before.replace(old, new)
    done = kb.call("tasks_list", {"status": "done", "note": path})
    assert [t["line"] for t in done["results"]] == [4]  # the index has it done


# -- daily notes -------------------------------------------------------------------------


def test_daily_append_to_a_utf16_daily_note(kb: KnowledgeBase) -> None:
    call(kb, "app_daily", {"action": "append", "content": "- lunch with Kim", "date": DAY})
    path = f"{DAY}.md"
    after = wrote(kb, path, DAILY_U16, "cli", "daily:append")
    assert after == DAILY_U16 + "- lunch with Kim\r\n".encode("utf-16-le")  # its CRLF too
    read = call(kb, "app_daily", {"action": "read", "date": DAY})
    assert read["content"].endswith("- lunch with Kim\r\n")
    assert path in found(kb, "lunch with kim")


def test_a_new_daily_note_is_created_with_its_history(kb: KnowledgeBase) -> None:
    call(kb, "daily_append", {"content": "first line", "date": "2026-12-08"})
    path = "2026-12-08.md"
    assert (kb.settings.vault / path).read_bytes() == b"first line\n"
    [created] = versions(kb, path)
    assert (created.source, created.operation) == ("cli", "daily:append (new daily note)")


# -- renames, links, merges, imports, entities ------------------------------------------


def test_a_rename_rewrites_links_in_a_cp1252_note_in_its_encoding(kb: KnowledgeBase) -> None:
    entity = kb.store.entity_ids_at(["Target.md"])["Target.md"]
    call(kb, "kg_rename_entity", {"entityId": entity, "newName": "Goal"})
    operation = "rename Target.md -> Goal.md"
    after = wrote(kb, "linker.md", LINKER_WIN, "cli", operation)
    assert after == LINKER_WIN.replace(b"[[Target]]", b"[[Goal]]")
    assert decode_for_edit(after).encoding == "cp1252"
    gone, moved = versions(kb, "Target.md")[0], versions(kb, "Goal.md")[0]
    assert (gone.hash, gone.operation) == (None, operation)  # the old path: a deletion
    assert moved.operation == operation
    assert kb.history.data(str(moved.hash)) == (kb.settings.vault / "Goal.md").read_bytes()
    assert "linker.md" in found(kb, "verweise")


def test_a_rename_aborts_whole_when_another_program_saves_a_note_mid_batch(
    tmp_path: Path,
) -> None:
    """The batch's second note is saved by someone else after the first is written: the batch
    stops, the first note gets its bytes back, the other program's save stays."""
    vault, keep = tmp_path / "vault", tmp_path / "keep"
    vault.mkdir()
    one, two = vault / "one.md", vault / "two.md"
    one.write_bytes(b"[[Old]] one\n")
    two.write_bytes(b"[[Old]] two\n")
    edits = [
        FileEdit(one, b"[[Old]] one\n", b"[[New]] one\n"),
        FileEdit(two, b"[[Old]] two\n", b"[[New]] two\n"),
    ]

    def someone_saves(note: Path, kept: Path, expected: bytes) -> None:
        if note == one and kept.read_bytes() == b"[[Old]] one\n":
            two.write_bytes(b"[[Old]] two, edited in Obsidian\n")

    with pytest.raises(StaleError, match="nothing was changed"):
        write_all(vault, keep, edits, None, someone_saves)
    assert one.read_bytes() == b"[[Old]] one\n"
    assert two.read_bytes() == b"[[Old]] two, edited in Obsidian\n"


def test_linking_a_mention_in_a_cp1252_note(kb: KnowledgeBase) -> None:
    target = kb.store.entity_ids_at(["Target.md"])["Target.md"]
    source = kb.store.entity_ids_at(["zoo.md"])["zoo.md"]
    args = {"sourceEntityId": source, "targetEntityId": target, "text": "Target"}
    call(kb, "app_link_mention", {**args, "line": 3, "column": 5}, who="tui")
    after = wrote(kb, "zoo.md", MENTION_WIN, "tui", f"link 'Target' to {target}")
    assert after == MENTION_WIN.replace(b"Der Target", b"Der [[Target]]")


def test_a_relationship_added_to_a_utf16_note_keeps_it_utf16(kb: KnowledgeBase) -> None:
    args = {"fromEntityId": "person:ada", "toEntityId": "project:engine", "type": "WORKS_ON"}
    call(kb, "kg_create_relationship", args)
    after = (kb.settings.vault / "people/ada.md").read_bytes()
    note = decode_for_edit(after)
    assert note.encoding == "utf-16-le" and note.bom == BOM16
    assert "[[engine]]" in note.text and note.text.endswith("# Ada\n\nWrites code.\n")
    assert versions(kb, "people/ada.md")[0].operation.startswith("kg_create_relationship")


def test_a_merge_puts_the_source_note_in_the_trash_with_its_history(kb: KnowledgeBase) -> None:
    args = {"targetEntityId": "person:bea", "sourceEntityIds": ["person:beatrix"]}
    answer = call(kb, "kg_merge_entities", args, who="mcp:claude")
    vault = kb.settings.vault
    assert answer["result"]["trashed"] == [".trash/beatrix.md"]
    assert (vault / ".trash/beatrix.md").read_bytes() == DUP_B
    assert not (vault / "people/beatrix.md").exists() and not (vault / ".archive").exists()
    gone = versions(kb, "people/beatrix.md")
    assert (gone[0].hash, gone[0].source) == (None, "mcp:claude")
    assert gone[0].operation == "merged into person:bea"
    assert kb.history.data(str(gone[1].hash)) == DUP_B  # undoable from kbtui
    merging = "kg_merge_entities: person:beatrix into person:bea"
    kept = wrote(kb, "people/bea.md", DUP_A, "mcp:claude", merging)
    assert b"## Merged from Beatrix" in kept and kept.startswith(DUP_A[:20])


def test_a_merge_deletes_for_good_when_obsidian_says_so(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").write_text(json.dumps({"trashOption": "none"}))
    args = {"targetEntityId": "person:bea", "sourceEntityIds": ["person:beatrix"]}
    assert call(kb, "kg_merge_entities", args)["result"]["trashed"] == ["deleted for good"]
    assert not (vault / "people/beatrix.md").exists() and not (vault / ".trash").exists()
    assert kb.history.data(str(versions(kb, "people/beatrix.md")[1].hash)) == DUP_B


def test_a_caller_held_to_folders_changes_nothing_outside_them(kb: KnowledgeBase) -> None:
    """Every writer asks NoteWriter.check_scope for each note before it writes any: a merge
    whose source, or a rename whose linking note, lies outside the folders is refused whole."""
    vault = kb.settings.vault
    (vault / "fan.md").write_text("# Fan\n\nOf [[beatrix]].\n")  # outside people/
    kb.indexer.run(paths=["fan.md"])
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    held = Origin("mcp:x", write_folders=("people",))
    target = kb.store.entity_ids_at(["Target.md"])["Target.md"]
    for name, args in (
        ("kg_merge_entities", {"targetEntityId": "person:bea", "sourceEntityIds": ["person:ada"]}),
        (
            "kg_merge_entities",
            {"targetEntityId": "person:bea", "sourceEntityIds": ["project:engine"]},
        ),
        ("kg_rename_entity", {"entityId": "person:beatrix", "newName": "Bee"}),
        ("kg_rename_entity", {"entityId": target, "newName": "people/Goal"}),
        ("task_update", {"file": "chores.md", "line": 4, "status": "done"}),
    ):
        with acting_as(held):
            answer = kb.call(name, args)
        if name == "kg_merge_entities" and "person:ada" in args["sourceEntityIds"]:
            assert answer["ok"], answer  # both notes in people/: allowed
            continue
        assert answer["error_type"] == "ForbiddenError", (name, answer)
        assert "mcp:x may write only in people" in answer["message"]
    assert not (vault / "people/ada.md").exists()  # the allowed merge: to the trash
    changed = {p for p, data in before.items() if not p.exists() or p.read_bytes() != data}
    assert changed == {vault / "people/ada.md", vault / "people/bea.md"}


def test_imports_and_new_entities_are_created_with_their_history(kb: KnowledgeBase) -> None:
    imported = call(
        kb,
        "knowledge_import",
        {"title": "Field guide", "content": "Numbats eat termites.", "source": "manual"},
        who="mcp:claude",
    )
    path = imported["file_path"]
    [version] = versions(kb, path)
    assert (version.source, version.operation) == ("mcp:claude", "knowledge_import 'Field guide'")
    assert kb.history.data(str(version.hash)) == (kb.settings.vault / path).read_bytes()
    made = call(kb, "kg_create_entity", {"name": "Grace", "type": "person"})
    [version] = versions(kb, made["entity"]["source"])
    assert version.operation == "kg_create_entity"


# -- the TUI's $EDITOR -------------------------------------------------------------------


def test_an_edit_in_the_editor_is_recorded_as_the_tuis(kb: KnowledgeBase) -> None:
    path, note = "win.md", kb.settings.vault / "win.md"
    before = note.read_bytes()
    opened = call(kb, "app_editor", {"path": path, "action": "open"}, who="tui")
    assert opened["hash"] == content_hash(before)
    note.write_bytes(before + "Neue Zeile: Känguru.\r\n".encode("cp1252"))  # the editor saves
    kb.indexer.run(paths=[path])  # the watcher sees the save while the editor is open
    saved = note.read_bytes()
    back = {"path": path, "action": "closed", "hash": opened["hash"]}
    closed = call(kb, "app_editor", back, who="tui")
    assert (closed["added"], closed["removed"], closed["changed"]) == (1, 0, True)
    history = versions(kb, path)
    assert (history[0].source, history[0].operation) == ("tui", "edited in $EDITOR")
    assert history[0].hash == content_hash(saved)
    assert history[1].hash == content_hash(before)  # one version for the edit, not two
    assert path in found(kb, "känguru")
    kb.indexer.run(paths=[path])  # after the hand-over, saves are other programs' again
    note.write_bytes(saved + b"later\r\n")
    kb.indexer.run(paths=[path])
    assert versions(kb, path)[0].source == "external"


def test_an_editor_that_changed_nothing_adds_no_version(kb: KnowledgeBase) -> None:
    opened = call(kb, "app_editor", {"path": "u16.md", "action": "open"}, who="tui")
    count = len(versions(kb, "u16.md"))
    back = {"path": "u16.md", "action": "closed", "hash": opened["hash"]}
    closed = call(kb, "app_editor", back, who="tui")
    assert closed["changed"] is False and len(versions(kb, "u16.md")) == count
