"""`kbtui dataview` and `kbtui tasks:query` in a fresh process open the index alone
(kbtui.runtime.reader): they answer exactly as the shared path does (the same envelope, its
`index` included) without building or importing the knowledge base's search, indexer and tool
table (issue 41 item 6: a fresh CLI within 1 s); with an owner running, they ask it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.shared import open_vault, open_vault_once
from tests.dataview_kit import indexed_vault

NOTES = {
    "Books/Dune.md": "---\nrating: 9\n---\n#book\nauthor:: [[Frank Herbert]]\n"
    "- [ ] reread chapter 1 📅 2024-03-04\n    - [x] find the copy\n",
    "Books/Emma.md": "#book\nrating:: 7\n- [ ] lend it 📅 2024-02-01\n- [x] finished\n",
}
DQL = "TASK FROM #book WHERE !completed SORT due"
TASKS = "not done\nsort by due"
# modules only the knowledge base's other parts use: a one-shot query loads none of them
NOT_LOADED = (
    "kbtui.indexing.indexer",
    "kbtui.search.service",
    "kbtui.tools.registry",
    "kbtui.runtime.knowledge_base",
    "markdown_it",
)
PROBE = f"""
import sys
from kbtui.cli import main
try:
    main(sys.argv[1:])
finally:
    print("LOADED:" + ",".join(sorted(set(sys.modules) & set({NOT_LOADED!r}))), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_vault(tmp_path_factory.mktemp("light") / "vault", NOTES)


def fresh(vault: Path, *args: str) -> tuple[Any, str]:
    """A command's JSON answer in a fresh interpreter, and the modules of NOT_LOADED it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args, "--vault", str(vault)],
        capture_output=True,
        text=True,
        env={**os.environ, "KBTUI_VAULT": ""},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("LOADED:")][-1]
    return json.loads(done.stdout), line.removeprefix("LOADED:")


def test_a_fresh_query_opens_the_index_alone_and_answers_as_the_shared_path(vault: Path) -> None:
    settings = Settings.for_vault(vault)
    with open_vault_once(settings, lambda: None) as shared:
        expected = shared.call("app_dataview", {"query": DQL, "markdown": True})  # md: the default
        tasks = shared.call("app_tasks_query", {"query": TASKS, "today": "2024-03-01"})
    answer, loaded = fresh(vault, "dataview", DQL, "--json")
    assert loaded == ""
    assert answer == expected  # rows, paths, markdown and `index`
    assert answer["paths"] == ["Books/Emma.md:3", "Books/Dune.md:6", "Books/Dune.md:7"]
    listed, loaded = fresh(vault, "tasks:query", TASKS, "--today", "2024-03-01", "--format", "json")
    assert loaded == ""
    assert [(t["file"], int(t["line"])) for t in listed] == [
        (t["file"], t["line"]) for t in tasks["results"]
    ]
    assert [(t["file"], t["line"]) for t in listed] == [
        ("Books/Emma.md", "3"),
        ("Books/Dune.md", "6"),
    ]


def test_with_an_owner_running_the_query_goes_to_it(vault: Path) -> None:
    settings = Settings.for_vault(vault)
    with open_vault(settings, HashEmbedder, watch=False) as owner:
        assert owner.role == "owner"
        answer, _ = fresh(vault, "dataview", DQL, "--json")
    assert answer["ok"] and answer["paths"] == [
        "Books/Emma.md:3",
        "Books/Dune.md:6",
        "Books/Dune.md:7",
    ]
