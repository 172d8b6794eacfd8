"""Issue 28 items 12-13: `kbtui search` (and `kbtui query`) on a vault never indexed says so
and fails, as `kbtui get` does (MCP's kb_search stays ok and empty, spec 001, with the same
message), and `search --json` carries the `index` object MCP answers have."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kbtui.cli import main
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import copy_vault


def run(vault: Path, *args: str) -> tuple[int, str]:
    got = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    return got.exit_code, got.output.replace(" \n", " ")


def test_search_on_a_vault_never_indexed_says_how(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    code, output = run(vault, "get", "person:maya_okafor")
    assert code == 1 and "run `kbtui index`" in output
    code, output = run(vault, "search", "widgets", "--mode", "keyword")
    assert code == 1, output
    assert "no notes are indexed yet" in output and "kbtui index" in output
    assert "No results." not in output
    code, output = run(vault, "search", "widgets", "--mode", "keyword", "--json")
    answer = json.loads(output[output.index("{") :])
    assert code == 1 and answer["results"] == [] and answer["index"]["notes_indexed"] == 0
    code, output = run(vault, "query", "widgets")  # passages: the same answer
    assert code == 1 and "no notes are indexed yet" in output and "No results." not in output


def test_kb_search_stays_ok_and_empty_but_says_why(tmp_path: Path) -> None:
    from kbtui.config import Settings
    from kbtui.embed import HashEmbedder

    vault = copy_vault(tmp_path / "vault")
    rt = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
    try:
        got = rt.call("kb_search", {"query": "widgets", "mode": "keyword"})
        assert got["ok"] and got["results"] == []
        assert "no notes are indexed yet" in got["message"]
    finally:
        rt.close()


def test_search_json_has_the_index_object(tui_vault: Path) -> None:
    code, output = run(tui_vault, "search", "vector watch", "--mode", "keyword", "--json")
    assert code == 0, output
    answer = json.loads(output)
    assert answer["results"] and answer["index"]["state"] == "ready"
    assert answer["index"]["notes_indexed"] == answer["index"]["notes_known"] > 20
    code, output = run(tui_vault, "search", "zzqqxxyy", "--mode", "keyword")
    assert code == 0 and "No results." in output
    code, output = run(tui_vault, "query", "zzqqxxyy", "--top-k", "1", "--json")
    assert code == 0 and "message" not in json.loads(output)  # indexed: no "not indexed"
