"""The write commands as a person types them (issue 39, item 3): `kbtui read`, `create`,
`append`, `prepend`, `edit`, `replace`, `delete`, `history`, `history:read`,
`history:restore`, `diff`. Each runs in this process against a real vault and DuckDB index;
refusals print one line with the candidates and exit 1; a dry run prints the diff and writes
nothing; the history names the writer `cli`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kbtui.cli import main
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.history import History
from kbtui.textdiff import content_hash

PLAN = "# Plan\n\n## Tasks\n\n- one\n\n# Later\n\n## Tasks\n\n- someday\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "Templates").mkdir(parents=True)
    (vault / ".obsidian").mkdir()
    (vault / "Plan.md").write_text(PLAN)
    (vault / "Other.md").write_text("Links to [[Ideas]].\n")
    (vault / "Templates" / "Idea.md").write_text("# {{title}}\n\nWhy:\n")
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}')
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run(embed=False)
    store.close()
    return vault


def kbtui(vault: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--vault", str(vault)], input=stdin)


def ok(vault: Path, *args: str, stdin: str | None = None) -> str:
    got = kbtui(vault, *args, stdin=stdin)
    assert got.exit_code == 0, got.output
    return got.stdout


def refused(vault: Path, *args: str) -> str:
    before = (vault / "Plan.md").read_bytes()
    got = kbtui(vault, *args)
    assert got.exit_code == 1, got.output
    assert (vault / "Plan.md").read_bytes() == before
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1, got.stderr
    return lines[0]


def test_read_prints_the_raw_text_and_json_the_hash(vault: Path) -> None:
    assert ok(vault, "read", "Plan") == PLAN
    got = json.loads(ok(vault, "read", "plan", "--json"))
    assert got["path"] == "Plan.md" and got["text"] == PLAN
    assert got["hash"] == content_hash((vault / "Plan.md").read_bytes())
    assert "no note named" in refused(vault, "read", "Nope")


def test_create_append_prepend_and_the_json_answer(vault: Path) -> None:
    made = json.loads(ok(vault, "create", "Ideas", "--template", "Idea", "--json"))
    assert set(made) == {"path", "hash", "previous_hash", "added", "removed", "created"}
    assert made["path"] == "Ideas.md" and made["previous_hash"] is None
    assert (vault / "Ideas.md").read_text() == "# Ideas\n\nWhy:\n"
    ok(vault, "append", "Ideas", "- [ ] try it")  # a dash starts text, not an option
    ok(vault, "prepend", "Ideas", "-", stdin="From stdin.\n")
    assert (vault / "Ideas.md").read_text() == "From stdin.\n# Ideas\n\nWhy:\n- [ ] try it\n"
    ok(vault, "create", "--path", "Drafts/One.md", "--content", "a\\nb")
    assert (vault / "Drafts" / "One.md").read_text() == "a\nb"
    assert "already exists" in refused(vault, "create", "--path", "Plan.md")
    assert "[[plan]] already reaches Plan.md" in refused(vault, "create", "Drafts/plan")
    assert "expected_hash" in refused(vault, "create", "--path", "Plan.md", "--overwrite")
    sources = {v.source for v in History(Settings.for_vault(vault).index_dir).versions("Ideas.md")}
    assert sources == {"cli"}


def test_edit_refuses_an_ambiguous_heading_with_both_lines(vault: Path) -> None:
    line = refused(vault, "edit", "Plan", "--section", "Tasks", "--append", "x")
    assert line.startswith("error (TargetError)") and "line 3: ## Tasks" in line
    assert "line 9: ## Tasks" in line
    line = refused(vault, "edit", "Plan", "--section", "Plan > Done", "--append", "x")
    assert "no heading 'Done'" in line
    ok(vault, "edit", "Plan", "--section", "Plan > Done", "--append", "- x", "--create-section")
    ok(vault, "edit", "Plan", "--section", "Later > Tasks", "--replace", "- soon")
    assert (vault / "Plan.md").read_text().endswith("## Done\n- x\n# Later\n\n## Tasks\n- soon\n")


def test_replace_counts_and_stale_hashes(vault: Path) -> None:
    line = refused(vault, "replace", "Plan", "## Tasks", "## To do")
    assert "occurs 2 times, not 1" in line and "line 3" in line and "line 9" in line
    seen = json.loads(ok(vault, "read", "Plan", "--json"))["hash"]
    (vault / "Plan.md").write_text(PLAN + "editor\n")
    stale = refused(vault, "replace", "Plan", "- one", "- 1", "--expected-hash", seen)
    assert stale.startswith("error (StaleError)")
    done = json.loads(
        ok(vault, "replace", "Plan", "## Tasks", "## To do", "--count", "2", "--json")
    )
    assert (done["added"], done["removed"]) == (2, 2)


def test_a_dry_run_prints_the_diff_and_writes_nothing(vault: Path) -> None:
    before = (vault / "Plan.md").read_bytes()
    out = ok(vault, "append", "Plan", "zebra", "--dry-run")
    assert out.startswith("--- a/Plan.md\n+++ b/Plan.md\n") and "+zebra\n" in out
    out = ok(vault, "delete", "Plan", "--dry-run")
    assert "-# Plan" in out and (vault / "Plan.md").read_bytes() == before
    assert ok(vault, "create", "New", "--content", "n", "--dry-run").endswith("+n\n")
    assert not (vault / "New.md").exists()


def test_delete_history_restore_and_diff(vault: Path) -> None:
    ok(vault, "create", "Ideas", "--content", "one\n")
    ok(vault, "append", "Ideas", "two")
    gone = json.loads(ok(vault, "delete", "Ideas", "--json"))
    assert gone["trash"] == ".trash/Ideas.md"
    assert gone["unresolved"] == [{"file": "Other.md", "link": "Ideas", "count": 1}]
    versions = json.loads(ok(vault, "history", "Ideas", "--json"))
    assert [(v["version"], v["operation"], v["source"]) for v in versions] == [
        (3, "delete", "cli"),
        (2, "append", "cli"),
        (1, "create", "cli"),
    ]
    assert ok(vault, "history:read", "Ideas", "1") == "one\n"
    assert "+two" in ok(vault, "diff", "Ideas", "--from", "1", "--to", "2")
    ok(vault, "history:restore", "Ideas", "2")
    assert (vault / "Ideas.md").read_text() == "one\ntwo\n"
    table = ok(vault, "history", "Ideas").splitlines()
    assert table[0].startswith("4\t") and table[0].endswith("restore v2")
    last = ok(vault, "diff", "Ideas")  # the last change: from the deletion to the file now
    assert last.startswith("--- a/Ideas.md (v3)\n+++ b/Ideas.md (now)\n") and "+two" in last


def test_a_write_through_the_vaults_owner(vault: Path) -> None:
    """With a TUI or an MCP server holding the vault, the command is a client: the owner
    writes, and answers with the hash and the diff as it does here."""
    from kbtui.runtime.shared import open_vault

    owner = open_vault(Settings.for_vault(vault), HashEmbedder, watch=False)
    try:
        assert owner.role == "owner"
        done = json.loads(ok(vault, "append", "Plan", "from a client", "--json"))
        assert done["hash"] == content_hash((vault / "Plan.md").read_bytes())
        assert (vault / "Plan.md").read_text() == PLAN + "from a client\n"
        newest = json.loads(ok(vault, "history", "Plan", "--json"))[0]
        assert (newest["source"], newest["operation"]) == ("cli", "append")
        refused(vault, "edit", "Plan", "--section", "Tasks", "--append", "x")
    finally:
        owner.close()
