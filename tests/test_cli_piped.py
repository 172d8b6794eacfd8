"""Issue 28 item 15: piped output is never wrapped (Rich would cut every line at 80 columns):
the real CLI in a process whose stdout is a pipe, `| grep` style, gets whole lines from the
index summary and its warnings, `mv`, and the `entity` table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import copy_vault

LONG = "A note whose file name is long enough that no line about it fits in eighty columns"


def kbtui(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args],
        capture_output=True,  # stdout and stderr are pipes
        text=True,
        env=env,
        timeout=300,
    )


def test_piped_lines_are_whole(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    for folder in ("projects", "concepts"):  # same name, same type: a warning names both
        (vault / folder / f"{LONG}.md").write_text("---\ntype: idea\n---\n# Long\n\nText.\n")
    got = kbtui("index", "--vault", str(vault), "--no-embed")
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert any(line.startswith("Indexed ") and line.endswith("index.duckdb") for line in lines)
    warned = [line for line in lines if "warning" in line and LONG in line]
    assert warned and all(len(line) > 120 for line in warned), got.stdout
    assert all(
        f"{folder}/{LONG}.md" in warned[0] or f"{folder}/{LONG}.md" in warned[-1]
        for folder in ("projects", "concepts")
    )

    got = kbtui("entity", "long enough", "--vault", str(vault))
    assert got.returncode == 0, got.stderr
    rows = [line for line in got.stdout.splitlines() if "idea:" in line]
    assert len(rows) == 2 and all(LONG in row for row in rows), got.stdout

    got = kbtui("mv", "person:andrei_clodius", f"people/{LONG} Andrei", "--vault", str(vault))
    assert got.returncode == 0, got.stderr
    assert f"Renamed people/andrei_clodius.md -> people/{LONG} Andrei.md;" in got.stdout
    done = [line for line in got.stdout.splitlines() if line.startswith("Renamed ")]
    assert done and done[0].endswith("file(s)"), got.stdout

    got = kbtui("get", "person:maya_okafor", "--vault", str(vault))
    assert got.returncode == 0, got.stderr
    note = (vault / "people" / "maya_okafor.md").read_text().splitlines()
    long_lines = [line for line in note if len(line) > 100 and not line.startswith("---")]
    assert long_lines and all(line in got.stdout.splitlines() for line in long_lines)
