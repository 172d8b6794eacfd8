"""vault_links (kbtui backlinks / links / unresolved / orphans / deadends) equal to an
independent reading of the files (tests/obsidian_oracle.py) on kepano's vault, vault_example
and a vault written with markdown links, each indexed into a real DuckDB file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import VAULT_EXAMPLE, open_runtime
from tests.obsidian_oracle import Oracle

KEPANO = Path("/work/shared/data/vaults/kepano")


def md_vault(root: Path) -> Path:
    """A small vault linked the Hugo/MkDocs way: markdown links only, every form."""
    files = {
        "index.md": "# Home\n\n[Guide](docs/Getting%20started.md), [API](<docs/api/Reference.md>)"
        " and [gone](docs/missing.md).\n",
        "docs/Getting started.md": "# Start\n\nSee [ref](api/Reference.md#Errors), "
        "[home](../index.md) and ![diagram](../img/flow%20chart.png).\n\n"
        "```\n[not a link](nowhere.md)\n```\n",
        "docs/api/Reference.md": "# Reference\n\n## Errors\n\nBack to "
        "[start](../Getting%20started.md) and [site](https://example.com) and [top](/index.md).\n",
        "docs/api/Lonely.md": "# Lonely\n\nNo links here, only `[code](index.md)`.\n",
        "notes/Mixed.md": "[[Reference]] and [x](Lonely.md) and [y](./nope.md) and [[Ghost]]\n",
        "img/flow chart.png": "",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.fixture(scope="module", params=["kepano", "vault_example", "markdown"])
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[VaultRuntime]:
    root = tmp_path_factory.mktemp(request.param) / "vault"
    if request.param == "markdown":
        md_vault(root)
    else:
        source = KEPANO if request.param == "kepano" else VAULT_EXAMPLE
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".kbtui"))
    runtime = open_runtime(root, HashEmbedder())
    yield runtime
    runtime.close()


def _results(rt: VaultRuntime, kind: str, note: str | None = None) -> list[dict]:
    args = {"kind": kind} | ({"note": note} if note else {})
    answer = rt.call("vault_links", args)
    assert answer["ok"], answer
    assert answer["index"]["state"] == "ready"
    return answer["results"]


def _indexed_notes(rt: VaultRuntime, oracle: Oracle) -> list[str]:
    """The notes the index holds (an unreadable file is reported and skipped by both)."""
    return [p for p in oracle.notes if rt.kb.store.note_by_name(p) == p]


def test_backlinks_equal_independent_count(indexed: VaultRuntime) -> None:
    oracle = Oracle(indexed.settings.vault)
    notes = _indexed_notes(indexed, oracle)
    checked = 0
    for note in notes:
        got = {r["file"]: r["count"] for r in _results(indexed, "backlinks", note)}
        expected = {k: v for k, v in oracle.backlinks(note).items() if k in notes}
        assert got == expected, note
        checked += bool(got)
    assert checked >= 3  # notes with backlinks were compared, not only empty answers


def test_unresolved_orphans_deadends_equal_independent(indexed: VaultRuntime) -> None:
    oracle = Oracle(indexed.settings.vault)
    notes = _indexed_notes(indexed, oracle)
    got = {r["link"]: r["count"] for r in _results(indexed, "unresolved")}
    expected = {
        t: n
        for t, n in oracle.unresolved().items()
        if any(t == lt for src in notes for lt, d in oracle.links[src] if d is None)
    }
    assert got == expected
    assert [r["file"] for r in _results(indexed, "orphans")] == [
        p for p in oracle.orphans() if p in notes
    ]
    assert [r["file"] for r in _results(indexed, "deadends")] == [
        p for p in oracle.deadends() if p in notes
    ]


def test_markdown_vault_answers(tmp_path: Path) -> None:
    """What a user of a markdown-link site sees, command by command (real CLI, real index)."""
    vault = md_vault(tmp_path / "site")

    def kbtui(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "kbtui.cli", *args, "--vault", str(vault)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    kbtui("index", "--no-embed")
    assert json.loads(kbtui("backlinks", "docs/Getting started.md", "--format", "json")) == [
        {"file": "docs/api/Reference.md", "count": "1"},
        {"file": "index.md", "count": "1"},
    ]
    assert (
        kbtui("backlinks", "Reference", "--counts")
        == "docs/Getting started.md\t1\nindex.md\t1\nnotes/Mixed.md\t1\n"
    )
    assert json.loads(kbtui("unresolved", "--format", "json")) == [
        {"link": "Ghost"},
        {"link": "docs/missing.md"},
        {"link": "notes/nope.md"},
    ]
    verbose = json.loads(kbtui("unresolved", "--format", "json", "--verbose"))
    assert verbose[0] == {"link": "Ghost", "sources": "notes/Mixed.md"}
    assert kbtui("orphans") == "notes/Mixed.md\n"
    assert kbtui("deadends") == "docs/api/Lonely.md\n"
    assert kbtui("links", "docs/Getting started.md").splitlines() == [
        "docs/api/Reference.md",
        "img/flow chart.png",
        "index.md",
    ]
    assert kbtui("backlinks", "docs/api/Lonely.md", "--total") == "1\n"
