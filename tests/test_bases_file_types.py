"""Issue 42 item 4: a base lists only the file types Obsidian accepts (md, base, canvas,
images, audio, video, pdf) unless "Detect all file extensions" is on (`.obsidian/app.json`
`showUnsupportedFiles`): kepano's "All images" view listed `LICENSE`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbtui.bases.service import BaseService
from tests.bases_kit import indexed
from tests.test_bases_tools import run

KEPANO = Path("/work/shared/data/vaults/kepano")
ATTACHMENTS = """\
filters:
  and:
    - '!file.ext.containsAny("base", "md", "pdf", "canvas")'
views:
  - type: cards
    name: All images
    image: file.file
"""
FILES: dict[str, str | bytes] = {
    "Attachments.base": ATTACHMENTS,
    "Attachments/cover.JPG": b"\xff\xd8\xff\xe0 not really a jpeg",
    "Attachments/song.mp3": b"ID3",
    "Attachments/clip.webm": b"\x1a\x45\xdf\xa3",
    "Attachments/archive.zip": b"PK\x03\x04",
    "Attachments/notes.txt": "plain text\n",
    "LICENSE": "MIT License\n",
    "Note.md": "A note.\n",
}


def paths(service: BaseService) -> list[str]:
    return [r["path"] for r in service.query("Attachments", view="All images")[1].rows]


def test_only_the_types_obsidian_accepts_unless_all_are_shown(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, service = indexed(vault, FILES)
    accepted = ["Attachments/clip.webm", "Attachments/cover.JPG", "Attachments/song.mp3"]
    for _ in range(3):  # through SQL twice, then from the rows held in memory
        assert paths(service) == accepted
    (vault / ".obsidian").mkdir()
    app = vault / ".obsidian" / "app.json"
    app.write_text(json.dumps({"showUnsupportedFiles": True}))
    every = ["Attachments/archive.zip", *accepted[:2], "Attachments/notes.txt",
             accepted[2], "LICENSE"]  # fmt: skip
    assert paths(service) == every  # the setting is read at each query
    assert paths(BaseService(store, vault)) == every
    app.write_text(json.dumps({"showUnsupportedFiles": False, "alwaysUpdateLinks": True}))
    assert paths(service) == accepted


@pytest.mark.skipif(not KEPANO.is_dir(), reason="kepano's vault is not here")
def test_kepanos_all_images_view_lists_no_license(tmp_path: Path) -> None:
    vault = tmp_path / "kepano"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    code, out = run(vault, "index", "--no-embed")
    assert code == 0, out
    code, out = run(vault, "base:query", "Attachments", "--view", "All images", "--format", "paths")
    assert code == 0 and out.splitlines() == ["Attachments/out-of-control.jpg"], out
