"""Every tool that takes a note understands the note's entity id (`note:...`, as kb_search and
the kg tools give it) as well as its path or name (issue 42 item 3): one small vault, a real
DuckDB index (HashEmbedder), each tool called through the registry as the MCP server calls it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import open_runtime

TARGET = "Evergreen notes turn ideas into objects.md"
NOTES = {
    TARGET: "---\nstatus: draft\ntags: [Writing]\n---\n# Evergreen\n\nText #Idea here.\n\n"
    "## Tasks\n\n- [ ] Rewrite the intro\n\n```base\nviews:\n  - type: table\n    name: All\n"
    "    filters: file.path == this.file.path\n```\n",
    "Index.md": "# Index\n\nSee [[Evergreen notes turn ideas into objects]].\n",
}
TASK_LINE = 11


@pytest.fixture(scope="module")
def rt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultRuntime]:
    root = tmp_path_factory.mktemp("ids") / "vault"
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    runtime = open_runtime(root, HashEmbedder())
    yield runtime
    runtime.close()


def _calls(note: str) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) for every tool argument that names a note."""
    return [
        ("vault_links", {"kind": "backlinks", "note": note}),
        ("vault_links", {"kind": "links", "note": note}),
        ("tasks_list", {"status": "all", "note": note}),
        ("task_update", {"file": note, "line": TASK_LINE, "status": "x"}),
        ("note_read", {"note": note}),
        ("note_write", {"path": note, "mode": "append", "content": "x", "dry_run": True}),
        ("note_edit", {"note": note, "edits": [{"property": "status", "value": "ok"}]}),
        ("note_delete", {"note": note, "dry_run": True}),
        ("note_history", {"note": note}),
        ("app_outline", {"note": note}),
        ("app_properties", {"note": note}),
        ("app_property", {"action": "read", "name": "status", "note": note}),
        ("app_tags", {"note": note}),
        ("app_tasks_query", {"query": "path includes {{query.file.path}}", "this": note}),
        ("base_query", {"file": note}),
        ("base_query", {"yaml": "views: [{type: table, name: A}]", "this": note}),
        ("app_dataview", {"query": "LIST WHERE file.path = this.file.path", "this": note}),
    ]


CASES = [
    f"{tool}:{'+'.join(k for k in args if k not in ('note', 'dry_run'))}"
    for tool, args in _calls("x")
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=CASES)
def test_a_note_tool_takes_the_entity_id(rt: VaultRuntime, case: int) -> None:
    note_id = rt.kb.store.note_ids([TARGET])[TARGET]
    assert note_id.startswith("note:evergreen_notes_turn")
    tool, args = _calls(note_id)[case]
    answer = rt.call(tool, args)
    assert answer["ok"], answer
    said = json.dumps(answer, ensure_ascii=False)
    assert TARGET in said or "Evergreen notes turn ideas into objects" in said, said[:400]
    if tool == "vault_links" and args["kind"] == "backlinks":
        assert [r["file"] for r in answer["results"]] == ["Index.md"]
    by_path = rt.call(tool, {**args, **{k: TARGET for k in args if args[k] == note_id}})
    assert by_path["ok"], by_path  # the path still works beside the id


def test_an_unknown_id_is_not_found(rt: VaultRuntime) -> None:
    answer = rt.call("vault_links", {"kind": "backlinks", "note": "note:no_such_note"})
    assert not answer["ok"]
    assert answer["error_type"] == "NotFoundError"
    assert Path(TARGET).stem not in answer["message"]
