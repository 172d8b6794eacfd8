"""vault_links: Obsidian's link commands (backlinks, links, unresolved, orphans, deadends)
answered from the index, links resolved as Obsidian resolves them (kbtui.store.graph.vault_facts)
and attachments found on disk. A link from a note to itself is not counted as a link in or
out; `links` lists it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kbtui.tools.contracts.kb import ENTITY_ID_PATTERN
from kbtui.tools.envelope import NotFoundError, ValidationError, ok
from kbtui.tools.parts import VaultParts
from kbtui.vault.edit.write import inside
from kbtui.vault.linked_files import Attachments
from kbtui.vault.scan import is_note

KINDS = ("backlinks", "links", "unresolved", "orphans", "deadends")
_ID = re.compile(ENTITY_ID_PATTERN)


def resolve_note(parts: VaultParts, note: str | None, field: str = "note") -> str:
    """The vault path a NOTE argument names: an entity id (`note:x`, as kb_search and the kg
    tools answer), a path, or a name as a link would reach it. Every tool that takes a note
    comes here, so an id one tool gave is understood by all (issue 42)."""
    if not note or not note.strip():
        raise ValidationError(f"{field} is required here", field=field)
    path = id_path(parts, note) or parts.store.note_by_name(note.strip())
    if path is None:  # a note written a moment ago, not indexed yet: by its path on disk
        given = note.strip().strip("/")
        for candidate in (given, given + ".md"):
            file = parts.settings.vault / candidate
            try:
                found = candidate.endswith(".md") and file.is_file()
            except (OSError, ValueError):  # a name no file can have (a NUL, too long)
                found = False
            if found and inside(parts.settings.vault, file):
                return candidate
    if path is None:
        raise NotFoundError(f"no note named {note!r} in the vault")
    return path


def id_path(parts: VaultParts, given: str | None) -> str | None:
    """The path of the indexed note whose entity id is `given`; None for anything else (for
    the tools whose own lookup reads paths and names: base_query, app_dataview)."""
    wanted = (given or "").strip()
    if not _ID.fullmatch(wanted):
        return None
    row = parts.store.note(wanted)
    return str(row["path"]) if row is not None else None


def vault_links(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    kind: str = args["kind"]
    note = args.get("note")
    store = parts.store
    if kind in ("backlinks", "links"):
        path = resolve_note(parts, note)
    elif note:
        raise ValidationError(f"note is not used by kind {kind}", field="note")
    if kind == "backlinks":
        counts = Counter(
            src
            for src, _, _, dst in store.obsidian_links(dest_path=path)
            if dst == path and src != path
        )
        results: list[dict[str, Any]] = [
            {"file": src, "count": n} for src, n in sorted(counts.items())
        ]
        return _answer(kind, path, results)
    attachments = Attachments(parts.settings.vault)
    if kind == "links":
        seen: dict[str, dict[str, Any]] = {}
        for src, target, key, dst in store.obsidian_links(source_path=path):
            found = dst or attachments.resolve(key, src)
            item = {"file": found} if found else {"link": target}
            seen.setdefault(found or "\0" + target, item)
        return _answer(kind, path, [seen[k] for k in sorted(seen)])
    if kind == "unresolved":
        grouped = store.unresolved_counts(but=attachments.keys())  # a file's key: found
        results = [{"link": t, "count": n, "sources": s} for t, n, s in grouped]
        return _answer(kind, None, results)
    if kind == "orphans":  # PDFs, images: not notes
        orphans = [p for p in store.unlinked_paths("dest") if is_note(p)]
        return _answer(kind, None, [{"file": p} for p in orphans])
    unlinking = [p for p in store.unlinked_paths("entity_id") if is_note(p)]
    to_files = {
        src for src, _, key in store.unresolved_links(unlinking) if attachments.resolve(key, src)
    }
    return _answer(kind, None, [{"file": p} for p in unlinking if p not in to_files])


def _answer(kind: str, note: str | None, results: list[dict[str, Any]]) -> dict[str, Any]:
    return ok(
        kind=kind,
        note=note,
        results=results,
        count=len(results),
        message=f"{len(results)} {kind}" + (f" of {note}" if note else ""),
    )
