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

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.watcher import ChangeBatch
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store
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
        == "file\tcount\ndocs/Getting started.md\t1\nindex.md\t1\nnotes/Mixed.md\t1\n"
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


def _equal_independent(rt: VaultRuntime) -> None:
    """Every vault-wide answer and every note's backlinks equal the oracle's reading."""
    oracle = Oracle(rt.settings.vault)
    notes = _indexed_notes(rt, oracle)
    assert {r["link"]: r["count"] for r in _results(rt, "unresolved")} == oracle.unresolved()
    assert [r["file"] for r in _results(rt, "orphans")] == oracle.orphans()
    assert [r["file"] for r in _results(rt, "deadends")] == oracle.deadends()
    for note in notes:
        got = {r["file"]: r["count"] for r in _results(rt, "backlinks", note)}
        assert got == oracle.backlinks(note), note


@pytest.mark.parametrize("kind", ["markdown", "kepano"])
def test_answers_follow_watcher_changes(tmp_path: Path, kind: str) -> None:
    """Links are resolved when notes are written, so each change the watcher hands over
    (a new note that makes a missing link resolve, a rename, a delete, an edit, a nearer
    namesake) must move the answers with it: compared with the oracle after every step, and
    with the resolution derived again from scratch."""
    vault = tmp_path / "vault"
    if kind == "markdown":
        md_vault(vault)
    else:
        shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    rt = open_runtime(vault, HashEmbedder())

    def changed(*paths: str) -> None:
        rt.worker.submit(ChangeBatch(paths=paths))
        assert rt.worker.wait_idle(120)
        _equal_independent(rt)
        with rt.lock:
            before = rt.kb.store.snapshot()
            with rt.kb.store.transaction():
                rt.kb.store.rebuild_relationships()
            diff = [d for d in before.differences(rt.kb.store.snapshot()) if "link_dest" in d]
        assert not diff, diff

    try:
        _equal_independent(rt)
        ghost = next(t for t in sorted(Oracle(vault).unresolved()) if t.isalpha())
        assert ghost == "Ghost" or kind == "kepano"
        (vault / "Ghost.md").write_text(f"# {ghost}\n\nNow [[index]] exists.\n")
        if ghost != "Ghost":
            (vault / "Ghost.md").rename(vault / f"{ghost}.md")
            (vault / "Ghost.md").write_text("[[Ghost]]\n")  # the rename below has a source
        changed("Ghost.md", f"{ghost}.md")  # the missing link resolves now
        assert ghost not in {r["link"] for r in _results(rt, "unresolved")}
        if ghost != "Ghost":
            (vault / "Ghost.md").unlink()
            (vault / f"{ghost}.md").rename(vault / "Ghost.md")
            changed("Ghost.md", f"{ghost}.md")
            assert ghost in {r["link"] for r in _results(rt, "unresolved")}
        (vault / "docs").mkdir(exist_ok=True)
        (vault / "docs" / "missing.md").write_text("found\n")
        changed("docs/missing.md")
        (vault / "Ghost.md").rename(vault / "docs" / "Phantom.md")  # [[Ghost]] is missing again
        changed("Ghost.md", "docs/Phantom.md")
        (vault / "docs" / "missing.md").unlink()
        changed("docs/missing.md")
        (vault / "notes").mkdir(exist_ok=True)  # a namesake nearer to notes/Mixed.md
        (vault / "notes" / "Reference.md").write_text("[[Mixed]]\n")
        changed("notes/Reference.md")
        (vault / "notes" / "Mixed.md").write_text("[[Phantom]] only\n")  # an edit drops links
        changed("notes/Mixed.md")
        (vault / "notes" / "Mixed.md").unlink()
        changed("notes/Mixed.md")
    finally:
        rt.close()


def test_an_index_from_before_resolves_its_links_at_open(tmp_path: Path) -> None:
    """An index written before links were resolved at index time (schema 9: no link_dest
    rows, the older relation rule) fills them when opened, and answers as a fresh one."""
    vault = md_vault(tmp_path / "vault")
    rt = open_runtime(vault, HashEmbedder())
    fresh = {k: _results(rt, k) for k in ("unresolved", "orphans", "deadends")}
    rt.close()
    store = Store(Settings.for_vault(vault).db_path)
    store.con.execute("DELETE FROM link_dest")
    store.set_meta("relation_rule", "3")
    store.close()
    rt = open_runtime(vault, HashEmbedder())
    try:
        assert {k: _results(rt, k) for k in fresh} == fresh
        assert fresh["unresolved"] and fresh["orphans"] and fresh["deadends"]
    finally:
        rt.close()
