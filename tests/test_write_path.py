"""The one write path (kbtui.tools.write): a note keeps its encoding, line endings and every
byte an edit does not name; a writer that did not see the current bytes is refused; the
history keeps every version; the index answers with the new text before the write returns.
Real files, a real DuckDB index, the hash embedder (meaning is not under test here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.textdiff import content_hash
from kbtui.tools.envelope import ConflictError
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tools.write.service import ForbiddenError, NoteWriter, StaleNoteError
from kbtui.vault.edit.codec import decode_for_edit
from kbtui.vault.edit.sections import append_text, edit_section
from kbtui.vault.edit.swap import StaleError, replace_file

UTF16 = "# Café\n\nLigne une.\nLigne deux ✓.\n".encode("utf-16")
CP1252 = "# Notizen\r\n\r\nÜber die Straße — ein Café.\r\n".encode("cp1252")
BOM_CRLF = b"\xef\xbb\xbf---\r\ntags: [a]\r\n---\r\n# Plan\r\n\r\nStep one.\r\n"
NO_FINAL = b"# Short\n\nno final newline"


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, data in {
        "u16.md": UTF16,
        "win.md": CP1252,
        "bom.md": BOM_CRLF,
        "short.md": NO_FINAL,
    }.items():
        (vault / name).write_bytes(data)
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def writer(kb: KnowledgeBase) -> NoteWriter:
    return NoteWriter(kb.tools.parts)


@pytest.mark.parametrize("name", ["u16.md", "win.md", "bom.md", "short.md"])
def test_an_edit_keeps_every_byte_it_does_not_name(kb: KnowledgeBase, name: str) -> None:
    path = kb.settings.vault / name
    before = path.read_bytes()
    note = decode_for_edit(before)

    def add(n: object) -> str:
        assert n is not None
        return append_text(note.text, note.newline, "zebra line")

    result = writer(kb).edit(name, lambda n: add(n), "append")
    after = path.read_bytes()
    assert after.startswith(before)  # the old bytes untouched, the new line after them
    again = decode_for_edit(after)
    assert again.encoding == note.encoding and again.bom == note.bom
    assert again.text.endswith("zebra line" + note.newline)
    assert result.added == 1 and result.removed == 0
    assert result.previous_hash == content_hash(before) and result.hash == content_hash(after)
    hits = kb.call("kb_search", {"query": "zebra", "mode": "keyword"})
    found = [r["metadata"]["file_path"] for r in hits["results"]]
    assert name in found, hits  # indexed before the answer


def test_a_character_the_encoding_cannot_hold_is_refused(kb: KnowledgeBase) -> None:
    before = (kb.settings.vault / "win.md").read_bytes()
    with pytest.raises(ConflictError, match="Windows-1252"):
        writer(kb).edit("win.md", lambda n: n.text + "ok 🎉\r\n", "append")
    assert (kb.settings.vault / "win.md").read_bytes() == before
    writer(kb).edit("win.md", lambda n: n.text + "Grüße\r\n", "append")
    assert (kb.settings.vault / "win.md").read_bytes() == before + "Grüße\r\n".encode("cp1252")


def test_a_stated_hash_that_is_not_the_file_is_stale(kb: KnowledgeBase) -> None:
    path = kb.settings.vault / "bom.md"
    seen = content_hash(path.read_bytes())
    path.write_bytes(path.read_bytes() + b"Saved by an editor.\r\n")
    with pytest.raises(StaleNoteError) as caught:
        writer(kb).edit("bom.md", lambda n: n.text + "mine\r\n", "append", expected_hash=seen)
    assert caught.value.current_hash == content_hash(path.read_bytes())
    assert path.read_bytes().endswith(b"Saved by an editor.\r\n")


def test_a_save_between_read_and_replace_is_never_overwritten(tmp_path: Path) -> None:
    note, keep = tmp_path / "n.md", tmp_path / "keep"
    note.write_bytes(b"old\n")
    note.write_bytes(b"theirs\n")  # another program saved after we read b"old\n"
    with pytest.raises(StaleError) as caught:
        replace_file(note, b"old\n", b"mine\n", keep)
    assert note.read_bytes() == b"theirs\n" and caught.value.current == b"theirs\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".kbtui-")]


def test_history_keeps_each_version_with_who_wrote_it(kb: KnowledgeBase) -> None:
    w = writer(kb)
    with acting_as(Origin("mcp:claude")):
        w.edit("short.md", lambda n: append_text(n.text, n.newline, "one"), "append")
    (kb.settings.vault / "short.md").write_bytes(b"# Short\n\nrewritten by an editor\n")
    kb.indexer.run(paths=["short.md"])  # what the watcher does
    w.edit("short.md", lambda n: edit_section(n.text, n.newline, "Short", "append", "x"), "edit")
    versions = kb.tools.parts.history.versions("short.md")  # type: ignore[union-attr]
    got = [(v.source, v.operation) for v in versions]
    assert got == [
        ("cli", "edit"),
        ("external", "edited outside kbtui"),
        ("mcp:claude", "append"),
        ("external", "seen"),
    ]
    history = kb.tools.parts.history
    assert history is not None
    assert history.data(versions[-1].hash or "") == NO_FINAL


def test_scopes_refuse_before_reading(kb: KnowledgeBase) -> None:
    before = (kb.settings.vault / "short.md").read_bytes()
    with acting_as(Origin("mcp:x", read_only=True)), pytest.raises(ForbiddenError):
        writer(kb).edit("short.md", lambda n: n.text + "x", "append")
    with acting_as(Origin("mcp:x", write_folders=("Inbox",))), pytest.raises(ForbiddenError):
        writer(kb).edit("short.md", lambda n: n.text + "x", "append")
    assert (kb.settings.vault / "short.md").read_bytes() == before


def test_delete_goes_to_the_local_trash_and_stays_in_history(kb: KnowledgeBase) -> None:
    from kbtui.tools.write.trash import delete_note

    vault = kb.settings.vault
    before = (vault / "short.md").read_bytes()
    result = delete_note(writer(kb), "short.md")
    assert not (vault / "short.md").exists()
    assert (vault / ".trash" / "short.md").read_bytes() == before
    assert result.extra["trash"] == ".trash/short.md"
    history = kb.tools.parts.history
    assert history is not None
    newest, previous = history.versions("short.md")[:2]
    assert newest.hash is None and history.data(previous.hash or "") == before
    assert kb.call("kb_get", {"id": "note:short"})["ok"] is False  # gone from the index
