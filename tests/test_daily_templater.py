"""Issue 42 item 8: a daily note made from a template that holds Templater commands (`<%
tp.file.title %>`) copies them as written (only the Templater plugin, inside Obsidian, runs
them) and the answer says so, naming Templater and the template; a Templates-plugin template
({{date}}, {{title}}) makes none."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.obsidian.daily import template_warnings
from tests.conftest import open_runtime
from tests.test_bases_tools import run

TEMPLATER = """\
---
created: <% tp.date.now("YYYY-MM-DD") %>
---
# <% tp.file.title %>

<%* tR += "a script" -%>
"""


def _vault(root: Path, template: str) -> Path:
    vault = root / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Templates").mkdir()
    (vault / "Templates" / "Daily.md").write_text(template, encoding="utf-8")
    settings = {"folder": "Journal", "template": "Templates/Daily"}
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(settings))
    (vault / "Home.md").write_text("Home.\n", encoding="utf-8")
    return vault


@pytest.fixture
def templater(tmp_path: Path) -> Iterator[VaultRuntime]:
    rt = open_runtime(_vault(tmp_path, TEMPLATER), HashEmbedder())
    yield rt
    rt.close()


def test_a_templater_template_is_copied_as_written_and_the_answer_says_so(
    templater: VaultRuntime,
) -> None:
    first = templater.call("daily_append", {"content": "- [ ] call Ana", "date": "2026-03-09"})
    assert first["ok"] and first["created"], first
    (warning,) = first["warnings"]
    assert "Templater" in warning and "Templates/Daily.md" in warning
    assert "3 Templater commands" in warning and '<% tp.date.now("YYYY-MM-DD") %>' in warning
    text = (templater.settings.vault / "Journal" / "2026-03-09.md").read_text()
    assert "# <% tp.file.title %>" in text  # as written: kbtui does not run Templater
    again = templater.call("daily_append", {"content": "second", "date": "2026-03-09"})
    assert again["ok"] and "warnings" not in again  # the note exists: no template read


def test_the_cli_prints_the_warning(tmp_path: Path) -> None:
    vault = _vault(tmp_path, TEMPLATER)
    code, out = run(vault, "daily:append", "hello", "--date", "2026-03-10")
    assert code == 0
    assert "Appended to Journal/2026-03-10.md" in out
    assert "warning: the template Templates/Daily.md holds 3 Templater commands" in out


def test_a_templates_plugin_template_warns_of_nothing(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "# {{title}}\n\nMade {{date:YYYY-MM-DD}} at {{time}}.\n")
    assert template_warnings(vault) == []
    (vault / "Templates" / "Daily.md").write_text("# <%tp.file.title%>\n")
    (warning,) = template_warnings(vault)
    assert "a Templater command (<%tp.file.title%>)" in warning
