"""Issue 28 item 6, issue 42 item 7: repeated index warnings are summarised (each note named;
past ten of a kind, three in full and the rest by path; --verbose prints all)."""

from __future__ import annotations

from pathlib import Path

from kbtui.cli.warnings import kind
from tests.test_cli import kbtui


def _setups(vault: Path, count: int, text: str = "Steps") -> None:
    """One name in `count` folders: all but one note get another id, each a warning."""
    for n in range(count):
        (vault / f"area{n}").mkdir(parents=True, exist_ok=True)
        (vault / f"area{n}" / "setup.md").write_text(f"# Setup {n}\n\n{text} for area {n}.\n")


def test_a_few_warnings_of_one_kind_name_each_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _setups(vault, 7)  # six warnings (issue 42 item 7: a template line named none of them)
    short = kbtui("index", "--no-embed", "--vault", str(vault))
    assert short.returncode == 0, short.stderr
    lines = [ln for ln in short.stdout.splitlines() if "is already used by" in ln]
    assert len(lines) == 6, short.stdout
    named = {ln.split("warning", 1)[1].strip().split(":", 1)[0] for ln in lines}
    first = lines[0].split("already used by ")[1].split(";")[0]  # the note keeping the id
    assert named == {f"area{n}/setup.md" for n in range(7)} - {first}
    assert "…" not in short.stdout and "more" not in short.stdout


def test_many_warnings_of_one_kind_print_three_and_name_the_rest(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _setups(vault, 15)  # fourteen warnings
    short = kbtui("index", "--no-embed", "--vault", str(vault))
    assert short.returncode == 0, short.stderr
    lines = [ln for ln in short.stdout.splitlines() if "is already used by" in ln]
    assert len(lines) == 3, short.stdout  # three in full
    rest = [ln for ln in short.stdout.splitlines() if "the same for 11 other notes:" in ln]
    assert (
        len(rest) == 1 and rest[0].count("/setup.md") == 10 and rest[0].endswith(", and 1 more")
    ), short.stdout
    assert "…" not in short.stdout and "kbtui index --verbose" in short.stdout
    _setups(vault, 15, "Other steps")
    full = kbtui("index", "--no-embed", "--verbose", "--vault", str(vault))
    assert full.returncode == 0, full.stderr
    listed = [ln for ln in full.stdout.splitlines() if "is already used by" in ln]
    assert len(listed) == 14 and "other notes" not in full.stdout, full.stdout


def test_warnings_of_one_kind_share_a_key_and_others_do_not() -> None:
    a = kind("id doc:setup is already used by a/setup.md; indexed as doc:setup_1a2b3c")
    b = kind("id doc:x is already used by b/x.md; indexed as doc:x_ffffff")
    assert a == b
    assert kind("invalid YAML frontmatter") != a
