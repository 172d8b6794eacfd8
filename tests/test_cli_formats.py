"""Issue 42 item 6: every command that prints `--format csv` or `--format tsv` starts both with
the same header line (tsv had none); tsv cells never hold a tab or a line break and are not
quoted, so `cut -f` reads them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import click
import pytest

from kbtui.cli import main
from tests.test_bases_tools import run

NOTES = {
    "Books.base": "views:\n  - type: table\n    name: All\n    order: [file.name, rating]\n",
    "Dune.md": "---\ntags: [book]\nrating: 9\n---\nSee [[Emma]] and [[Ghost]].\n\n"
    '- [ ] Read "it"\n',
    "Emma.md": "---\ntags: [book, classic]\nrating: 7\n---\nSee [[Dune]]. #classic\n",
    "Dash.md": "```dataview\nTABLE rating FROM #book SORT rating DESC\n```\n",
}
# every command with a tsv format, the arguments it runs with here, its header
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "backlinks": (["Dune", "--counts"], ["file", "count"]),
    "unresolved": (["--counts"], ["link", "count"]),
    "tasks": ([], ["status", "text", "file", "line"]),
    "tags": (["--counts"], ["tag", "count"]),
    "properties": (["--counts"], ["name", "type", "count"]),
    "base:query": (["Books"], ["File name", "rating"]),
    "dataview": (["TABLE rating FROM #book SORT rating DESC"], ["File", "rating"]),
    "blocks": (
        [],
        ["file", "block", "line", "language", "status", "rows", "error_type", "message"],
    ),
    "block:run": (["Dash#1"], ["File", "rating"]),
}


def tsv_commands() -> set[str]:
    """The commands whose --format offers tsv, found in the CLI itself."""
    found = set()
    for name, command in main.commands.items():
        for param in command.params:
            choice = isinstance(param.type, click.Choice)
            if param.name == "fmt" and choice and "tsv" in param.type.choices:
                found.add(name)
    return found


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("formats") / "vault"
    vault.mkdir()
    for rel, body in NOTES.items():
        (vault / rel).write_text(body, encoding="utf-8")
    code, out = run(vault, "index", "--no-embed")
    assert code == 0, out
    return vault


def test_every_tsv_command_is_checked_here() -> None:
    assert tsv_commands() == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_csv_and_tsv_start_with_the_same_header(vault: Path, name: str) -> None:
    args, header = COMMANDS[name]
    code, as_tsv = run(vault, name, *args, "--format", "tsv")
    assert code == 0, as_tsv
    lines = [line.split("\t") for line in as_tsv.splitlines()]
    assert lines[0] == header and len(lines) > 1
    if name == "properties":  # yaml, json or tsv, as the Obsidian CLI's `properties`
        return
    code, as_csv = run(vault, name, *args, "--format", "csv")
    assert code == 0, as_csv
    rows = list(csv.reader(io.StringIO(as_csv)))
    assert rows == lines  # the same header and cells, unquoted in tsv


def test_tsv_cells_are_written_as_they_are(vault: Path) -> None:
    code, out = run(vault, "tasks", "--format", "tsv")
    assert code == 0, out
    assert out.splitlines() == ["status\ttext\tfile\tline", ' \t- [ ] Read "it"\tDune.md\t7']
