"""The command line as a user runs it: real processes, real model, real DuckDB file."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
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
    assert "Zephyr RTOS  tech/" in table.stdout and "[[" not in table.stdout
    assert "technology:zephyr_rtos" not in table.stdout  # ids on request
    with_ids = kbtui("search", "Zephyr", "--vault", str(cli_vault), "--top-k", "2", "--ids")
    assert "technology:zephyr_rtos  Zephyr RTOS  tech/" in with_ids.stdout


QUESTION = "who worked on the watch project"


def result_groups(stdout: str) -> list[list[str]]:
    return [group.splitlines() for group in stdout.strip().split("\n\n")]


def test_search_fits_80_columns(cli_vault: Path) -> None:
    """Each result: score, title and folder on one line, then at most two snippet lines,
    every line within the width (COLUMNS, as a terminal of 80 columns gives it)."""
    res = kbtui("search", QUESTION, "--vault", str(cli_vault), "--ids", env={"COLUMNS": "80"})
    groups = result_groups(res.stdout)
    assert res.returncode == 0 and len(groups) == 5
    for head, *snippet in groups:
        assert head[:4].replace(".", "").isdigit() and ":" in head  # score, then the id
        assert 1 <= len(snippet) <= 2
    assert max(len(line) for group in groups for line in group) <= 80
    assert any(group[-1].endswith("…") for group in groups)  # long snippets are cut


def test_search_in_a_real_terminal_fits_its_width(cli_vault: Path) -> None:
    """Under a pseudo-terminal 60 columns wide (COLUMNS unset): the terminal's width."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 60, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kbtui.cli", "search", QUESTION, "--vault", str(cli_vault)],
        stdin=child,
        stdout=child,
        stderr=subprocess.DEVNULL,
        env={**env, "TERM": "xterm-256color"},
    )
    os.close(child)
    chunks = []
    with contextlib.suppress(OSError):  # EIO once the child has exited
        while data := os.read(main, 65536):
            chunks.append(data)
    os.close(main)
    assert proc.wait(timeout=300) == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode())
    lines = [line for line in text.replace("\r", "").splitlines() if line.strip()]
    assert len(lines) >= 10 and max(len(line) for line in lines) <= 60


def test_piped_search_is_not_cut_at_80_columns(cli_vault: Path) -> None:
    """`kbtui search ... | cat`: no terminal width to fit, so nothing is wrapped at 80."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    res = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", "search", QUESTION, "--vault", str(cli_vault)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    groups = result_groups(res.stdout)
    assert res.returncode == 0 and len(groups) == 5
    assert all(len(group) == 2 for group in groups)  # title line, the whole snippet on one
    assert max(len(group[1]) for group in groups) > 80
    assert "\x1b[" not in res.stdout  # no colour codes in a pipe


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


def test_search_takes_a_two_ideograph_word_as_the_tui_does(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "zh", Path(__file__).parent / "data" / "cjk_vault")
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    found = kbtui("search", "退款", "--mode", "keyword", "--json", "--vault", str(vault))
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["title"] == "退款政策"
    single = kbtui("search", "款", "--mode", "keyword", "--vault", str(vault))
    assert single.returncode == 1 and "ValidationError" in single.stderr


def test_vault_given_before_the_command_is_the_vault(cli_vault: Path, tmp_path: Path) -> None:
    """`kbtui --vault V stats`: V, not the current folder (it made an empty index there)."""
    other = tmp_path / "other"
    other.mkdir()
    res = kbtui("--vault", str(cli_vault), "stats", "--json", cwd=other)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["notes"] > 50
    assert not (other / ".kbtui").exists()
    # the command's own --vault still wins, and $KBTUI_VAULT does not override a typed one
    own = kbtui("--vault", str(other), "stats", "--json", "--vault", str(cli_vault), cwd=other)
    assert json.loads(own.stdout)["notes"] > 50
    typed = kbtui("--vault", str(cli_vault), "stats", "--json", env={"KBTUI_VAULT": str(other)})
    assert json.loads(typed.stdout)["notes"] > 50
    assert not (other / ".kbtui").exists()
