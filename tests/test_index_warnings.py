"""Issue 28 item 6: repeated index warnings are summarised (count, 3 examples, --verbose)."""

from __future__ import annotations

from pathlib import Path

from kbtui.cli.warnings import kind
from tests.test_cli import kbtui


def test_repeated_warnings_print_a_count_and_three_examples(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for n in range(7):  # one name in seven folders: six notes get another id, six warnings
        (vault / f"area{n}").mkdir(parents=True)
        (vault / f"area{n}" / "setup.md").write_text(f"# Setup {n}\n\nSteps for area {n}.\n")
    short = kbtui("index", "--no-embed", "--vault", str(vault))
    assert short.returncode == 0, short.stderr
    lines = [ln for ln in short.stdout.splitlines() if "is already used by" in ln]
    assert len(lines) == 4, short.stdout  # the summary line and three examples
    assert "6 notes: id … is already used by … indexed as …" in short.stdout
    assert "3 more; `kbtui index --verbose` lists them all" in short.stdout
    for n in range(7):
        (vault / f"area{n}" / "setup.md").write_text(f"# Setup {n}\n\nOther steps {n}.\n")
    full = kbtui("index", "--no-embed", "--verbose", "--vault", str(vault))
    assert full.returncode == 0, full.stderr
    listed = [ln for ln in full.stdout.splitlines() if "is already used by" in ln]
    assert len(listed) == 6 and "more;" not in full.stdout, full.stdout


def test_warnings_of_one_kind_share_a_key_and_others_do_not() -> None:
    a = kind("id doc:setup is already used by a/setup.md; indexed as doc:setup_1a2b3c")
    b = kind("id doc:x is already used by b/x.md; indexed as doc:x_ffffff")
    assert a == b
    assert kind("invalid YAML frontmatter") != a
