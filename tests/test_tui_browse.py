"""The app_* operations the TUI reads through (kbtui.tools.browse), on a real index: what
they answer, how they reject bad arguments, that MCP neither lists nor runs them, and the
CLI's way into the TUI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import types

from kbtui import cli
from kbtui.mcp.server import build_server
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.browse import APP_TOOLS
from kbtui.tools.registry import PUBLISHED
from kbtui.tui.widgets.note_parts import linkify


def test_facets_count_types_tags_and_folders(runtime: VaultRuntime) -> None:
    facets = runtime.call("app_facets", {})
    assert facets["ok"]
    types_ = {t["name"]: t["count"] for t in facets["types"]}
    # 64: _broken/invalid_yaml.md is indexed by its body since issue 19; Dashboards/ (issue 41)
    assert types_["person"] == 14 and sum(types_.values()) == 64
    tags = {t["name"]: t["count"] for t in facets["tags"]}
    assert tags["people"] == 14
    folders = {f["name"]: f["count"] for f in facets["folders"]}
    # a parent folder counts what is below it: the filter matches subfolders too
    assert folders["meetings"] == folders["meetings/2026"] == 7


def test_list_entities_pages_by_title_with_link_counts(runtime: VaultRuntime) -> None:
    page = runtime.call("app_list_entities", {"type": "person", "limit": 2})
    assert page["total"] == 14
    assert [e["title"] for e in page["entities"]] == ["Amara Nwosu", "Andrei Clodius"]
    andrei = page["entities"][1]
    neighbours = runtime.call(
        "kg_get_neighbors", {"entityId": andrei["id"], "direction": "outgoing", "limit": 100}
    )
    assert andrei["outgoing"] == neighbours["relationshipCount"]
    rest = runtime.call("app_list_entities", {"type": "person", "offset": 2, "limit": 100})
    assert len(rest["entities"]) == 12
    past_end = runtime.call("app_list_entities", {"offset": 1000})
    assert past_end["entities"] == [] and past_end["total"] == 64


def test_entity_labels_skip_unknown_ids(runtime: VaultRuntime) -> None:
    labels = runtime.call("app_entity_labels", {"ids": ["person:andrei_clodius", "person:nobody"]})
    assert labels["entities"] == [
        {"id": "person:andrei_clodius", "title": "Andrei Clodius", "type": "person"}
    ]


def test_reindex_reports_broken_notes(runtime: VaultRuntime, tui_vault: Path) -> None:
    report = runtime.call("app_reindex", {})["report"]
    assert {s["path"] for s in report["skipped"]} == {"_broken/binary.md"}
    note = tui_vault / "concepts" / "crdt.md"
    note.write_text(note.read_text() + "\nA new line about wombats.\n")
    report = runtime.call("app_reindex", {"paths": ["concepts/crdt.md"]})["report"]
    assert report["changed"] == ["concepts/crdt.md"] and report["chunks_embedded"] >= 1
    stats = runtime.status()["stats"]
    assert stats["embedded"] == stats["chunks"]  # a few chunks: embedded at once
    hits = runtime.call("kb_search", {"query": "wombats", "mode": "keyword"})
    assert [r["id"] for r in hits["results"]] == ["concept:crdt"]


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("app_reindex", {"paths": ["../outside.md"]}, "paths[0]"),
        ("app_reindex", {"paths": ["/etc/passwd"]}, "paths[0]"),
        ("app_list_entities", {"limit": 0}, "limit"),
        ("app_list_entities", {"type": "Not A Type"}, "type"),
        ("app_entity_labels", {}, "ids"),
        ("app_facets", {"tag_limit": "many"}, "tag_limit"),
        ("app_facets", {"colour": "red"}, "colour"),
    ],
)
def test_bad_arguments_are_rejected(
    runtime: VaultRuntime, name: str, args: dict[str, Any], field: str
) -> None:
    answer = runtime.call(name, args)
    assert answer["ok"] is False and answer["error_type"] == "ValidationError"
    assert answer["error"]["field"] == field


def test_app_operations_are_not_mcp_tools(runtime: VaultRuntime) -> None:
    assert not set(APP_TOOLS) & set(PUBLISHED)
    server = build_server(runtime)
    listed = anyio.run(
        server._request_handlers["tools/list"].handler, None, types.PaginatedRequestParams()
    )
    assert not [t.name for t in listed.tools if t.name.startswith("app_")]
    called = anyio.run(
        server._request_handlers["tools/call"].handler,
        None,
        types.CallToolRequestParams(name="app_reindex", arguments={}),
    )
    assert called.is_error and "unknown tool 'app_reindex'" in str(called.structured_content)


def test_cli_without_command_opens_the_tui(
    tui_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Any] = []
    monkeypatch.setattr(
        "kbtui.tui.run_app", lambda settings, review=False: opened.append((settings, review))
    )
    result = CliRunner().invoke(cli.main, ["--vault", str(tui_vault)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli.main, ["tui", "--vault", str(tui_vault)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli.main, ["--review", "--vault", str(tui_vault)])
    assert result.exit_code == 0, result.output
    assert [(s.vault, review) for s, review in opened] == [
        (tui_vault.resolve(), False),
        (tui_vault.resolve(), False),
        (tui_vault.resolve(), True),  # kbtui --review: the vault's review mode on
    ]
    help_text = CliRunner().invoke(cli.main, ["--help"]).output
    assert "Without a command, opens the TUI" in help_text and "search" in help_text


def test_wikilinks_become_followable_links_outside_code() -> None:
    text = "See [[Vector Watch]], [[maya_okafor|Maya]] and [[2026-02-03 kickoff#Decisions]].\n"
    code = "`[[not a link]]`\n```\n[[nor this]]\n```\n"
    out = linkify(text + code)
    assert "[Vector Watch](<wikilink:Vector Watch>)" in out
    assert "[Maya](<wikilink:maya_okafor>)" in out
    assert "[2026-02-03 kickoff › Decisions](<wikilink:2026-02-03 kickoff>)" in out
    assert out.endswith(code)
