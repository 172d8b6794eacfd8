"""knowledge_import (spec 003): a document becomes a markdown note in the vault, then indexed.

The vault stays the source of truth: the note carries everything the import was given
(document_id, source, category, metadata, chunk parameters), so deleting the index and
re-indexing reproduces the same document and the same chunks. A title whose file name a note
already has, anywhere in the vault, is refused: Obsidian resolves `[[Readme]]` by file name
(any case, any folder), so a second `Readme.md` would make the name ambiguous.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from kbtui.indexing.indexer import MAX_NOTE_BYTES
from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.write import render_note, safe_filename
from kbtui.vault.parse import slug

IMPORT_TYPE = "document"


def import_document(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    title: str = args["title"].strip()
    content: str = args["content"]
    size, overlap = args["chunk_size"], args["chunk_overlap"]
    if overlap >= size:
        raise ValidationError(
            f"chunk_overlap must be less than chunk_size ({overlap} >= {size})",
            field="chunk_overlap",
        )
    if len(content.encode()) > MAX_NOTE_BYTES:
        raise ValidationError(
            f"content is larger than the {MAX_NOTE_BYTES // 2**20} MB a note may hold",
            field="content",
        )
    document_id = str(uuid.uuid4())
    created = dt.datetime.now(dt.UTC).replace(microsecond=0)
    created_at = created.isoformat().replace("+00:00", "Z")
    entity_id = _free_entity_id(parts, title)
    frontmatter: dict[str, Any] = {
        "id": entity_id,
        "type": IMPORT_TYPE,
        "title": title,
        "document_id": document_id,
        "source": args["source"],
        "category": args["category"],
        "created_at": created_at,
        "chunk_size": size,
        "chunk_overlap": overlap,
        "chunk_mode": "fixed",
        "metadata": dict(args["metadata"]),
    }
    try:
        text = render_note(frontmatter, content)
    except Exception as exc:  # metadata that YAML cannot represent
        raise ValidationError(f"metadata cannot be stored: {exc}", field="metadata") from exc
    folder = parts.settings.imports_folder.strip("/")
    stem = safe_filename(title)
    taken = parts.store.note_by_name(stem)  # by path or file name, as Obsidian links resolve
    if taken is not None:
        raise ConflictError(
            f"a note named {stem!r} exists: {taken}, which [[{stem}]] reaches; "
            "import under another title"
        )
    writer = NoteWriter(parts)  # the next free file name; history, then indexed
    rel = writer.create_free(folder, stem, text, f"knowledge_import {title!r}").path
    report = writer.last_report or parts.indexer.run(paths=[rel])
    if any(s.path == rel for s in report.skipped):
        reason = next(s.reason for s in report.skipped if s.path == rel)
        raise ConflictError(f"the note was written to {rel} but could not be indexed: {reason}")
    indexed = parts.store.entity_ids_at([rel]).get(rel, entity_id)
    chunks = parts.store.note_chunks(indexed)
    return ok(
        document_id=document_id,
        title=title,
        chunks_created=len(chunks),
        created_at=created_at,
        entity_id=indexed,
        file_path=rel,
        chunks_embedded=report.chunks_embedded,
    )


def _free_entity_id(parts: VaultParts, title: str) -> str:
    """`document:<slug>`, suffixed until no indexed note uses it."""
    base = slug(title)[:80] or "untitled"
    candidate = f"{IMPORT_TYPE}:{base}"
    n = 2
    while parts.store.note(candidate) is not None:
        candidate = f"{IMPORT_TYPE}:{base}_{n}"
        n += 1
    return candidate
