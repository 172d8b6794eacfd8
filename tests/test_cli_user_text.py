"""Text from the vault prints as written: square brackets in titles, paths, patterns are not
Rich style tags (a new user's `[wip] plan.md` lost its `[wip]` in `kbtui index` and `kbtui
query`, and the id pattern in `kbtui get`'s error printed as `^+:+$`). Real processes, the real
model, a real DuckDB file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def kbtui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=300,
    )


@pytest.fixture(scope="module")
def bracket_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("brackets") / "vault"
    (vault / "plans").mkdir(parents=True)
    (vault / "plans" / "[wip] zorgon.md").write_text(
        '---\ntitle: "[bold] zorgon plan"\n---\n# Zorgon\n\n'
        "The zorgon quarterly plan keeps [red] and [/] as written.\n",
        encoding="utf-8",
    )
    first = kbtui("index", "--vault", str(vault))
    assert first.returncode == 0, first.stderr
    return vault


def test_query_prints_a_bracketed_title_as_written(bracket_vault: Path) -> None:
    res = kbtui("query", "zorgon quarterly plan", "--top-k", "1", "--vault", str(bracket_vault))
    assert res.returncode == 0, res.stderr
    assert "[bold] zorgon plan" in res.stdout
    assert "keeps [red] and [/] as written" in res.stdout


def test_get_header_names_one_chunk_in_the_singular(bracket_vault: Path) -> None:
    res = kbtui("get", "plan:wip_zorgon", "--vault", str(bracket_vault))
    assert res.returncode == 0, res.stderr
    head = res.stdout.splitlines()[0]
    assert head.startswith("[bold] zorgon plan  plan:wip_zorgon · plans/[wip] zorgon.md")
    assert head.endswith("· 1 chunk"), head


def test_a_tool_error_prints_its_pattern_whole(bracket_vault: Path) -> None:
    res = kbtui("get", "Zorgon plan", "--vault", str(bracket_vault))
    assert res.returncode == 1
    assert "must match ^[a-z_]+:[a-z0-9_]+$" in res.stderr, res.stderr


def test_index_reports_a_rename_with_its_brackets(bracket_vault: Path) -> None:
    old = bracket_vault / "plans" / "[wip] zorgon.md"
    new = bracket_vault / "plans" / "[done] zorgon.md"
    old.rename(new)
    try:
        res = kbtui("index", "--vault", str(bracket_vault))
        assert res.returncode == 0, res.stderr
        assert "renamed plans/[wip] zorgon.md -> plans/[done] zorgon.md" in res.stdout
    finally:
        new.rename(old)
        kbtui("index", "--vault", str(bracket_vault))


def test_a_dry_run_counts_the_files_that_change(tmp_path: Path) -> None:
    """The moved note, when nothing in it changes, is neither listed as `0 link(s)` nor
    counted: `6 link(s) in 7 file(s)` for six links in six notes puzzled a new user."""
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people" / "Steph Ango.md").write_text("Designer of the zorgon app.\n")
    (vault / "a.md").write_text("Met [[Steph Ango]] today.\n")
    (vault / "b.md").write_text("Ask [[Steph Ango|Steph]] about it.\n")
    assert kbtui("index", "--vault", str(vault)).returncode == 0
    res = kbtui("mv", "Steph Ango", "team/Steph", "--dry-run", "--vault", str(vault))
    assert res.returncode == 0, res.stderr
    listed = [line.split(":")[0].strip() for line in res.stdout.splitlines() if "link(s)" in line]
    assert listed == ["a.md", "b.md"]
    assert "would rewrite 2 link(s) in 2 file(s)" in res.stderr
