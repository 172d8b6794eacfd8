"""kg_create_entity follows the vault it writes into (issue 39, safe writes): the folder where
the vault keeps notes of that type (else Obsidian's location for new notes, else the root),
and only the properties the vault's notes already use; the spec's fields stay in the answer.
Small vaults of real files in tmp_path, a real DuckDB index."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kbtui.config import Settings
from kbtui.runtime.knowledge_base import KnowledgeBase
from tests.kg_kit import indexed_kb

PERSON = {
    "name": "Ada Lovelace",
    "type": "person",
    "aliases": ["Countess of Lovelace"],
    "description": "Wrote the first program.",
}


def make(vault: Path, files: dict[str, str]) -> Iterator[KnowledgeBase]:
    for rel, text in files.items():
        path = vault / rel
        if rel.endswith("/"):  # an empty folder
            path.mkdir(parents=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    yield from indexed_kb(Settings.for_vault(vault))


def created(kb: KnowledgeBase, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(the answer's entity, the note's properties, the note's text)."""
    answer = kb.call("kg_create_entity", args)
    assert answer["success"], answer
    text = (kb.settings.vault / answer["entity"]["source"]).read_text()
    props = yaml.safe_load(text.split("---\n")[1]) if text.startswith("---\n") else {}
    return answer["entity"], props, text


def folders(vault: Path) -> list[str]:
    return sorted(e.name for e in os.scandir(vault) if e.is_dir() and e.name[:1] != ".")


@pytest.fixture
def people_vault(tmp_path: Path) -> Iterator[KnowledgeBase]:
    """People/ holds people by folder (no `type`, no `id`); notes use aliases and born."""
    yield from make(
        tmp_path / "vault",
        {
            "People/Alan Turing.md": "---\naliases: [Turing]\nborn: 1912\n---\nMathematician.\n",
            "People/Grace Hopper.md": "---\nborn: 1906\n---\nAdmiral.\n",
            "Projects/Analytical Engine.md": "Babbage's engine.\n",
        },
    )


def test_a_person_goes_where_the_vault_keeps_people(people_vault: KnowledgeBase) -> None:
    entity, props, text = created(people_vault, PERSON)
    assert entity["source"] == "People/Ada Lovelace.md" and entity["id"] == "person:ada_lovelace"
    assert folders(people_vault.settings.vault) == ["People", "Projects"]  # no `people/`
    assert props == {"aliases": ["Countess of Lovelace"]}  # no confidence, created_by/_at
    assert text.endswith("# Ada Lovelace\n\nWrote the first program.\n")
    # the spec's fields, all the same
    assert entity["confidence"] == 0.8 and entity["description"] == "Wrote the first program."
    assert entity["name"] == "Ada Lovelace" and entity["type"] == "person"
    assert entity["aliases"] == ["Countess of Lovelace"]
    found = people_vault.call("kg_find_entity", {"name": "countess of lovelace", "exact": True})
    assert [e["id"] for e in found["entities"]] == ["person:ada_lovelace"]
    bare, props, text = created(people_vault, {"name": "Charles Babbage", "type": "person"})
    assert bare["source"] == "People/Charles Babbage.md" and props == {}
    assert text == "# Charles Babbage\n"


def test_an_empty_folder_named_for_the_type_any_case(tmp_path: Path) -> None:
    for kb in make(tmp_path / "vault", {"People/": "", "Orgs/": "", "Notes/idea.md": "An idea.\n"}):
        entity, _, _ = created(kb, PERSON)
        assert entity["source"] == "People/Ada Lovelace.md"
        org, _, _ = created(kb, {"name": "Acme", "type": "organization"})
        assert org["source"] == "Orgs/Acme.md"
        assert folders(kb.settings.vault) == ["Notes", "Orgs", "People"]


@pytest.mark.parametrize(
    ("app", "folder"),
    [
        (None, ""),
        ({"newFileLocation": "root"}, ""),
        ({"newFileLocation": "current"}, ""),
        ({"newFileLocation": "folder", "newFileFolderPath": "Inbox/New"}, "Inbox/New"),
        ({"newFileLocation": "folder", "newFileFolderPath": "../outside"}, ""),
    ],
)
def test_else_obsidians_location_for_new_notes(
    tmp_path: Path, app: dict[str, str] | None, folder: str
) -> None:
    files = {"Notes/idea.md": "---\ntags: [x]\n---\nAn idea.\n"}
    if app is not None:
        files[".obsidian/app.json"] = json.dumps(app)
    for kb in make(tmp_path / "vault", files):
        entity, props, _ = created(kb, {**PERSON, "aliases": []})
        assert entity["source"] == f"{folder}/Ada Lovelace.md".lstrip("/")
        assert entity["id"] == "person:ada_lovelace" and entity["type"] == "person"
        assert props == {"type": "person"}  # the folder does not make it a person
        assert not (tmp_path / "outside").exists()


def test_the_properties_the_vault_uses_are_written(tmp_path: Path) -> None:
    """A vault whose notes carry id, type, title, description, confidence and created_at:
    a new note carries them too (created_by: no note has it)."""
    note = (
        "---\nid: concept:graphs\ntype: concept\ntitle: Graphs\ndescription: Nodes.\n"
        "confidence: 0.5\ncreated_at: 2024-01-01T00:00:00+00:00\n---\nNodes and edges.\n"
    )
    for kb in make(tmp_path / "vault", {"kb/Graphs.md": note}):
        entity, props, _ = created(kb, {"name": "Trees", "type": "concept", "confidence": 0.6})
        assert entity["source"] == "kb/Trees.md"
        assert list(props) == ["id", "type", "title", "confidence", "created_at"]
        assert props["id"] == "concept:trees" and props["confidence"] == 0.6
        described, props, _ = created(
            kb, {"name": "Heaps", "type": "concept", "description": "Priority queues."}
        )
        assert props["description"] == "Priority queues."
        assert described["description"] == "Priority queues."


def test_a_name_the_file_cannot_hold_keeps_its_id_and_title(people_vault: KnowledgeBase) -> None:
    vault = people_vault.settings.vault
    odd, props, _ = created(people_vault, {"name": "C/C++ Guru", "type": "person"})
    assert odd["source"] == "People/C C++ Guru.md" and odd["name"] == "C/C++ Guru"
    assert props == {"title": "C/C++ Guru"}  # the id the file name gives is the same
    (vault / "People" / "Ada Lovelace.md").write_text("Not indexed yet, another Ada.\n")
    entity, props, _ = created(people_vault, PERSON)
    assert entity["source"] == "People/Ada Lovelace 2.md" and entity["name"] == "Ada Lovelace"
    assert props["id"] == "person:ada_lovelace" and props["title"] == "Ada Lovelace"
