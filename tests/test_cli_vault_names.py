"""Vault commands a new user met: `kbtui tasks --daily` (Obsidian CLI's `tasks daily`): the
tasks of today's daily note only (where `.obsidian/daily-notes.json` puts it), none before it
exists; `kbtui bases` with no base, and before the vault is indexed. Real processes, real
DuckDB files, real files."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path


def kbtui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


def test_tasks_daily_lists_only_todays_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps({"folder": "Journal"}))
    (vault / "Journal").mkdir()
    (vault / "Journal" / "2020-01-01.md").write_text("- [ ] an old day's task\n")
    (vault / "todo.md").write_text("- [ ] not in the daily note\n")
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    none_yet = kbtui("tasks", "--daily", "--total", "--vault", str(vault))
    assert none_yet.returncode == 0, none_yet.stderr
    assert none_yet.stdout.strip() == "0"

    today = vault / "Journal" / f"{dt.date.today().isoformat()}.md"
    today.write_text("# Today\n\n- [ ] call the bank\n- [x] water the plants\n")
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    listed = kbtui("tasks", "--daily", "--todo", "--vault", str(vault))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["- [ ] call the bank"]
    counted = kbtui("tasks", "--daily", "--total", "--vault", str(vault))
    assert counted.stdout.strip() == "2"


def test_bases_in_a_vault_without_any_says_so(tmp_path: Path) -> None:
    """`kbtui bases` on vault_example-like vaults printed nothing at all: a new user could not
    tell "none" from "broken". stdout stays empty (a list of none); stderr says it."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("A note and no base.\n")
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    res = kbtui("bases", "--vault", str(vault))
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    assert "no bases in this vault" in res.stderr


def test_bases_in_a_vault_never_indexed_say_how_to_index(tmp_path: Path) -> None:
    """`kbtui bases` said "no bases in this vault" and `base:query` printed 0 rows for a note
    whose ```base block it read: bases come from the index, so, as `kbtui search` and `get`,
    a vault never indexed is an error that says to run `kbtui index`."""
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "people" / "ada.md").write_text("Ada Lovelace.\n")
    block = '```base\nfilters: file.inFolder("people")\nviews:\n  - type: table\n    name: P\n```\n'
    (vault / "Reading.md").write_text(f"# Reading\n\n{block}")
    for args in (["bases"], ["base:views", "Reading"], ["base:query", "Reading"]):
        res = kbtui(*args, "--vault", str(vault))
        assert res.returncode == 1, (args, res.stdout)
        assert "no notes are indexed yet; run `kbtui index`" in res.stderr, args
        assert "no bases" not in res.stderr and "0 rows" not in res.stdout
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    listed = kbtui("bases", "--vault", str(vault))
    assert listed.returncode == 0 and "Reading.md (```base at line 3): P (table)" in listed.stdout
    rows = kbtui("base:query", "Reading", "--format", "paths", "--vault", str(vault))
    assert rows.returncode == 0 and rows.stdout.splitlines() == ["people/ada.md"]
