"""The soak of bench/http_soak.py for 5 minutes (marked slow: `pytest -m slow`, ~7 min with
start and checks): several SDK clients over HTTP and a user editing the vault against a real
`kbtui mcp --http` process; 0 errors, the index equal to a fresh build, RSS and open files
within 10% after the warm-up, no thread or process left behind, a clean exit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from http_soak import main


@pytest.mark.slow
def test_five_minute_soak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--minutes", "5", "--clients", "3", "--warmup", "0.4", "--sample", "3"]
    code = main([*argv, "--work", str(tmp_path / "work"), "--png", str(tmp_path / "rss.png")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "FAIL" not in out and out.count("PASS") == 6
    assert (tmp_path / "rss.png").stat().st_size > 1000
