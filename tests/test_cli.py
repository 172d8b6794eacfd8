"""The command line as a user runs it: real processes, real model, real DuckDB file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_vault


def kbtui(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=300,
    )


@pytest.fixture(scope="module")
def cli_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_vault(tmp_path_factory.mktemp("cli") / "vault")
    first = kbtui("index", "--vault", str(vault))
    assert first.returncode == 0, first.stderr
    assert "skipped _broken/binary.md: binary file" in first.stdout
    # Since issue 19 a note whose properties YAML refuses is indexed by its body, with a warning.
    assert "skipped _broken/invalid_yaml.md" not in first.stdout
    assert "warning _broken/invalid_yaml.md: invalid YAML frontmatter" in first.stdout
    return vault


def test_second_index_embeds_nothing(cli_vault: Path) -> None:
    again = kbtui("index", "--vault", str(cli_vault), "--json")
    report = json.loads(again.stdout)
    assert again.returncode == 0
    assert report["new"] == report["changed"] == [] and report["chunks_embedded"] == 0
    assert report["seconds"] < 1.0


def test_search_json_and_table(cli_vault: Path) -> None:
    res = kbtui(
        "search",
        "who worked on the watch project",
        "--vault",
        str(cli_vault),
        "--json",
        "--top-k",
        "10",
    )
    response = json.loads(res.stdout)
    hits = response["results"]
    assert res.returncode == 0 and response["ok"] is True and len(hits) == 10
    assert response["total_found"] == 10 and response["query"] == "who worked on the watch project"
    assert "person:andrei_clodius" in [h["id"] for h in hits]
    table = kbtui("search", "Zephyr", "--vault", str(cli_vault), "--top-k", "2")
    assert "technology:zephyr_rtos" in table.stdout and "[[" not in table.stdout


def test_search_type_filter_and_empty_result(cli_vault: Path) -> None:
    res = kbtui(
        "search",
        "AI and machine learning expertise",
        "--type",
        "person",
        "--top-k",
        "8",
        "--json",
        "--vault",
        str(cli_vault),
    )
    assert {h["type"] for h in json.loads(res.stdout)["results"]} == {"person"}
    junk = kbtui("search", "quantum computing blockchain NFTs", "--vault", str(cli_vault))
    assert junk.returncode == 0 and "No results." in junk.stdout


def test_vault_from_environment_then_current_folder(cli_vault: Path, tmp_path: Path) -> None:
    by_env = kbtui("stats", "--json", env={"KBTUI_VAULT": str(cli_vault)}, cwd=tmp_path)
    assert json.loads(by_env.stdout)["notes"] > 50
    env = {k: v for k, v in os.environ.items() if k != "KBTUI_VAULT"}
    by_cwd = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", "stats", "--json"],
        cwd=cli_vault,
        capture_output=True,
        text=True,
        env=env,
    )
    assert json.loads(by_cwd.stdout)["notes"] > 50


def test_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    res = kbtui("index", "--vault", str(tmp_path / "nope"))
    assert res.returncode != 0
    assert "vault folder not found" in res.stderr and "Traceback" not in res.stderr


def test_get_prints_the_note_and_json_is_the_tool_response(cli_vault: Path) -> None:
    res = kbtui("get", "person:maya_okafor", "--vault", str(cli_vault), "--json")
    response = json.loads(res.stdout)
    assert res.returncode == 0 and response["id"] == "person:maya_okafor"
    assert response["chunks_count"] >= 1 and "Vector Studio" in response["content"]
    human = kbtui("get", "person:maya_okafor", "--vault", str(cli_vault))
    assert "Maya Okafor" in human.stdout and "person:maya_okafor" in human.stdout


def test_tool_errors_exit_1_with_the_envelope(cli_vault: Path) -> None:
    res = kbtui("get", "person:nonexistent", "--vault", str(cli_vault), "--json")
    assert res.returncode == 1
    assert json.loads(res.stdout)["error"] == {
        "type": "PERMANENT",
        "message": "Entity 'person:nonexistent' not found in KB",
        "retryable": False,
        "field": None,
    }
    human = kbtui("search", "ab", "--vault", str(cli_vault))
    assert human.returncode == 1 and "ValidationError" in human.stderr
    assert "Traceback" not in human.stderr


def test_import_then_query_then_chunk(cli_vault: Path, tmp_path: Path) -> None:
    doc = tmp_path / "faq.md"
    doc.write_text("How do I reset my password? Open settings, choose security, press reset. " * 8)
    res = kbtui(
        "import",
        str(doc),
        "--title",
        "Password FAQ",
        "--category",
        "faq",
        "--chunk-size",
        "200",
        "--chunk-overlap",
        "0",
        "--json",
        "--vault",
        str(cli_vault),
    )
    imported = json.loads(res.stdout)
    assert res.returncode == 0, res.stderr
    assert imported["chunks_created"] == 3 and (cli_vault / imported["file_path"]).is_file()
    found = kbtui(
        "query", "reset password", "--category", "faq", "--json", "--vault", str(cli_vault)
    )
    results = json.loads(found.stdout)["results"]
    assert results and {r["document"]["id"] for r in results} == {imported["document_id"]}
    chunk = kbtui("chunk", results[0]["chunk_id"], "--exclude-same-note", "--vault", str(cli_vault))
    assert chunk.returncode == 0 and "Password FAQ" in chunk.stdout
