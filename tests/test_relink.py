"""Link rewriting for renames and unlinked mentions, as text edits that keep every other byte;
and the all-or-nothing multi-file writer, with a failure injected mid-batch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.edit.batch import FileEdit, read_text, write_all
from kbtui.vault.edit.relink import (
    find_mentions,
    link_mention,
    name_pattern,
    retitle,
    rewrite_links,
)
from kbtui.vault.edit.write import WriteError

OLD = {"old note", "people/old note"}


def resolves(target: str) -> bool:
    return target.lower().removesuffix(".md") in OLD


def new_target(old: str) -> str:
    suffix = ".md" if old.endswith(".md") else ""
    return ("people/New Name" if "/" in old else "New Name") + suffix


NOTE = """---
title: Meeting
works_on: [Old Note, "old note", Other]
attendees:
  - Old Note
  - '[[Old Note|O]]'
related_to: "[[people/Old Note.md#Role]]"
aliases: ["[[Old Note]]"]
---
See [[Old Note]], [[old note|the label]], ![[Old Note#^b1]] and [[people/Old Note#H|x]].
Not `[[Old Note]]` in code, nor [[Old Notes]] or [[Other]].

| who | link |
|-----|------|
| a   | [[Old Note\\|lbl]] |

```
[[Old Note]]
```

    [[Old Note]] indented code
"""

EXPECTED = """---
title: Meeting
works_on: [New Name, "New Name", Other]
attendees:
  - New Name
  - '[[New Name|O]]'
related_to: "[[people/New Name.md#Role]]"
aliases: ["[[Old Note]]"]
---
See [[New Name]], [[New Name|the label]], ![[New Name#^b1]] and [[people/New Name#H|x]].
Not `[[Old Note]]` in code, nor [[Old Notes]] or [[Other]].

| who | link |
|-----|------|
| a   | [[New Name\\|lbl]] |

```
[[Old Note]]
```

    [[Old Note]] indented code
"""


def test_rewrite_every_form_keeps_labels_headings_and_code() -> None:
    new, count = rewrite_links(NOTE, resolves, new_target)
    assert new == EXPECTED
    assert count == 10


def test_rewrite_keeps_crlf_and_bom_bytes() -> None:
    data = b"\xef\xbb\xbf" + NOTE.replace("\n", "\r\n").encode()
    text, encode = read_text(data)
    new, _ = rewrite_links(text, resolves, new_target)
    assert encode(new) == b"\xef\xbb\xbf" + EXPECTED.replace("\n", "\r\n").encode()


def test_nothing_to_rewrite_is_identical() -> None:
    text = "# Title\n\nNo links to it here: [[Other]].\n"
    assert rewrite_links(text, resolves, new_target) == (text, 0)


def test_retitle_only_when_it_was_the_file_name() -> None:
    text = "---\nid: x\ntitle: Old Note\n---\nbody\n"
    assert retitle(text, "Old Note", "New: Name") == '---\nid: x\ntitle: "New: Name"\n---\nbody\n'
    assert retitle(text, "Other", "New") == text


MENTIONS = """---
title: Andrei in the frontmatter
---
# Notes with Andrei

Andrei Clodius met [[andrei_clodius|Andrei]] and andrei again.
`Andrei` in code, [Andrei](https://x.org) a link, https://andrei.example/Andrei a URL.
Andreiescu is another word; so is #Andrei and andrei@example.org.

```
Andrei in a fence
```
"""


def test_mentions_only_in_prose() -> None:
    pattern = name_pattern(["Andrei Clodius", "Andrei"])
    assert pattern is not None
    found = find_mentions(MENTIONS, pattern)
    assert [(m.text, m.line) for m in found] == [
        ("Andrei", 4),
        ("Andrei Clodius", 6),
        ("andrei", 6),
    ]
    assert found[1].context == "Andrei Clodius met [[andrei_clodius|Andrei]] and andrei again."


def test_linking_a_mention_changes_only_those_words() -> None:
    pattern = name_pattern(["Andrei"])
    assert pattern is not None
    mention = find_mentions(MENTIONS, pattern)[-1]
    new = link_mention(MENTIONS, mention.start, mention.end, "andrei_clodius")
    assert new == MENTIONS.replace("and andrei again", "and [[andrei_clodius|andrei]] again")
    same = link_mention("Rust is fast", 0, 4, "Rust")
    assert same == "[[Rust]] is fast"


def test_short_names_never_match() -> None:
    assert name_pattern(["AI", " ", "Jo"]) is None


# -- the all-or-nothing writer ---------------------------------------------------------------
def _notes(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for i in range(n):
        path = folder / f"note{i}.md"
        path.write_bytes(f"note {i} links [[Old]]\r\n".encode())
        paths.append(path)
    return paths


def test_write_all_moves_and_writes(tmp_path: Path) -> None:
    paths = _notes(tmp_path / "v", 3)
    edits = [FileEdit(p, p.read_bytes(), p.read_bytes().replace(b"Old", b"New")) for p in paths]
    write_all(tmp_path, edits, (paths[0], tmp_path / "v" / "sub" / "renamed.md"))
    assert not paths[0].exists()
    assert (tmp_path / "v" / "sub" / "renamed.md").read_bytes() == b"note 0 links [[New]]\r\n"
    assert paths[2].read_bytes() == b"note 2 links [[New]]\r\n"


def test_failure_on_the_fifth_file_restores_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _notes(tmp_path / "v", 8)
    before = {p: p.read_bytes() for p in paths}
    edits = [FileEdit(p, before[p], before[p].replace(b"Old", b"New")) for p in paths]
    real_replace, calls = os.replace, []

    def failing_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(WriteError, match="nothing was changed"):
        write_all(tmp_path, edits, (paths[0], tmp_path / "v" / "new" / "moved.md"))
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in paths} == before
    assert sorted(os.listdir(tmp_path / "v")) == sorted(p.name for p in paths)  # no temp files


def test_a_file_changed_meanwhile_stops_before_any_write(tmp_path: Path) -> None:
    paths = _notes(tmp_path / "v", 3)
    before = {p: p.read_bytes() for p in paths}
    edits = [FileEdit(p, before[p], b"changed") for p in paths]
    paths[2].write_bytes(b"edited by the user")
    with pytest.raises(WriteError, match="changed on disk"):
        write_all(tmp_path, edits)
    assert paths[0].read_bytes() == before[paths[0]]


def test_a_file_deleted_meanwhile_stops_before_any_write(tmp_path: Path) -> None:
    paths = _notes(tmp_path / "v", 3)
    before = {p: p.read_bytes() for p in paths}
    edits = [FileEdit(p, before[p], b"changed") for p in paths]
    paths[2].unlink()  # the user deleted (or moved) it between planning and writing
    with pytest.raises(WriteError, match="moved or deleted"):
        write_all(tmp_path, edits)
    assert [p.read_bytes() for p in paths[:2]] == [before[p] for p in paths[:2]]


def test_a_rename_over_notes_moved_on_disk_is_a_conflict(runtime: VaultRuntime) -> None:
    """Found by bench/http_soak.py: a user moved a linking note on disk just before an
    assistant's rename, while the index still had it: a ConflictError, nothing written."""
    vault = runtime.settings.vault
    linking = [p for p in vault.rglob("*.md") if b"[[andrei_clodius" in p.read_bytes()]
    assert linking
    moved = linking[0].rename(vault / "moved away.md")  # no watcher: the index lags behind
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    answer = runtime.call(
        "kg_rename_entity", {"entityId": "person:andrei_clodius", "newName": "Andrei C"}
    )
    assert answer["error_type"] == "ConflictError", answer  # not INTERNAL
    assert "moved or deleted on disk" in answer["message"]
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before and moved.exists()


def test_a_note_is_scanned_only_when_every_word_of_a_name_is_in_it() -> None:
    """The cheap test before parsing: all of a name's words, not just its first (a name's
    non-ASCII words are not required: case folding may differ between re and str.lower)."""
    from kbtui.vault.edit.relink import words_of

    names = name_pattern(["Have Replica Project", "Zoë Ström"])
    assert names is not None
    assert not names.may_occur(words_of("We have a plan for the replica."))
    text = "We have Replica  project going, with ZOË STRÖM."
    assert names.may_occur(words_of(text))
    found = [text[s:e] for s, e in names.finditer(text, 0, len(text))]
    assert found == ["have Replica  project", "ZOË STRÖM"]
    assert names.may_occur(words_of("zoë and others"))  # its first word is enough
