"""vault_query, the one MCP tool for a vault's dashboards (issue 41, interfaces): queries of
every language and a note's Nth query block, through the SDK's client against a real server
(in-process, HTTP, as tests/test_mcp_scope.py), then `kbtui blocks` and `kbtui block:run`
(click's runner) over the same tool, and a note indexed by its own text, not its results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.catalog import PUBLISHED
from tests.conftest import open_runtime
from tests.test_bases_tools import run
from tests.test_mcp_scope import Client, client, full_token, served

DASH = """\
# Dash

```dataview
TABLE rating FROM #book SORT rating DESC
```

```tasks
not done
due before 2024-06-01
```

```dataviewjs
dv.paragraph("zanzibar")
```

```base
filters: rating > 8
views:
  - type: table
    name: Best
    order: [file.basename]
```

> [!note]
> ```tasks
> done
> ```

```tasks
filter by function task.urgency > 1
```
"""
NOTES = {
    "Books/Dune.md": "---\ntags: [book]\nrating: 9\n---\nSpice.\n\n- [ ] reread 📅 2024-03-04\n",
    "Books/Emma.md": "---\ntags: [book]\nrating: 7\n---\nA novel.\n\n- [x] finished\n",
    "Books.base": "filters: file.hasTag('book')\nviews:\n  - type: table\n    name: All\n",
    "Dash.md": DASH,
}
# the blocks of Dash.md: (line of the opening fence, language)
BLOCKS = [(3, "dataview"), (7, "tasks"), (12, "dataviewjs"), (16, "base"), (25, "tasks"),
          (29, "tasks")]  # fmt: skip


def write(vault: Path) -> Path:
    for rel, body in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(body, encoding="utf-8")
    return vault


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    rt: VaultRuntime = open_runtime(write(tmp_path_factory.mktemp("vq") / "v"), HashEmbedder())
    try:
        with served(rt) as server, client(server, full_token(rt)) as session:
            yield session
    finally:
        rt.close()


def good(mcp: Client, args: dict[str, Any]) -> dict[str, Any]:
    answer = mcp.call("vault_query", args)
    assert answer["ok"] is True, answer
    assert answer["index"]["state"] == "ready"  # the index status, as kb_search's
    return answer


def test_one_tool_lists_and_runs_every_language(mcp: Client) -> None:
    names = [t.name for t in mcp.tools()]
    assert "vault_query" in names and "base_query" not in names and "app_dataview" not in names
    listed = good(mcp, {})["blocks"]
    views = [{"name": "All", "type": "table"}]
    assert {"file": "Books.base", "language": "base", "views": views} in listed
    note = [(b["line"], b["language"]) for b in listed if b["file"] == "Dash.md"]
    assert note == BLOCKS
    assert [b["block"] for b in good(mcp, {"file": "Dash"})["blocks"]] == [1, 2, 3, 4, 5, 6]
    tasks = good(mcp, {"file": "Dash", "language": "tasks"})["blocks"]
    assert [b["block"] for b in tasks] == [2, 5, 6]  # numbered among all the note's blocks
    table = good(mcp, {"file": "Dash", "block": 1})
    assert (table["language"], table["file"], table["block"], table["line"]) == (
        "dataview", "Dash.md", 1, 3)  # fmt: skip
    assert table["rows"] == [{"File": "[[Books/Dune.md|Dune]]", "rating": 9},
                             {"File": "[[Books/Emma.md|Emma]]", "rating": 7}]  # fmt: skip
    todo = good(mcp, {"file": "Dash", "block": 2})
    assert [(t["file"], t["line"]) for t in todo["rows"]] == [("Books/Dune.md", 7)]
    assert "- [ ] reread" in todo["markdown"]
    assert [r["path"] for r in good(mcp, {"file": "Dash", "block": 4})["rows"]] == ["Books/Dune.md"]
    in_callout = good(mcp, {"file": "Dash", "block": 5})
    assert [t["text"] for t in in_callout["rows"]] == ["- [x] finished"]
    base = good(mcp, {"language": "base", "file": "Books"})
    assert base["language"] == "base" and base["count"] == 2


def test_queries_given_as_text(mcp: Client) -> None:
    listed = good(mcp, {"language": "dataview", "query": "LIST FROM #book WHERE rating > 8"})
    assert listed["paths"] == ["Books/Dune.md"]
    done = good(mcp, {"language": "tasks", "query": "done", "today": "2024-03-01"})
    assert [t["file"] for t in done["rows"]] == ["Books/Emma.md"]
    here = good(mcp, {"language": "dataview", "query": "LIST FROM [[]]", "file": "Dune"})
    assert here["rows"] == []  # `this` is the note named in file: nothing links to Dune
    cut = good(mcp, {"language": "dataview", "query": "TABLE rating FROM #book", "limit": 1})
    assert (cut["count"], cut["total"], cut["truncated"]) == (1, 2, True)
    assert "markdown" not in cut and "1 of 2 rows" in cut["message"]


def test_what_does_not_run_is_a_structured_error(mcp: Client) -> None:
    js = mcp.call("vault_query", {"file": "Dash", "block": 3})
    assert (js["ok"], js["error_type"], js["error"]["type"]) == (False, "UnsupportedError",
                                                                  "PERMANENT")  # fmt: skip
    assert "DataviewJS is not run" in js["message"] and js["rows"] == []
    assert (js["file"], js["block"], js["line"], js["language"]) == ("Dash.md", 3, 12, "dataviewjs")
    assert "filter by function" in mcp.refused("vault_query", {"file": "Dash", "block": 6},
                                               "ValidationError")  # fmt: skip
    for args, field in (
        ({"file": "Dash", "block": 7}, "block"),
        ({"file": "Dash", "block": 1, "language": "tasks"}, "language"),
        ({"query": "LIST"}, "language"),
        ({"language": "dataview", "query": "TABLE FROM WHERE ((("}, "query"),
        ({"language": "tasks", "query": "not done", "view": "All"}, "view"),
        ({"block": 1}, "file"),
    ):
        answer = mcp.call("vault_query", args)
        assert answer["error"]["type"] == "VALIDATION" and answer["error"]["field"] == field, args
    assert "vault_query" in PUBLISHED
    # a Tasks line the plugin rejects names itself; one whose words it drops runs, and says so
    typo = {"language": "tasks", "query": "not done\nsort by dew"}
    assert mcp.refused("vault_query", typo, "ValidationError").endswith(
        'do not understand query\nProblem line: "sort by dew"'
    )
    read = good(mcp, {"language": "tasks", "query": "due befor 2024-03-04"})
    assert [t["file"] for t in read["rows"]] == ["Books/Dune.md"]  # due on 2024-03-04
    assert read["warnings"] == [
        '"due befor 2024-03-04": "befor" not understood; read as "due on 2024-03-04"'
    ]


# -- the command line ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = write(tmp_path_factory.mktemp("vq_cli") / "v")
    code, out = run(vault, "index", "--no-embed")
    assert code == 0, out
    return vault


def test_blocks_lists_a_note_and_checks_the_vault(vault: Path) -> None:
    code, out = run(vault, "blocks", "Dash")
    assert code == 0, out
    assert out.splitlines() == [f"Dash.md#{n}  line {line}  {language}"
                                for n, (line, language) in enumerate(BLOCKS, 1)]  # fmt: skip
    code, out = run(vault, "blocks")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Books.base  base  ok (2 rows)"
    assert lines[1] == "Dash.md#1  line 3  dataview  ok (2 rows)"
    assert lines[3].startswith("Dash.md#3  line 12  dataviewjs  error: DataviewJS is not run")
    assert lines[6].startswith("Dash.md#6  line 29  tasks  error:") and "function" in lines[6]
    code, out = run(vault, "blocks", "--format", "json")
    checked = json.loads(out)
    assert [e["status"] for e in checked] == ["ok", "ok", "ok", "error", "ok", "ok", "error"]


def test_block_run_prints_each_language_as_its_command(vault: Path) -> None:
    code, out = run(vault, "block:run", "Dash#1", "--format", "json")
    assert code == 0 and json.loads(out)[0] == {"File": "[[Books/Dune.md|Dune]]", "rating": 9}
    _, dataview_md = run(vault, "dataview", "TABLE rating FROM #book SORT rating DESC")
    assert run(vault, "block:run", "Dash.md#1")[1] == dataview_md  # one evaluation
    assert run(vault, "block:run", "Dash#2", "--format", "paths")[1] == "Books/Dune.md:7\n"
    _, tasks_md = run(vault, "tasks:query", "not done\ndue before 2024-06-01", "--this", "Dash")
    assert run(vault, "block:run", "Dash#2")[1] == tasks_md
    assert run(vault, "block:run", "Dash#4", "--format", "paths")[1] == "Books/Dune.md\n"
    code, out = run(vault, "block:run", "Dash#3")
    assert code == 1 and "DataviewJS is not run" in out
    code, out = run(vault, "block:run", "Dash")
    assert code == 2 and "NOTE#N" in out


def test_a_note_is_searched_by_its_own_text_not_its_blocks_results(vault: Path) -> None:
    """Dash.md's blocks list Dune and Emma when run; its index holds the blocks' text only."""
    code, out = run(vault, "search", "zanzibar", "--mode", "keyword", "--json")
    assert code == 0 and [r["title"] for r in json.loads(out)["results"]] == ["Dash"]
    code, out = run(vault, "search", "reread finished novel", "--mode", "keyword", "--json")
    assert "Dash" not in [r["title"] for r in json.loads(out)["results"]]
