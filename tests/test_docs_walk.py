"""A new user types the README's "Everyday use" commands as written: each one answers (exit 0,
something printed) on a copy of vault_example, and the Bases lines on a copy of kepano's vault
(vault_example has no base). The block once named a note by its title where the Obsidian CLI
names take a file name, and showed bases and due dates the example vault does not have.
Real processes, the real model, real DuckDB files."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import copy_vault

REPO = Path(__file__).resolve().parent.parent
KEPANO = Path("/work/shared/data/vaults/kepano")
NOT_HERE = {(), ("index",)}  # the TUI needs a terminal; the index is built first


def everyday_commands() -> tuple[list[list[str]], list[list[str]]]:
    """The block's commands: those for vault_example, then those after the Bases comment."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Everyday use", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    example: list[list[str]] = []
    bases: list[list[str]] = []
    into = example
    for line in block.splitlines():
        if line.startswith("# Obsidian Bases"):
            into = bases
        words = shlex.split(line, comments=True)
        if words and words[0] == "kbtui" and tuple(words[1:]) not in NOT_HERE:
            into.append(words[1:])
    return example, bases


def kbtui(args: list[str], vault: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args, "--vault", str(vault)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "160"},
        timeout=300,
    )


def test_the_everyday_commands_answer_on_the_example_vault(tmp_path: Path) -> None:
    example, _ = everyday_commands()
    assert len(example) >= 15, "the README's Everyday use block moved"
    vault = copy_vault(tmp_path / "vault")
    (tmp_path / "notes.txt").write_text("Rate limits: 100 requests a minute per token.\n")
    assert kbtui(["index"], vault, tmp_path).returncode == 0
    failed = []
    for args in example:
        res = kbtui(args, vault, tmp_path)
        if res.returncode != 0 or not res.stdout.strip():
            failed.append(f"kbtui {shlex.join(args)} -> {res.returncode}: {res.stderr[-300:]}")
    assert not failed, "\n".join(failed)


def test_the_bases_lines_answer_on_kepanos_vault(tmp_path: Path) -> None:
    _, bases = everyday_commands()
    assert bases, "the README shows no Bases command"
    vault = tmp_path / "kepano"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    assert kbtui(["index", "--no-embed"], vault, tmp_path).returncode == 0
    for args in bases:
        res = kbtui(args, vault, tmp_path)
        assert res.returncode == 0, res.stderr
        assert re.search(r"Books|Out of Control", res.stdout), res.stdout


def doc_examples(page: str) -> list[tuple[list[str], list[str]]]:
    """A page's indented `$ kbtui ...` lines, each with the output lines shown under it;
    `...` in the output stands for text left out."""
    examples: list[tuple[list[str], list[str]]] = []
    shown: list[str] | None = None
    for line in (REPO / "docs" / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("    $ kbtui "):
            shown = []
            examples.append((shlex.split(line[len("    $ kbtui ") :]), shown))
        elif line.startswith("    ") and shown is not None:
            shown.append(line.strip())
        else:
            shown = None
    return examples


def test_the_renaming_page_shows_what_kepanos_vault_prints(tmp_path: Path) -> None:
    examples = [(a, s) for a, s in doc_examples("renaming.md") if "--force" not in a or s]
    assert len(examples) == 2, examples
    vault = tmp_path / "kepano"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    assert kbtui(["index", "--no-embed"], vault, tmp_path).returncode == 0
    for args, shown in examples:
        res = kbtui(args, vault, tmp_path)
        printed = " ".join((res.stdout + res.stderr).split())
        for part in " ".join(shown).split("..."):
            assert " ".join(part.split()) in printed, f"kbtui {shlex.join(args)}: {part!r}"
