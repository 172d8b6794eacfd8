"""Issue 42 item 2: `kbtui base:query` on a view with `groupBy` prints its rows under their
groups, as Obsidian draws them: in the table and md formats a line (heading) per group, in
csv/tsv a first column with the group's value; rows without a value are the group "None"."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.test_bases_tools import run, write


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = write(tmp_path_factory.mktemp("groups") / "vault")
    (vault / "Books" / "Anon.md").write_text("---\ntags: [book]\nrating: 4\n---\nNo author.\n")
    code, out = run(vault, "index", "--no-embed")
    assert code == 0, out
    return vault


def query(vault: Path, fmt: str) -> str:
    code, out = run(vault, "base:query", "Books", "--view", "By author", "--format", fmt)
    assert code == 0, out
    return out


def test_the_table_shows_each_group_its_rows_and_its_summaries(vault: Path) -> None:
    lines = [ln.strip("│ ").split("│")[0].strip() for ln in query(vault, "table").splitlines()]
    at = {text: n for n, text in enumerate(lines) if text}
    assert at["▸ Frank Herbert (1)"] < at["Dune"] < at["▸ Jane Austen (2)"]
    assert at["▸ Jane Austen (2)"] < at["Emma"] < at["Persuasion"] < at["▸ None (1)"] < at["Anon"]
    out = query(vault, "table")
    assert "Sum: 15" in out and "Sum: 9" in out  # each group's summary under its column
    assert "Sum of rating: 28" in out  # and the view's, after the rows


def test_markdown_puts_a_heading_over_each_groups_table(vault: Path) -> None:
    assert query(vault, "md").splitlines() == [
        "### Frank Herbert", "",
        "| Base name | rating |", "| --- | --- |", "| Dune | 9 |", "",
        "### Jane Austen", "",
        "| Base name | rating |", "| --- | --- |", "| Emma | 7 |", "| Persuasion | 8 |", "",
        "### None", "",
        "| Base name | rating |", "| --- | --- |", "| Anon | 4 |",
    ]  # fmt: skip


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_start_with_the_group_column(vault: Path, fmt: str) -> None:
    sep = "," if fmt == "csv" else "\t"
    table = list(csv.reader(io.StringIO(query(vault, fmt)), delimiter=sep))
    assert table == [
        ["Author", "Base name", "rating"],  # the groupBy property's displayName
        ["Frank Herbert", "Dune", "9"],
        ["Jane Austen", "Emma", "7"],
        ["Jane Austen", "Persuasion", "8"],
        ["", "Anon", "4"],  # no value: an empty cell, not a word
    ]


def test_the_answer_names_the_property_a_view_groups_by(vault: Path) -> None:
    code, out = run(vault, "base:query", "Books", "--view", "By author", "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["groupBy"] == {"id": "note.author", "name": "Author", "direction": "ASC"}
    assert [g["label"] for g in answer["groups"]] == ["Frank Herbert", "Jane Austen", ""]
    _, out = run(vault, "base:query", "Books", "--json")  # a view without groups
    assert "groupBy" not in json.loads(out)
