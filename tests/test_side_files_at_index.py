"""Issue 28 item 8: the search side files are written at the end of an index pass, not by
the first search (which took 10 s after a cold index of obsidian-hub, 1.4 s after)."""

from __future__ import annotations

from pathlib import Path

from kbtui.embed import HashEmbedder
from tests.conftest import copy_vault, open_runtime
from tests.test_cli import kbtui

SIDE_FILES = ("keywords.arrays", "vectors.f16.arrays", "chunks.arrays")


def stamps(index_dir: Path) -> dict[str, int]:
    return {name: (index_dir / name).stat().st_mtime_ns for name in SIDE_FILES}


def test_kbtui_index_leaves_the_side_files_and_search_reuses_them(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    done = kbtui("index", "--vault", str(vault))
    assert done.returncode == 0, done.stderr
    index_dir = vault / ".kbtui"
    missing = [name for name in SIDE_FILES if not (index_dir / name).exists()]
    assert not missing, sorted(p.name for p in index_dir.iterdir())
    before = stamps(index_dir)
    found = kbtui("search", "Vector Watch", "--vault", str(vault))
    assert found.returncode == 0 and "No results" not in found.stdout, found.stdout
    assert stamps(index_dir) == before  # mapped, not written again


def test_a_side_file_deleted_is_back_after_the_next_pass(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    assert kbtui("index", "--vault", str(vault), "--no-embed").returncode == 0
    (vault / ".kbtui" / "keywords.arrays").unlink()
    assert kbtui("index", "--vault", str(vault), "--no-embed").returncode == 0  # nothing new
    assert (vault / ".kbtui" / "keywords.arrays").exists()


def test_the_background_first_pass_writes_them_too(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    runtime = open_runtime(vault, HashEmbedder())
    try:
        index_dir = runtime.settings.index_dir
        # the chunk texts wait for a search (the first note opened must not wait for them)
        assert all((index_dir / name).exists() for name in SIDE_FILES[:2])
        assert runtime.kb.store._chunk_cache is None
    finally:
        runtime.close()
