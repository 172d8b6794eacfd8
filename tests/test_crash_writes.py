"""kill -9 in the middle of a note write, at each named point of the write path (issue 39):
after the temporary file, after the note is renamed aside, after the new file takes its name,
after the old file went into the keep folder (before the history records the new version),
after the history record (before the index update); the same for a restore and a delete.
Afterwards, once a vault open has run its first pass (no write needed): the note holds the
old bytes or the new ones, nothing is left aside or journalled, the history is consistent (a
version for every state the note had, the newest the file's, the new one said to be the
writer's) and the index equals a fresh build.

A child process makes the write; kbtui.vault.edit.swap.at_point, set in the child, kills it
with SIGKILL at the named point, so each case is deterministic."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.store.history import History
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.swap import ASIDE_PREFIX, PENDING, keep_dir
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from crashkit import KILLED, fresh_snapshot, index_snapshot

NOTE = "Projects/Plan.md"
OLD = b"# Plan\r\n\r\nStep one, see [[Team]].\r\n"
EDITED = OLD + b"Step two by an assistant.\r\n"

CHILD = """import os, signal, sys
from pathlib import Path
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tools.write.service import NoteWriter
from kbtui.tools.write.trash import delete_note
from kbtui.vault.edit import swap

vault, op, point = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
swap.at_point = lambda name: name == point and os.kill(os.getpid(), signal.SIGKILL)
kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder(), approximate=False)
writer = NoteWriter(kb.tools.parts)
with acting_as(Origin("mcp:crash")):
    if op == "edit":
        writer.edit("{note}", lambda n: n.text + "Step two by an assistant.\\r\\n", "append")
    elif op == "restore":
        writer.restore("{note}", int(sys.argv[4]))
    elif op == "delete":
        delete_note(writer, "{note}")
kb.close()
print("finished without reaching", point)
""".replace("{note}", NOTE)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / "Projects").mkdir(parents=True)
    (vault / NOTE).write_bytes(OLD)
    (vault / "Team.md").write_text("# Team\n\nWorks on [[Plan]].\n", encoding="utf-8")
    (vault / "Ideas.md").write_text("# Ideas\n\nA plan for step three.\n", encoding="utf-8")
    settings = Settings.for_vault(vault)
    kb = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    try:
        kb.indexer.run()
    finally:
        kb.close()
    return vault


def killed_at(vault: Path, op: str, point: str, *extra: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(vault), op, point, *extra],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert child.returncode == KILLED, child.stdout + child.stderr[-2000:]


def open_vault(vault: Path) -> None:
    """What the next start does before anything else: open, and its first pass."""
    settings = Settings.for_vault(vault)
    kb = KnowledgeBase.open(settings, HashEmbedder(), approximate=False)
    try:
        kb.indexer.run()
        kb.history.ingest_kept(grace=0)  # what a later write does, 30 s after
    finally:
        kb.close()


def check_history(vault: Path, now: bytes | None, landed: bool) -> None:
    """Consistent: SQLite intact, versions numbered 1..n, every version's bytes there, the
    newest the note's state now; the write's version there if it landed (said to be the
    writer's, not another program's), else none; no file left in the keep folder."""
    index_dir = Settings.for_vault(vault).index_dir
    con = sqlite3.connect(index_dir / "history.sqlite")
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert con.execute("SELECT count(*) FROM kept").fetchone() == (0,)
    finally:
        con.close()
    history = History(index_dir)
    try:
        versions = history.versions(NOTE)
        assert [v.version for v in versions] == list(range(len(versions), 0, -1))
        for v in versions:
            if v.hash is not None:
                assert sha(history.data(v.hash)) == v.hash
        assert versions[0].hash == (None if now is None else sha(now))
        mine = [v for v in versions if v.source == "mcp:crash"]
        assert mine == ([versions[0]] if landed else []), [
            (v.source, v.operation) for v in versions
        ]
        assert not any(v.hash is None for v in versions[1:]), "seen as deleted on the way"
    finally:
        history.close()
    keep = keep_dir(index_dir)
    left = [p.name for p in keep.glob("*") if p.name.endswith((".kept", PENDING))]
    assert left == []
    assert not list(vault.rglob(f"{ASIDE_PREFIX}*"))


def check_index(vault: Path, scratch: Path) -> None:
    after, recovered = index_snapshot(vault)
    assert recovered is None
    assert after.differences(fresh_snapshot(vault, scratch)) == []


# point -> does the note hold the new bytes once recovered?
EDIT_POINTS = {"temp": False, "aside": False, "link": True, "kept": True, "recorded": True}


@pytest.mark.parametrize("point", list(EDIT_POINTS))
def test_an_edit_killed_at_any_point_leaves_the_old_or_the_new_note(
    tmp_path: Path, point: str
) -> None:
    vault = make_vault(tmp_path)
    killed_at(vault, "edit", point)
    if point == "aside":  # the moment a vault open must repair: the note is not there
        assert not (vault / NOTE).exists()
    open_vault(vault)
    landed = EDIT_POINTS[point]
    assert (vault / NOTE).read_bytes() == (EDITED if landed else OLD)
    check_history(vault, EDITED if landed else OLD, landed)
    check_index(vault, tmp_path / "fresh")


@pytest.mark.parametrize("point", ["aside", "kept"])
def test_a_restore_killed_midway_leaves_the_old_or_the_new_note(tmp_path: Path, point: str) -> None:
    vault = make_vault(tmp_path)
    settings = Settings.for_vault(vault)
    kb = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    try:  # version 1 is what the index saw; version 2 the edit; the child puts 1 back
        NoteWriter(kb.tools.parts).edit(NOTE, lambda n: n.text + "Step two.\r\n", "append")
    finally:
        kb.close()
    edited = (vault / NOTE).read_bytes()
    killed_at(vault, "restore", point, "1")
    open_vault(vault)
    landed = point == "kept"
    assert (vault / NOTE).read_bytes() == (OLD if landed else edited)
    check_history(vault, OLD if landed else edited, landed)
    check_index(vault, tmp_path / "fresh")


@pytest.mark.parametrize("point", ["aside", "moved", "recorded"])
def test_a_delete_killed_midway_leaves_the_note_or_its_trash_copy(
    tmp_path: Path, point: str
) -> None:
    vault = make_vault(tmp_path)
    killed_at(vault, "delete", point)
    open_vault(vault)
    trash = vault / ".trash" / "Plan.md"
    if point == "aside":  # not deleted: in place, not in the trash
        assert (vault / NOTE).read_bytes() == OLD and not trash.exists()
        check_history(vault, OLD, landed=False)
    else:  # deleted: in the trash, whole
        assert not (vault / NOTE).exists() and trash.read_bytes() == OLD
        check_history(vault, None, landed=True)
    check_index(vault, tmp_path / "fresh")


def test_a_killed_write_of_a_live_process_is_not_recovered_by_another(tmp_path: Path) -> None:
    """The journal of a write in progress (its process alive) is left alone by a recovery
    elsewhere: only a dead writer's note is put back."""
    from kbtui.vault.edit.swap import recover

    keep, note = tmp_path / "keep", tmp_path / "n.md"
    keep.mkdir()
    aside = tmp_path / f"{ASIDE_PREFIX}abc.aside"
    aside.write_bytes(b"old\n")
    sleeper = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                               stdin=subprocess.PIPE)  # fmt: skip
    try:
        said = {"pid": sleeper.pid, "note": str(note), "new": "", "target": "", "memo": ""}
        (keep / f"abc{PENDING}").write_text(json.dumps(said))
        assert recover(keep) == [] and aside.exists() and not note.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    done = recover(keep)
    assert [r.note for r in done] == [note] and note.read_bytes() == b"old\n"
    assert not aside.exists() and not (keep / f"abc{PENDING}").exists()
