"""`kbtui call / entity / neighbors / path / links suggest / mv` on an indexed copy of
vault_example, through click's runner (the same process opens the real index)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kbtui.cli import main


def run(vault: Path, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--vault", str(vault)], input=stdin)
    return result.exit_code, result.output


def test_call_prints_the_envelope(tui_vault: Path) -> None:
    code, output = run(tui_vault, "call", "kg_get_entity", '{"entityId": "person:maya_okafor"}')
    assert code == 0
    answer = json.loads(output)
    assert answer["ok"] and answer["entity"]["name"] == "Maya Okafor"
    code, output = run(tui_vault, "call", "kg_find_entity", stdin='{"name": "Andrei"}')
    assert code == 0 and json.loads(output)["entities"][0]["id"] == "person:andrei_clodius"


def test_call_errors(tui_vault: Path) -> None:
    code, output = run(tui_vault, "call", "kg_get_entity", '{"entityId": "BAD"}')
    assert code == 1 and json.loads(output)["error"]["type"] == "VALIDATION"
    code, output = run(tui_vault, "call", "kg_get_entity", "{not json")
    assert code == 1 and "not JSON" in output
    code, output = run(tui_vault, "call", "no_such_tool", "{}")
    assert code == 1 and "unknown tool" in output


def test_graph_short_commands_take_names(tui_vault: Path) -> None:
    code, output = run(tui_vault, "entity", "Andrei")
    assert code == 0 and "person:andrei_clodius" in output
    code, output = run(tui_vault, "neighbors", "Andrei Clodius", "--json")
    assert code == 0 and json.loads(output)["relationshipCount"] > 0
    code, output = run(tui_vault, "path", "andrei_clodius", "Kestrel Health", "--json")
    path = json.loads(output)["path"]["entityIds"]
    assert code == 0 and path[0] == "person:andrei_clodius"
    assert path[-1] == "organization:kestrel_health"
    code, output = run(tui_vault, "path", "Nobody At All", "andrei_clodius")
    assert code == 1 and "no entity named" in output


def test_links_suggest_and_mv(tui_vault: Path) -> None:
    code, output = run(tui_vault, "links", "suggest", "Andrei Clodius")
    assert code == 0 and "2026-02-03 Vector Watch kickoff.md:25" in output
    home = (tui_vault / "Home.md").read_bytes()
    code, output = run(tui_vault, "mv", "person:andrei_clodius", "Andrei C", "--dry-run")
    assert code == 0 and "+ - Studio: [[maya_okafor]], [[Andrei C]]" in output.replace("\n", "")
    assert (tui_vault / "Home.md").read_bytes() == home
    code, output = run(tui_vault, "mv", "person:andrei_clodius", "team/Andrei C")
    assert code == 0, output
    assert (tui_vault / "team" / "Andrei C.md").exists()
    assert "[[Andrei C]]" in (tui_vault / "Home.md").read_text()  # the name is unique
    code, output = run(tui_vault, "mv", "person:andrei_clodius", "../escape")
    assert code == 1 and "leave the vault" in output
