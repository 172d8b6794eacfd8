"""The command line starts light: `kbtui --version` and a search answered by the process that
owns the vault load none of the heavy modules (DuckDB, numpy, the model, Textual, MCP).

Each command runs in a fresh interpreter that reports, as it exits, which of them it loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.shared import open_vault

HEAVY = ("duckdb", "numpy", "fastembed", "onnxruntime", "textual", "mcp", "simsimd")
PROBE = f"""
import sys
from kbtui.cli import main
try:
    main(sys.argv[1:])
finally:
    loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r}))
    print("HEAVY:" + ",".join(loaded), file=sys.stderr)
"""


def run_cli(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "KBTUI_VAULT": ""},
        timeout=120,
    )
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("HEAVY:")][-1]
    return done, [m for m in line.removeprefix("HEAVY:").split(",") if m]


def test_version_and_help_load_nothing_heavy() -> None:
    version, heavy = run_cli("--version")
    assert version.returncode == 0, version.stderr
    assert "0.1.0" in version.stdout
    assert heavy == []
    helped, heavy = run_cli("search", "--help")
    assert helped.returncode == 0 and "--top-k" in helped.stdout
    assert heavy == []


def test_search_through_the_owner_loads_neither_duckdb_nor_the_model(
    tmp_path: Path, indexed_example: Settings, real_embedder: FastEmbedder
) -> None:
    vault = Path(shutil.copytree(indexed_example.vault, tmp_path / "vault", symlinks=True))
    settings = Settings.for_vault(vault)
    with open_vault(settings, lambda: real_embedder, watch=False) as owner:
        assert owner.role == "owner"
        done, heavy = run_cli("search", "watch project", "--vault", str(vault), "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["results"], "the owner answered with results"
        assert heavy == []


# A read-only command that opens the index itself still leaves out what only other commands
# use: the graph map's layout (igraph) and SVG writer (xml.sax -> urllib.request), the watcher
# (watchdog: a one-shot command watches nothing), the entity extractor, and the model when
# the command needs no vector (onnxruntime/fastembed). Start-up time is what a user notices.
NOT_FOR_READS = (
    "igraph",
    "watchdog",
    "onnxruntime",
    "fastembed",
    "urllib.request",
    "xml.sax.saxutils",
    "kbtui.graphmap.layout",
    "kbtui.graphmap.svg",
    "kbtui.indexing.watcher",
    "kbtui.graph.extract",
)
READS_PROBE = f"""
import sys
from kbtui.cli import main
try:
    main(sys.argv[1:])
finally:
    loaded = sorted(set(sys.modules) & set({NOT_FOR_READS!r}))
    print("LOADED:" + ",".join(loaded), file=sys.stderr)
"""
PROJECTS_BASE = """filters:
  and:
    - file.inFolder("projects")
views:
  - type: table
    name: Projects
    order: [file.name, status]
"""


def test_read_only_commands_load_no_graph_map_watcher_or_model(
    tmp_path: Path, indexed_example: Settings
) -> None:
    vault = Path(shutil.copytree(indexed_example.vault, tmp_path / "vault", symlinks=True))
    (vault / "Projects.base").write_text(PROJECTS_BASE, encoding="utf-8")
    commands = {  # each with what its answer shows (the probe ran the real command)
        "base:query": (["base:query", "Projects.base", "--format", "paths"], "atlas_sync.md"),
        "bases": (["bases"], ""),  # the new .base is not indexed: only that it ran
        "search": (["search", "watch project", "--mode", "keyword"], "Vector Watch"),
    }
    for label, (args, shown) in commands.items():
        done = subprocess.run(
            [sys.executable, "-c", READS_PROBE, *args, "--vault", str(vault)],
            capture_output=True,
            text=True,
            env={**os.environ, "KBTUI_VAULT": ""},
            timeout=120,
        )
        assert done.returncode == 0, (label, done.stderr)
        assert shown in done.stdout, (label, done.stdout)
        line = [ln for ln in done.stderr.splitlines() if ln.startswith("LOADED:")][-1]
        assert line == "LOADED:", f"{label} imported {line.removeprefix('LOADED:')}"
