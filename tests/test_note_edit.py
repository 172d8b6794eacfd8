"""note_edit (issue 39, item 3): edits land where they are aimed or the call is refused with
the candidates and their lines; a list of edits is all or nothing; on UTF-16, Windows-1252,
BOM+CRLF and no-final-newline notes every byte outside the edit stays as it was. Real files,
a real DuckDB index, the hash embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.edit.codec import decode_for_edit

PLAN = (
    "---\ntags: [plan]\nrating: 3\n---\n# Plan\n\n## Tasks\n\n- one\n\n## Notes\n\n"
    "An idea. ^idea\n\n# Later\n\n## Tasks\n\n- someday\n"
)
UTF16 = "---\nstatus: draft\n---\n# Café\n\n## Liste\n\nLigne une.\nLigne deux ✓.\n"
CP1252 = "# Notizen\r\n\r\n## Straße\r\n\r\nÜber die Straße — ein Café.\r\n"
BOM_CRLF = "---\r\ntags: [a]\r\n---\r\n# Plan\r\n\r\n## Steps\r\n\r\nStep one.\r\n"
NO_FINAL = "# Short\n\n## End\n\nno final newline"
ENCODED = {
    "u16.md": UTF16.encode("utf-16"),
    "win.md": CP1252.encode("cp1252"),
    "bom.md": b"\xef\xbb\xbf" + BOM_CRLF.encode(),
    "short.md": NO_FINAL.encode(),
}


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plan.md").write_text(PLAN)
    for name, data in ENCODED.items():
        (vault / name).write_bytes(data)
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def edit(kb: KnowledgeBase, note: str, *edits: dict[str, Any], **more: Any) -> dict[str, Any]:
    return kb.call("note_edit", {"note": note, "edits": list(edits), **more})


def refused(kb: KnowledgeBase, error_type: str, note: str, *edits: dict[str, Any]) -> str:
    before = (kb.settings.vault / "Plan.md").read_bytes()
    answer = edit(kb, note, *edits)
    assert not answer["ok"] and answer["error_type"] == error_type, answer
    assert (kb.settings.vault / "Plan.md").read_bytes() == before
    return str(answer["message"])


def text(kb: KnowledgeBase, name: str = "Plan.md") -> str:
    return (kb.settings.vault / name).read_text()


def test_edits_land_at_their_section_block_and_text(kb: KnowledgeBase) -> None:
    done = edit(
        kb,
        "Plan",
        {"section": "Plan > Tasks", "text": "- two"},
        {"section": "Later > Tasks", "position": "prepend", "text": "- first"},
        {"block": "idea", "position": "after", "text": "More."},
        {"old": "- one", "new": "- ONE"},
    )
    assert done["ok"] and (done["added"], done["removed"]) == (4, 1), done
    assert text(kb) == PLAN.replace("- one\n", "- ONE\n- two\n").replace(
        "An idea. ^idea\n", "An idea. ^idea\nMore.\n"
    ).replace("## Tasks\n\n- someday", "## Tasks\n- first\n\n- someday")
    versions = kb.history.versions("Plan.md")
    assert versions[0].operation.startswith("edit: append in 'Plan > Tasks'; prepend")


def test_an_ambiguous_heading_is_refused_with_both_lines(kb: KnowledgeBase) -> None:
    message = refused(kb, "TargetError", "Plan", {"section": "Tasks", "text": "x"})
    assert "line 7: ## Tasks" in message and "line 17: ## Tasks" in message
    missing = refused(kb, "TargetError", "Plan", {"section": "Taks", "text": "x"})
    assert "no heading 'Taks'" in missing and "line 7: ## Tasks" in missing
    block = refused(kb, "TargetError", "Plan", {"block": "^nope", "text": "x"})
    assert "line 13: ^idea" in block


def test_text_found_twice_is_refused_unless_counted(kb: KnowledgeBase) -> None:
    message = refused(kb, "TargetError", "Plan", {"old": "## Tasks", "new": "## To do"})
    assert "occurs 2 times, not 1" in message and "line 7" in message and "line 17" in message
    refused(kb, "TargetError", "Plan", {"old": "## Tasks", "new": "x", "count": 3})
    refused(kb, "TargetError", "Plan", {"old": "not there", "new": "x"})
    assert edit(kb, "Plan", {"old": "## Tasks", "new": "## To do", "count": 2})["ok"]
    assert text(kb).count("## To do") == 2
    assert edit(kb, "Plan", {"old": "- ", "new": "* ", "all": True})["ok"]
    assert "- " not in text(kb).split("---\n", 2)[2]


def test_a_missing_section_is_made_only_when_asked(kb: KnowledgeBase) -> None:
    refused(kb, "TargetError", "Plan", {"section": "Plan > Done", "text": "- x"})
    made = edit(kb, "Plan", {"section": "Plan > Done", "text": "- x"}, create_section=True)
    assert made["ok"]
    assert "## Notes\n\nAn idea. ^idea\n\n## Done\n- x\n# Later" in text(kb)


def test_edits_are_all_or_nothing(kb: KnowledgeBase) -> None:
    message = refused(
        kb,
        "TargetError",
        "Plan",
        {"section": "Notes", "text": "first edit, fine"},
        {"section": "Nowhere", "text": "second edit, missing"},
    )
    assert message.startswith("Plan.md: edits[1]")
    assert not kb.history.versions("Plan.md")[0].operation.startswith("edit")


def test_properties_are_set_typed_and_removed(kb: KnowledgeBase) -> None:
    done = edit(
        kb,
        "Plan",
        {"property": "rating", "value": 5},
        {"property": "done", "value": False},
        {"property": "aliases", "value": ["Project plan", "PP"]},
        {"property": "tags", "remove": True},
    )
    assert done["ok"], done
    assert text(kb).startswith(
        '---\nrating: 5\ndone: false\naliases:\n  - "Project plan"\n  - "PP"\n---\n# Plan\n'
    )
    assert edit(kb, "Plan", {"property": "rating", "value": "4"})["ok"]  # a number here
    assert text(kb).startswith("---\nrating: 4\n")
    typed = {"property": "rating", "value": "high", "type": "number"}
    message = refused(kb, "ValidationError", "Plan", typed)
    assert "number" in message
    refused(kb, "ValidationError", "Plan", {"property": "rating", "value": ["a"], "type": "number"})


def test_malformed_edits_are_validation_errors(kb: KnowledgeBase) -> None:
    refused(kb, "ValidationError", "Plan", {"section": "Notes", "old": "x", "new": "y"})
    refused(kb, "ValidationError", "Plan", {"section": "Notes", "block": "idea", "text": "x"})
    refused(kb, "ValidationError", "Plan", {"position": "replace", "text": "x"})
    refused(kb, "ValidationError", "Plan", {"section": "Notes"})
    refused(kb, "ValidationError", "Plan", {"old": "x", "new": "y", "count": 2, "all": True})
    refused(kb, "ValidationError", "Plan", {"unknown": 1})
    refused(kb, "ValidationError", "Plan")


def test_a_stale_hash_and_a_dry_run_write_nothing(kb: KnowledgeBase) -> None:
    read = kb.call("note_read", {"note": "Plan"})
    one = {"section": "Notes", "text": "added"}
    dry = edit(kb, "Plan", one, dry_run=True, expected_hash=read["hash"])
    assert dry["ok"] and "+added" in dry["diff"] and text(kb) == PLAN
    (kb.settings.vault / "Plan.md").write_text(PLAN + "saved by an editor\n")
    stale = edit(kb, "Plan", one, expected_hash=read["hash"])
    assert stale["error_type"] == "StaleError"
    assert text(kb) == PLAN + "saved by an editor\n"


CASES = [  # note, edits, the text the note must hold after (in its own line endings)
    ("u16.md", [{"section": "Liste", "text": "Ligne trois."}], UTF16 + "Ligne trois.\n"),
    (
        "u16.md",
        [{"property": "status", "value": "done"}, {"old": "une", "new": "1"}],
        UTF16.replace("draft", "done").replace("une", "1"),
    ),
    ("win.md", [{"old": "Café", "new": "Kaffee"}], CP1252.replace("Café", "Kaffee")),
    (
        "win.md",
        [{"section": "Straße", "position": "prepend", "text": "Grüße"}],
        CP1252.replace("## Straße\r\n", "## Straße\r\nGrüße\r\n"),
    ),
    (
        "bom.md",
        [{"section": "Steps", "text": "Step two."}, {"property": "tags", "value": ["a", "b"]}],
        BOM_CRLF.replace("tags: [a]", 'tags:\r\n  - "a"\r\n  - "b"') + "Step two.\r\n",
    ),
    (
        "bom.md",
        [{"text": "Top.", "position": "prepend"}],
        BOM_CRLF.replace("# Plan", "Top.\r\n# Plan"),
    ),
    ("short.md", [{"old": "final", "new": "last"}], NO_FINAL.replace("final", "last")),
    ("short.md", [{"section": "End", "text": "added"}], NO_FINAL + "\nadded\n"),
]


@pytest.mark.parametrize(("name", "edits", "want"), CASES)
def test_bytes_outside_the_edit_stay(
    kb: KnowledgeBase, name: str, edits: list[dict[str, Any]], want: str
) -> None:
    path = kb.settings.vault / name
    before = decode_for_edit(path.read_bytes())
    done = edit(kb, name, *edits)
    assert done["ok"], done
    assert path.read_bytes() == before.bom + want.encode(before.encoding)


def test_a_character_the_encoding_cannot_hold_is_refused(kb: KnowledgeBase) -> None:
    before = (kb.settings.vault / "win.md").read_bytes()
    answer = edit(kb, "win", {"section": "Straße", "text": "ok 🎉"})
    assert answer["error_type"] == "ConflictError" and "Windows-1252" in answer["message"]
    assert (kb.settings.vault / "win.md").read_bytes() == before


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_writes_and_a_restore_keep_the_notes_encoding(kb: KnowledgeBase, name: str) -> None:
    """append, prepend and overwrite keep the note's encoding and line endings; restoring the
    first version gives back its very bytes."""
    path = kb.settings.vault / name
    note = decode_for_edit(path.read_bytes())
    nl = note.newline

    def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = kb.call(tool, args)
        assert answer["ok"], answer
        return answer

    call("note_write", {"path": name, "mode": "append", "content": "Fin\n"})
    call("note_write", {"path": name, "mode": "prepend", "content": "Début"})
    body = note.text[: note.text.index("#")], note.text[note.text.index("#") :]
    end = "" if note.text.endswith(nl) else nl
    want = body[0] + "Début" + nl + body[1] + end + "Fin" + nl
    assert path.read_bytes() == note.bom + want.encode(note.encoding)
    seen = call("note_read", {"note": name})["hash"]
    args = {"path": name, "mode": "overwrite", "content": "Neu\nÉcrit\n", "expected_hash": seen}
    call("note_write", args)
    assert path.read_bytes() == note.bom + f"Neu{nl}Écrit{nl}".encode(note.encoding)
    call("note_history", {"note": name, "action": "restore", "version": 1})
    assert path.read_bytes() == ENCODED[name]
