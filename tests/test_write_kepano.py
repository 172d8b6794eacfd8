"""Every note operation on a copy of kepano's real vault leaves every byte it does not name as
it was (issue 39's goal: `git diff` shows only the intended lines). For each markdown note with
a heading: an append, a prepend, text under its first heading, a property set and removed,
and a word replaced; after each, the file's lines are compared with the lines before it: the
removed and added lines are exactly the ones the operation names."""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.edit.sections import headings

KEPANO = Path("/work/shared/data/vaults/kepano")
pytestmark = pytest.mark.skipif(not KEPANO.is_dir(), reason="kepano's vault is not here")


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    vault = Path(shutil.copytree(KEPANO, tmp_path_factory.mktemp("kep") / "kepano"))
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def changed_lines(before: bytes, after: bytes) -> tuple[list[bytes], list[bytes]]:
    """(removed, added) lines, each line with its own ending."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    removed: list[bytes] = []
    added: list[bytes] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, False).get_opcodes():
        if tag != "equal":
            removed += old[i1:i2]
            added += new[j1:j2]
    return removed, added


def notes_with_headings(vault: Path) -> list[str]:
    found = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if rel.startswith(".") or "/." in rel or rel.startswith("Templates/"):
            continue
        text = path.read_text("utf-8")
        hs = headings(text)
        if hs and sum(h.text == hs[0].text for h in hs) == 1:
            found.append(rel)
    return found


def call(kb: KnowledgeBase, name: str, args: dict[str, Any]) -> dict[str, Any]:
    answer = kb.call(name, args)
    assert answer["ok"], answer
    return answer


def check(
    kb: KnowledgeBase,
    file: Path,
    name: str,
    args: dict[str, Any],
    gone: list[bytes],
    new: list[bytes],
) -> None:
    """Run one operation; the lines it removed and added must be `gone` and `new`."""
    before = file.read_bytes()
    call(kb, name, args)
    removed, added = changed_lines(before, file.read_bytes())
    assert (removed, added) == (gone, new), (file.name, name, removed, added)


def test_each_operation_changes_only_the_lines_it_names(kb: KnowledgeBase) -> None:
    vault = kb.settings.vault
    notes = notes_with_headings(vault)
    assert len(notes) >= 5, notes
    for rel in notes:
        file = vault / rel
        first = headings(file.read_text("utf-8"))[0].text
        data = file.read_bytes()
        last = data.splitlines(keepends=True)[-1]
        if data.endswith(b"\n"):  # else the last line gets its line ending, and only that
            check(kb, file, "note_write", {"path": rel, "mode": "append", "content": "kb-tail"},
                  [], [b"kb-tail\n"])  # fmt: skip
        else:
            check(kb, file, "note_write", {"path": rel, "mode": "append", "content": "kb-tail"},
                  [last], [last + b"\n", b"kb-tail\n"])  # fmt: skip
        check(kb, file, "note_write", {"path": rel, "mode": "prepend", "content": "kb-head"},
              [], [b"kb-head\n"])  # fmt: skip
        section = {"section": first, "position": "prepend", "text": "kb-under"}
        check(kb, file, "note_edit", {"note": rel, "edits": [section]}, [], [b"kb-under\n"])
        before_prop = file.read_bytes()
        call(kb, "note_edit", {"note": rel, "edits": [{"property": "kbprobe", "value": "probe"}]})
        removed, added = changed_lines(before_prop, file.read_bytes())
        if before_prop.startswith(b"---"):
            assert (removed, added) == ([], [b"kbprobe: probe\n"]), (rel, removed, added)
        call(kb, "note_edit", {"note": rel, "edits": [{"property": "kbprobe", "remove": True}]})
        assert file.read_bytes() == before_prop, rel  # removed again: the file as it was
        replace = {"old": "kb-under", "new": "kb-over"}
        check(kb, file, "note_edit", {"note": rel, "edits": [replace]},
              [b"kb-under\n"], [b"kb-over\n"])  # fmt: skip
