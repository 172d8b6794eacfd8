"""The note kg_create_entity writes, shaped after the vault it goes into rather than after the
spec's record (issue 39): the spec's fields are the tool's answer, the note is the user's.

Folder: the one holding most notes of that type (the index); else a top-level folder whose
name gives its notes that type, as kbtui reads folders (`People/`, `people/`, `01 People/` for
a person: any case); else Obsidian's location for new notes (`.obsidian/app.json`); else the
vault's root. No folder is made up.

Properties: `id`, `type`, `title`, the description (as `description`, else as `summary`),
`confidence`, `created_by`, `created_at`, each only when some note already has that property.
Written even so, as the note would not be the entity asked for without them: `type` when the
folder does not give it, `id` when the file name does not give it (a name no file can hold, a
file name taken), `title` when the file name is not the name, `channel` for a channel other
than the default, and `aliases` when given (Obsidian's own property: dropping them would lose
what the caller asked to keep). The description is the body's text in any case.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from kbtui.store import Store
from kbtui.vault.edit.write import render_note
from kbtui.vault.names import derive_type_and_name, folder_type
from kbtui.vault.obsidian.new_file import new_file_folder
from kbtui.vault.scan import MARKDOWN_SUFFIXES


def entity_folder(store: Store, vault: Path, kind: str) -> str:
    """The vault-relative folder a new entity of type `kind` goes in ("" for the root)."""
    common = store.common_folder(kind)
    if common is not None:
        return common
    try:
        names = sorted(e.name for e in os.scandir(vault) if e.is_dir() and e.name[:1] != ".")
    except OSError:
        names = []
    for name in names:
        if folder_type(name) == kind:
            return name
    return new_file_folder(vault)


def free_stem(vault: Path, folder: str, stem: str) -> str:
    """`stem`, or `stem 2`, ...: the first name no file in the folder has (the name the
    atomic write will take, so the properties can be decided for it)."""
    for n in range(1, 10_000):
        candidate = stem if n == 1 else f"{stem} {n}"
        if not (vault / folder / f"{candidate}.md").exists():
            return candidate
    return stem  # the write says there is no free name


def entity_text(
    store: Store, args: dict[str, Any], entity_id: str, rel_path: str, channel: str | None
) -> str:
    """The note of entity `entity_id` (args: kg_create_entity's, checked) at `rel_path`."""
    name, kind = args["name"].strip(), args["type"]
    used = {key for key, _, _ in store.property_counts(MARKDOWN_SUFFIXES)}
    derived_type, derived_name = derive_type_and_name(rel_path, {})
    stem = rel_path.rsplit("/", 1)[-1][: -len(".md")]
    fm: dict[str, Any] = {}
    if "id" in used or f"{kind}:{derived_name}" != entity_id:
        fm["id"] = entity_id
    if "type" in used or (derived_type != kind and "id" not in fm):
        fm["type"] = kind
    if "title" in used or stem != name:
        fm["title"] = name
    if args["aliases"]:
        fm["aliases"] = list(dict.fromkeys(a.strip() for a in args["aliases"]))
    description = args["description"]
    key = next((k for k in ("description", "summary") if k in used), None)
    if description and key:
        fm[key] = description
    if "confidence" in used:
        fm["confidence"] = args["confidence"]
    if channel:
        fm["channel"] = channel
    if "created_by" in used:
        fm["created_by"] = "kg_create_entity"
    if "created_at" in used:
        fm["created_at"] = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    body = f"# {name}\n\n{description or ''}"
    return render_note(fm, body) if fm else f"{body.rstrip()}\n"
