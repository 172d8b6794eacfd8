"""`kbtui property:set` / `property:remove` (app_property) as a user found them (issue 39,
safe writes): dates and datetimes, the type of an untyped property, values a type cannot
hold, the last property removed. A tmp vault of real files, a real DuckDB index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import open_runtime

TYPES = {"when": "datetime", "day": "date", "score": "number", "done": "checkbox"}


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[VaultRuntime]:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "types.json").write_text(json.dumps({"types": TYPES}))
    (vault / "Films").mkdir()
    (vault / "Films" / "Alien.md").write_text("---\nrating: 8\nseen: true\n---\nA film.\n")
    (vault / "Films" / "Brazil.md").write_text("---\nrating: 9\n---\nAnother.\n")
    runtime = open_runtime(vault, HashEmbedder())
    yield runtime
    runtime.close()


def set_(rt: VaultRuntime, note: str, name: str, value: str, kind: str | None = None) -> Any:
    args = {"action": "set", "name": name, "note": note, "value": value, "type": kind}
    return rt.call("app_property", args)


def write(rt: VaultRuntime, name: str, text: str) -> Path:
    path = rt.settings.vault / name
    path.write_bytes(text.encode())
    rt.reindex()
    return path


def test_datetime_and_date_are_written_unquoted_as_obsidian_writes_them(
    rt: VaultRuntime,
) -> None:
    """`property:set when dt.md 2026-12-07T10:00:00 --type datetime` was refused ("would
    change other properties": YAML reads the line back as a datetime object)."""
    head = "---\n# kept\ntitle:   'Kept as written'\n"
    note = write(rt, "dt.md", head + "---\nBody\n")
    answer = set_(rt, "dt.md", "when", "2026-12-07T10:00:00", "datetime")
    assert answer["ok"], answer
    assert set_(rt, "dt.md", "day", "2026-12-07", "date")["ok"]
    assert set_(rt, "dt.md", "at", "2026-12-08 09:30", "datetime")["ok"]  # written with a T
    assert note.read_text() == (
        head + "when: 2026-12-07T10:00:00\nday: 2026-12-07\nat: 2026-12-08T09:30\n---\nBody\n"
    )
    # types.json says when is a datetime; set again over a value YAML holds as a datetime
    assert set_(rt, "dt.md", "when", "2026-12-09T08:00")["ok"]
    assert "\nwhen: 2026-12-09T08:00\nday:" in note.read_text()
    read = rt.call("app_property", {"action": "read", "name": "day", "note": "dt.md"})
    assert read["value"] == "2026-12-07"
    crlf = write(rt, "crlf.md", "---\r\ntitle: x\r\n---\r\nBody\r\n")
    assert set_(rt, "crlf.md", "when", "2026-12-07T10:00:00")["ok"]
    assert crlf.read_bytes() == b"---\r\ntitle: x\r\nwhen: 2026-12-07T10:00:00\r\n---\r\nBody\r\n"


def test_the_cli_sets_a_datetime(rt: VaultRuntime) -> None:
    vault = rt.settings.vault
    note = write(rt, "dt.md", "---\ntitle: T\n---\nBody\n")
    rt.close()  # the CLI opens the vault itself
    command = ["property:set", "when", "dt.md", "2026-12-07T10:00:00", "--type", "datetime"]
    done = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *command, "--vault", str(vault)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert note.read_text() == "---\ntitle: T\nwhen: 2026-12-07T10:00:00\n---\nBody\n"


def test_an_untyped_property_takes_the_type_it_has(rt: VaultRuntime) -> None:
    """No entry in types.json: the type of the value the note holds, else of the value other
    notes hold (the index), else of the text as Obsidian shows it. `rating: "4"` was written."""
    note = write(rt, "n.md", "---\ntitle: N\nsize: 3\nflags: [a]\n---\nBody\n")
    assert set_(rt, "n.md", "size", "5")["ok"]  # this note: a number
    assert set_(rt, "n.md", "rating", "4")["ok"]  # other notes: a number
    assert set_(rt, "n.md", "seen", "false")["ok"]  # other notes: a checkbox
    assert set_(rt, "n.md", "flags", "b, c")["ok"]  # this note: a list
    assert set_(rt, "n.md", "pages", "120")["ok"]  # nowhere yet: the text is a number
    assert set_(rt, "n.md", "ratio", "0.75")["ok"]
    assert set_(rt, "n.md", "draft", "true")["ok"]  # the text is a checkbox
    assert set_(rt, "n.md", "label", "12 angry men")["ok"]  # text
    assert set_(rt, "n.md", "code", "007", "text")["ok"]  # a type given wins
    assert note.read_text() == (
        '---\ntitle: N\nsize: 5\nflags:\n  - "b"\n  - "c"\nrating: 4\nseen: false\n'
        'pages: 120\nratio: 0.75\ndraft: true\nlabel: 12 angry men\ncode: "007"\n---\nBody\n'
    )
    read = rt.call("app_property", {"action": "read", "name": "rating", "note": "n.md"})
    assert read["value"] == 4


@pytest.mark.parametrize(
    ("name", "value", "kind", "says"),
    [
        ("when", "soon", None, "not a datetime: expected YYYY-MM-DDTHH:MM[:SS]"),
        ("when", "2026-12-07", None, "not a datetime: expected YYYY-MM-DDTHH:MM[:SS]"),
        ("due", "soon", "date", "not a date: expected YYYY-MM-DD"),
        ("day", "2026-02-30", None, "not a date: expected YYYY-MM-DD"),
        ("score", "high", None, "not a number"),
        ("score", "nan", None, "not a number"),
        ("rating", "high", None, "not a number"),  # untyped, a number in other notes
        ("done", "maybe", None, "not a checkbox value: expected true or false"),
    ],
)
def test_a_value_its_type_cannot_hold_is_a_validation_error(
    rt: VaultRuntime, name: str, value: str, kind: str | None, says: str
) -> None:
    original = "---\ntitle: T\n---\nBody\n"
    note = write(rt, "v.md", original)
    answer = set_(rt, "v.md", name, value, kind)
    assert answer["error_type"] == "ValidationError", answer
    assert answer["error"]["field"] == "value" and says in answer["message"], answer
    assert note.read_text() == original


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("---\ntag: a\n---\n\n# Title\n\nBody\n", "# Title\n\nBody\n"),
        ("---\ntag: a\n---\n# Title\n", "# Title\n"),
        ("---\r\ntag: a\r\n---\r\n\r\nBody\r\n", "Body\r\n"),
        ("\ufeff---\ntag: a\n---\n\n\nBody\n", "\ufeff\nBody\n"),  # one empty line goes
        ("---\ntag:\n  - a\n  - b\n---\n", ""),
        ("---\ntag: a\n---", ""),
        ("---\n# a comment\ntag: a\n---\nBody\n", "---\n# a comment\n---\nBody\n"),  # kept
        ("---\ntag: a\n---\n---\nBody\n", "---\n---\n---\nBody\n"),  # not a block of its own
        ("---\ntag: a\nother: b\n---\nBody\n", "---\nother: b\n---\nBody\n"),
    ],
)
def test_removing_the_last_property_removes_the_block(
    rt: VaultRuntime, before: str, after: str
) -> None:
    note = write(rt, "r.md", before)
    answer = rt.call("app_property", {"action": "remove", "name": "tag", "note": "r.md"})
    assert answer["ok"] and answer["changed"], answer
    assert note.read_bytes() == after.encode()


def test_invalid_properties_are_refused_not_fixed(rt: VaultRuntime) -> None:
    original = "---\ntitle: [unclosed\nwhen: x\n---\nBody\n"
    note = write(rt, "bad.md", original)
    for args in (
        {"action": "set", "name": "when", "note": "bad.md", "value": "2026-12-07T10:00"},
        {"action": "remove", "name": "when", "note": "bad.md"},
    ):
        answer = rt.call("app_property", args)
        assert answer["error_type"] == "ConflictError", answer
    assert note.read_text() == original
