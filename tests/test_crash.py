"""kill -9 at random moments: the index never ends up damaged and always converges to a
fresh build; a note being written is whole or absent; indexing and searching never touch a
vault file. Short runs of bench/crash_index.py and bench/crashwrites.py (the long ones)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.edit.swap import create_file
from tests.conftest import REPO, copy_vault

sys.path.insert(0, str(REPO / "bench"))
from crashkit import (
    KILLED,
    crash_rounds,
    index_snapshot,
    run_child,
    side_file_differences,
    vault_digest,
)
from crashwrites import write_rounds


def test_indexer_killed_at_random_moments_converges_to_a_fresh_build(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    counts = crash_rounds(vault, tmp_path / "fresh" / "vault", rounds=3, rng=random.Random(11))
    print(counts.line("crash consistency (short)"))
    assert counts.failures == []
    assert counts.faults >= 2 and counts.checks > counts.faults  # the faults really landed


def test_kbtui_index_killed_mid_pass_resumes_to_a_fresh_build(
    tmp_path: Path, indexed_example: Settings
) -> None:
    """The real command and the real model: SIGKILL mid-pass, then the next run finishes
    the job and the index equals a build that was never interrupted."""
    vault = copy_vault(tmp_path / "vault")
    command = [sys.executable, "-m", "kbtui.cli", "index", "--vault", str(vault)]
    child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(random.Random(3).uniform(4.0, 7.0))
    child.kill()
    child.wait()
    store = Store(Settings.for_vault(vault).db_path)  # the restart: opens, replays its WAL
    pending, recovered = store.count_pending(), store.recovered
    store.close()
    print(f"kbtui index killed with {pending} chunks waiting for vectors")
    assert recovered is None
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    after, _ = index_snapshot(vault)
    fresh = Store(indexed_example.db_path, read_only=True)
    try:
        assert after.differences(fresh.snapshot()) == []
    finally:
        fresh.close()


def test_writes_killed_midway_leave_no_partial_or_missing_note(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    counts, leftovers = write_rounds(vault, tmp_path / "fresh" / "vault", 6, random.Random(5))
    print(counts.line("writes under kill -9 (short)") + f", leftover temp files {leftovers}")
    assert counts.failures == []
    assert counts.faults >= 2


def test_indexing_and_searching_never_change_a_vault_file(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    before = vault_digest(vault)
    times = {p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file()}
    kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder())
    try:
        kb.indexer.run()
        kb.indexer.run()
        for name, args in (
            ("kb_search", {"query": "watch firmware battery"}),
            ("kb_search", {"query": "Zephyr", "mode": "keyword"}),
            ("kb_get", {"id": "person:andrei_clodius"}),
            ("get_chunk", {"chunk_id": "person:andrei_clodius_chunk_0"}),
            ("knowledge_query", {"query": "gesture recognition"}),
            ("kg_get_neighbors", {"entityId": "person:andrei_clodius"}),
            ("kg_find_duplicates", {}),
        ):
            assert kb.call(name, args)["ok"], name
    finally:
        kb.close()
    assert vault_digest(vault) == before
    assert {p: p.stat().st_mtime_ns for p in times} == times


def test_a_killed_writes_temp_file_is_swept_by_the_next_write_only_when_stale(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "vault" / "imports"
    folder.mkdir(parents=True)
    stale, live = folder / ".kbtui-dead.tmp", folder / ".kbtui-live.tmp"
    stale.write_text("half a no")
    live.write_text("being written")
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))
    written = folder / "Note.md"
    create_file(written, b"# Note\n")  # the new-note primitive of the write path
    assert written.read_text() == "# Note\n"
    assert not stale.exists() and live.exists()


def test_killed_while_text_buffers_are_mapped_leaves_nothing_stale(tmp_path: Path) -> None:
    """The chunk texts' temporary buffers (kbtui/store/side/chunk_cache.py) have no name: a
    process killed with them mapped leaves no file behind but the checked side file
    (chunk_side.py), and the next open reads the same rows."""
    vault = copy_vault(tmp_path / "vault")
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    cids = [int(c) for c in store.embedded_cids()]
    expected = store.chunk_details(cids)
    store.close()
    before = {p.name for p in settings.index_dir.iterdir()}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD_READS, str(settings.db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "mapped"  # the buffers exist and are in use
    child.kill()
    child.wait()
    left = {p.name for p in settings.index_dir.iterdir()} - before
    named = {name for name in left if not name.startswith("index.duckdb")}
    assert named <= {"chunks.arrays"}  # the side file (chunk_side.py), checked at each open
    again = Store(settings.db_path)
    assert again.chunk_details(cids) == expected
    again.close()


CHILD_READS = """import sys
from pathlib import Path
from kbtui.store import Store
store = Store(Path(sys.argv[1]))
store.chunk_details([int(c) for c in store.embedded_cids()])
print("mapped", flush=True)
sys.stdin.read()  # held open, mapped, until killed
"""


def test_killed_while_writing_a_side_file_leaves_a_true_index(tmp_path: Path) -> None:
    """The search indexes' side files (kbtui/store/side/arrays.py): a process killed between
    writing one and renaming it into place leaves the previous file, which the next start
    catches up (or rebuilds), and a stray temporary file the next write removes."""
    vault = copy_vault(tmp_path / "vault")
    index_dir = Settings.for_vault(vault).index_dir
    assert run_child("index", vault).returncode == 0
    made = {p.name: p.read_bytes() for p in index_dir.glob("*.arrays") if "facts" not in p.name}
    assert len(made) == 2  # keywords, vectors (the facts of the close: test_open_facts.py)
    folders = ("people", "concepts", "projects", "meetings", "orgs", "tech", "daily")
    for note in (n for f in folders for n in (vault / f).glob("*.md")):  # past STALE_FRACTION
        note.write_text(note.read_text() + "\n\nrewritten watch battery sync offline\n")
    proc = run_child("index", vault, "--fault", "side", "--p", "1")
    assert proc.returncode == KILLED
    assert list(index_dir.glob("*.arrays.tmp-*"))  # killed after the write, before the rename
    assert {p.name: p.read_bytes() for p in index_dir.glob("*.arrays") if p.name in made} == made
    assert side_file_differences(vault) == []
    assert run_child("index", vault).returncode == 0
    assert not list(index_dir.glob("*.arrays.tmp-*"))
    assert side_file_differences(vault) == []
