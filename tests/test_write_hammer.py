"""The write path's hammer (issue 39's goal): another process saves a note 100 times a second,
in place and by rename (and, apart, appending blindly with O_APPEND), while kbtui edits it
through NoteWriter, with and without expected_hash. Every line either program wrote is in the
final file or in the note's history; every kbtui edit was applied or refused as stale; none
lost. bench/write_hammer.py runs it (and prints the counts); here ~8 s a mode, and the 1,000
edits of the goal under `pytest -m slow`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from write_hammer import HammerCounts, hammer


def check(counts: HammerCounts) -> None:
    print(counts.line())
    assert counts.errors == []
    assert counts.lost_ext == [] and counts.lost_kb == []  # every line somewhere
    assert counts.written_though_refused == []  # a refusal wrote nothing
    assert counts.applied + sum(counts.refused.values()) == counts.edits
    assert counts.applied >= 1 and counts.saves["saves"] >= 100  # both really wrote


@pytest.mark.parametrize("mode", ["alternate", "append"])
def test_no_line_is_lost_when_another_process_saves_100_times_a_second(
    tmp_path: Path, mode: str
) -> None:
    counts = hammer(tmp_path / "vault", edits=1000, mode=mode, seconds=6.5)
    check(counts)
    assert counts.edits >= 30


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["alternate", "append"])
def test_the_hammer_with_1000_kbtui_edits(tmp_path: Path, mode: str) -> None:
    counts = hammer(tmp_path / "vault", edits=1000, mode=mode)
    check(counts)
    assert counts.edits == 1000
