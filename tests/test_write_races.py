"""Another program saves at the worst moments of a kbtui write (issue 39): each moment is
reached through kbtui.vault.edit.swap.at_point, where the test saves as an editor would, so
each race is deterministic. Whatever the other program wrote stays in the note or in its
history; a refused write leaves nothing of its own behind."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.watcher import ChangeBatch
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store
from kbtui.textdiff import content_hash
from kbtui.tools.envelope import ConflictError
from kbtui.tools.write.service import NoteWriter, StaleNoteError
from kbtui.tools.write.trash import delete_note
from kbtui.vault.edit import codec, swap
from kbtui.vault.edit.sections import append_text

NOTE = "note.md"
OLD = b"# Note\n\nFirst line.\n"


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / NOTE).write_bytes(OLD)
    settings = Settings.for_vault(vault)
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, Callable[[], None]], list[str]]:
    """at(point, action): run `action` the first time the write reaches `point`; returns
    the list of points reached."""
    reached: list[str] = []

    def arm(point: str, action: Callable[[], None]) -> list[str]:
        def hook(name: str) -> None:
            reached.append(name)
            if name == point and reached.count(name) == 1:
                action()

        monkeypatch.setattr(swap, "at_point", hook)
        return reached

    return arm


def add_line(text: str) -> Callable[[object], str]:
    return lambda n: append_text(n.text, n.newline, text)  # type: ignore[attr-defined]


def versions(kb: KnowledgeBase) -> list[tuple[str, bytes | None]]:
    kb.history.ingest_kept(grace=0)
    return [
        (v.operation, None if v.hash is None else kb.history.data(v.hash))
        for v in kb.history.versions(NOTE)
    ]


def test_a_stale_write_is_refused_before_the_notes_name_is_ever_free(
    kb: KnowledgeBase, at: Callable[..., list[str]]
) -> None:
    note = kb.settings.vault / NOTE
    saved = OLD + b"Saved by an editor.\n"
    reached = at("temp", lambda: note.write_bytes(saved))  # saved after kbtui's read
    with pytest.raises(StaleNoteError):
        NoteWriter(kb.tools.parts).edit(NOTE, add_line("mine"), "append")
    assert reached == ["temp"]  # never renamed aside: an O_CREAT writer cannot fork the note
    assert note.read_bytes() == saved


def test_a_save_by_rename_while_the_note_is_aside_stays_and_the_write_is_refused(
    kb: KnowledgeBase, at: Callable[..., list[str]]
) -> None:
    note = kb.settings.vault / NOTE
    theirs = OLD + b"Saved by rename.\n"

    def save_by_rename() -> None:
        tmp = note.with_name(".editor.tmp")
        tmp.write_bytes(theirs)
        os.replace(tmp, note)

    at("aside", save_by_rename)
    with pytest.raises(StaleNoteError) as caught:
        NoteWriter(kb.tools.parts).edit(NOTE, add_line("mine"), "append")
    assert note.read_bytes() == theirs and caught.value.current_hash == content_hash(theirs)
    assert all(b"mine" not in (data or b"") for _, data in versions(kb))  # nothing of ours


def test_a_save_into_the_old_file_after_the_swap_is_kept_in_the_history(
    kb: KnowledgeBase, at: Callable[..., list[str]]
) -> None:
    """An editor that had the note open writes into it just after kbtui's check: its file is
    the one set aside, kept, and read into the history."""
    note = kb.settings.vault / NOTE
    late = OLD + b"Typed as kbtui wrote.\n"
    opened = open(note, "r+b")  # noqa: SIM115 - the editor's handle, opened before the write

    def write_late() -> None:
        opened.seek(0)
        opened.write(late)
        opened.flush()

    at("link", write_late)
    try:
        NoteWriter(kb.tools.parts).edit(NOTE, add_line("mine"), "append")
    finally:
        opened.close()
    assert note.read_bytes() == OLD + b"mine\n"
    assert ("saved beside a kbtui write", late) in versions(kb)


def test_a_delete_keeps_a_save_made_by_rename_while_it_moves_the_note(
    kb: KnowledgeBase, at: Callable[..., list[str]]
) -> None:
    """The old delete linked the note into the trash, checked it, then unlinked the name: a
    save by rename in between was unlinked with it. Now the name is taken aside first."""
    note = kb.settings.vault / NOTE
    theirs = b"# Note\n\nRewritten elsewhere.\n"

    def save_by_rename() -> None:
        tmp = note.with_name(".editor.tmp")
        tmp.write_bytes(theirs)
        os.replace(tmp, note)

    at("aside", save_by_rename)
    delete_note(NoteWriter(kb.tools.parts), NOTE)
    assert note.read_bytes() == theirs  # their save stays
    assert (kb.settings.vault / ".trash" / NOTE).read_bytes() == OLD


def test_a_create_refused_leaves_no_version_behind(
    kb: KnowledgeBase, at: Callable[..., list[str]]
) -> None:
    new = kb.settings.vault / "new.md"
    at("temp", lambda: new.write_bytes(b"made by another program\n"))
    with pytest.raises(ConflictError, match="created by another program"):
        NoteWriter(kb.tools.parts).create("new.md", "# New\n")
    assert new.read_bytes() == b"made by another program\n"
    assert kb.history.versions("new.md") == []


def test_an_edit_does_not_build_on_a_note_caught_empty_in_the_middle_of_a_save(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor saving in place truncates, then writes: read in between, the note is empty,
    and an append made on that would have replaced the whole note with one line."""
    note = kb.settings.vault / NOTE
    full = OLD + b"Second line.\n"
    note.write_bytes(b"")  # truncated a moment ago; the bytes come while kbtui waits

    def editor_finishes(seconds: float) -> None:
        note.write_bytes(full)

    monkeypatch.setattr(codec.time, "sleep", editor_finishes)
    NoteWriter(kb.tools.parts).edit(NOTE, add_line("mine"), "append")
    assert note.read_bytes() == full + b"mine\n"


def test_an_empty_note_is_edited_at_once_when_it_has_been_empty_a_while(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = kb.settings.vault / NOTE
    note.write_bytes(b"")
    os.utime(note, (1_000_000, 1_000_000))

    def no_wait(seconds: float) -> None:
        raise AssertionError("waited for an empty note saved long ago")

    monkeypatch.setattr(codec.time, "sleep", no_wait)
    NoteWriter(kb.tools.parts).edit(NOTE, add_line("mine"), "append")
    assert note.read_bytes() == b"mine\n"


def test_the_watchers_passes_keep_outside_edits_in_the_history(tmp_path: Path) -> None:
    """The runtime's own passes (the watcher's batches, `kbtui index` through an owner) read
    notes too: what another program saved becomes a version, undoable from kbtui."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / NOTE).write_bytes(OLD)
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
    runtime.start()
    try:
        assert runtime.worker.wait_idle(60)
        (vault / NOTE).write_bytes(OLD + b"Saved in Obsidian.\n")
        runtime.worker.submit(ChangeBatch((NOTE,)))
        assert runtime.worker.wait_idle(60)
        history = runtime.kb.history
        got = [(v.operation, history.data(v.hash or "")) for v in history.versions(NOTE)]
        assert got == [("edited outside kbtui", OLD + b"Saved in Obsidian.\n"), ("seen", OLD)]
    finally:
        runtime.close()
