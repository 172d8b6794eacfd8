"""Issue 42 item 7: `daily:read` and `property:read` end their output with a line break (the
shell prompt joined the note's last line), and `kbtui links --help` shows `links NOTE
[--total]` beside `links suggest`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtui.cli import main
from tests.test_bases_tools import run

NOTE = """\
---
title: Plain
rating: 7
done: false
aliases: [One, Two]
summary: |-
  First line
  second line
block: |
  Kept with its own break
empty:
---
Body.
"""


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("endings") / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text(NOTE, encoding="utf-8")
    (vault / "2026-01-05.md").write_text("- [ ] call Ana\n- [x] no final break", encoding="utf-8")
    code, out = run(vault, "index", "--no-embed")
    assert code == 0, out
    return vault


def test_daily_read_ends_with_a_line_break(vault: Path) -> None:
    code, out = run(vault, "daily:read", "--date", "2026-01-05")
    assert code == 0 and out == "- [ ] call Ana\n- [x] no final break\n", repr(out)
    code, out = run(vault, "daily:read", "--date", "2026-01-06")  # no note that day
    assert code == 0 and out == ""


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("title", "Plain\n"),
        ("rating", "7\n"),
        ("done", "false\n"),
        ("aliases", "One\nTwo\n"),
        ("summary", "First line\nsecond line\n"),
        ("block", "Kept with its own break\n"),  # one break, not two
        ("empty", "\n"),
    ],
)
def test_property_read_ends_with_one_line_break(vault: Path, name: str, printed: str) -> None:
    code, out = run(vault, "property:read", name, "Note")
    assert code == 0 and out == printed, repr(out)


def test_links_help_shows_the_note_form(vault: Path) -> None:
    result = CliRunner().invoke(main, ["links", "--help"])
    out = result.output
    assert result.exit_code == 0, out
    assert "kbtui links [OPTIONS] NOTE" in out.replace("main", "kbtui")
    assert "COMMAND [ARGS]..." in out and "suggest" in out
    assert "--total" in out and "Print only how many there are." in out
    code, out = run(vault, "links", "Note", "--total")
    assert code == 0 and out == "0\n"
