"""Issue 42 item 5: the commands of the official Obsidian CLI as its help page writes them
(`key=value`, bare flags) beside kbtui's flags, through one parser (kbtui.cli.common); and
the answers it adds: `properties name=`, `tags file=`, `task daily line=N` / `file= line=`,
`search:context path=`, tags in the case first written, `tag ... total` as occurrences,
`base:query`'s default format said in its help. Click's runner on a vault written here,
indexed into a real DuckDB file."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtui.cli import main
from kbtui.cli.common import obsidian_args
from kbtui.cli.vault_cmds import search_context, tag, tags
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.shared import SharedVault

RECIPE = """\
---
tags: [Cooking]
status: draft
---
# Recipe

- [ ] buy flour #Cooking
- [ ] bake #COOKING

A total of two.
"""
NOTES = {
    "Recipe.md": RECIPE,
    "Zed.md": "---\nstatus: ok\n---\nSee [[Recipe]] #cooking\n",
    "Kitchen/Bread.md": "More flour here.\n",
    "Books.base": 'views:\n  - type: table\n    name: All\n    filters: file.hasTag("cooking")\n',
    f"{dt.date.today().isoformat()}.md": "- [ ] call Ana\n",  # today's daily note
}


def run(vault: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    assert result.exit_code == 0, (args, result.output)
    return result.output


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The vault, held open by one long-lived owner (as the TUI or `kbtui mcp` holds it): each
    command reaches it instead of opening the DuckDB file again."""
    root = tmp_path_factory.mktemp("obsidian_args") / "vault"
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    owner = SharedVault(Settings.for_vault(root), HashEmbedder, long_lived=True, watch=False)
    owner.reindex(embed=False)
    yield root
    owner.close()


def test_tags_keep_the_case_first_written_and_count_notes(vault: Path) -> None:
    assert run(vault, "tags", "counts") == "tag\tcount\n#Cooking\t2\n"
    assert run(vault, "tags", "--counts") == run(vault, "tags", "counts")


def test_tag_total_counts_occurrences(vault: Path) -> None:
    """Recipe writes it three times (its properties, #Cooking, #COOKING), Zed once."""
    assert run(vault, "tag", "name=cooking", "total") == "4\n"
    assert run(vault, "tag", "cooking", "--total") == "4\n"
    assert run(vault, "tag", "#Cooking", "verbose") == "#Cooking\t4\nRecipe.md\t3\nZed.md\t1\n"


def test_one_files_tags(vault: Path) -> None:
    assert run(vault, "tags", "file=Recipe", "counts") == "tag\tcount\n#Cooking\t2\n#COOKING\t1\n"
    assert run(vault, "tags", "--path", "Zed.md") == "tag\n#cooking\n"


def test_one_propertys_count(vault: Path) -> None:
    assert run(vault, "properties", "name=status") == "2\n"
    assert run(vault, "properties", "--name", "tags") == "1\n"
    assert run(vault, "properties", "name=missing") == "0\n"


def test_search_context_takes_path_and_folder(vault: Path) -> None:
    want = "Kitchen/Bread.md:1: More flour here.\n"
    assert run(vault, "search:context", "query=flour", "path=Kitchen") == want
    assert run(vault, "search:context", "flour", "--path", "Kitchen") == want
    assert run(vault, "search:context", "flour", "--folder", "Kitchen") == want
    # a flag's name as the only word is the query, not the flag
    assert run(vault, "search:context", "total") == "Recipe.md:10: A total of two.\n"


def test_base_query_says_its_default_format(vault: Path) -> None:
    assert "Obsidian's CLI defaults to json" in " ".join(run(vault, "base:query", "--help").split())
    rows = json.loads(run(vault, "base:query", "file=Books", "format=json"))
    assert [r["path"] for r in rows] == ["Recipe.md", "Zed.md"]


def test_links_and_reads_by_file_and_path(vault: Path) -> None:
    assert run(vault, "backlinks", "file=Recipe", "counts") == "file\tcount\nZed.md\t1\n"
    assert run(vault, "links", "path=Zed.md", "total") == "1\n"
    assert run(vault, "outline", "file=Recipe", "format=md") == "# Recipe\n"
    assert run(vault, "property:read", "name=status", "file=Zed") == "ok\n"


def test_the_helps_everyday_examples_run_as_written(vault: Path) -> None:
    assert run(vault, "daily:append", "content=- [ ] Buy groceries") == (
        f"Appended to {dt.date.today().isoformat()}.md\n"
    )
    assert "- [ ] Buy groceries\n" in run(vault, "tasks", "daily")
    assert run(vault, "tags", "counts") == "tag\tcount\n#Cooking\t2\n"


def test_task_by_file_and_line_and_in_the_daily_note(vault: Path) -> None:
    shown = run(vault, "task", "file=Recipe", "line=7")
    assert "text\t- [ ] buy flour #Cooking\n" in shown
    assert run(vault, "task", "ref=Recipe.md:8", "done") == "- [x] bake #COOKING\n"
    assert (
        run(vault, "task", "--file", "Recipe", "--line", "8", "--todo") == "- [ ] bake #COOKING\n"
    )
    assert run(vault, "task", "daily", "line=1", "toggle") == "- [x] call Ana\n"
    assert run(vault, "task", "--daily", "--line", "1", "--toggle") == "- [ ] call Ana\n"
    refused = CliRunner().invoke(main, ["task", "line=3", "--vault", str(vault)])
    assert refused.exit_code == 2 and "--daily --line N" in refused.output


def test_one_parser_reads_obsidians_style() -> None:
    """Keys name options or arguments; a bare word is a flag unless an argument needs it."""
    assert obsidian_args(tags, ["counts", "sort=count", "format=json"]) == [
        "--counts", "--sort", "count", "--format", "json"
    ]  # fmt: skip
    assert obsidian_args(tag, ["total"]) == ["total"]
    assert obsidian_args(tag, ["work", "total"]) == ["work", "--total"]
    assert obsidian_args(search_context, ["query=a=b", "case"]) == ["--case", "--", "a=b"]
    assert obsidian_args(search_context, ["--", "case"]) == ["--", "case"]
    assert obsidian_args(tag, ["x", "--", "total"]) == ["x", "--", "total"]
