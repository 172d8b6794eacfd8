"""The TUI's note operations (app_*, not published over MCP): what the new-note dialog offers,
and the vault's latest writes from the history (kbtui.store.history) with what each changed
and an undo, which is a write through NoteWriter like any other (refused as stale when the
note changed since the write it undoes)."""

from __future__ import annotations

from typing import Any

from kbtui.store.history import Version
from kbtui.textdiff import content_hash, line_changes
from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, ok
from kbtui.tools.notes.files import summary
from kbtui.tools.notes.history import _data, _text, _version
from kbtui.tools.notes.where import checked
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.tools.write.trash import delete_note
from kbtui.vault.edit.diffs import unified
from kbtui.vault.obsidian.new_file import new_file_folder
from kbtui.vault.obsidian.templates import template_names, template_settings
from kbtui.vault.scan import vault_folders


def app_new_note(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    vault = parts.settings.vault
    settings = template_settings(vault)
    folder = new_file_folder(vault, args.get("current"))
    templates = template_names(vault, settings) if (vault / settings.folder).is_dir() else []
    return ok(
        folders=vault_folders(vault),
        folder=folder,
        templates=templates,
        template_folder=settings.folder,
        message=f"new notes go to {folder or 'the vault root'}; {len(templates)} template(s)",
    )


def app_note_ids(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    ids = parts.store.note_ids([str(p) for p in args["paths"]])
    return ok(ids=ids, message=f"{len(ids)} of {len(args['paths'])} path(s) indexed")


def app_changes(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    action: str = args["action"]
    writer = NoteWriter(parts)
    if action == "list":
        for name in ("path", "version"):
            if args.get(name) is not None:
                raise ValidationError(f"{name} is not used to list", field=name)
        return _list(parts, writer, args["limit"])
    for name in ("path", "version"):
        if args.get(name) is None:
            raise ValidationError(f"{name} is required to {action}", field=name)
    path = checked(str(args["path"]).strip(), "path")
    version = _version(writer, path, int(args["version"]), "version")
    if action == "diff":
        return _diff(writer, version)
    return _undo(writer, version, bool(args["dry_run"]))


def _list(parts: VaultParts, writer: NoteWriter, limit: int) -> dict[str, Any]:
    versions = writer.history.recent(limit, changes=True)
    paths = sorted({v.path for v in versions})
    ids = parts.store.note_ids(paths)
    newest = {p: n.version for p in paths if (n := writer.history.newest(p)) is not None}
    rows = [
        {
            **version.as_dict(),
            "when": version.time,
            "id": ids.get(version.path),
            "newest": newest.get(version.path) == version.version,
        }
        for version in versions
    ]
    return ok(changes=rows, count=len(rows), message=f"{len(rows)} recent write(s)")


def _before(writer: NoteWriter, version: Version) -> Version | None:
    """The version a write started from (None: it created the note, or that one is gone)."""
    if version.version == 1:
        return None
    return writer.history.version(version.path, version.version - 1)


def _diff(writer: NoteWriter, version: Version) -> dict[str, Any]:
    before = _before(writer, version)
    old = "" if before is None or before.hash is None else _text(_data(writer, before, "version"))
    new = "" if version.hash is None else _text(_data(writer, version, "version"))
    start = f"v{before.version}" if before is not None else "nothing"
    label = f"v{version.version}"
    added, removed = line_changes(old, new)
    return ok(
        path=version.path, version=version.version, diff=unified(old, new, version.path, start,
        label), added=added, removed=removed, source=version.source,
        operation=version.operation, message=f"{version.path}: {start} -> {label} "
        f"(+{added} -{removed}) by {version.source}",
    )  # fmt: skip


def _undo(writer: NoteWriter, version: Version, dry: bool) -> dict[str, Any]:
    """The note as it was before `version`, if it is still as `version` left it."""
    path, number = version.path, version.version
    file = writer.vault / path
    now = content_hash(file.read_bytes()) if file.is_file() else None
    if now != version.hash:
        newer = writer.history.newest(path)
        by = f" (v{newer.version}, {newer.source})" if newer and newer.version > number else ""
        raise ConflictError(
            f"{path} changed since v{number}{by}: nothing undone, so that no later change is "
            "lost; its history (h in the note) restores any version"
        )
    before = _before(writer, version)
    if before is None and number > 1:
        raise NotFoundError(f"the version before v{number} of {path} is no longer in the history")
    if version.hash is not None and (before is None or before.hash is None):
        # the write created the note: undoing it deletes it (to the trash; kept in history)
        result = delete_note(writer, path, version.hash, dry)
        answer = result.answer(undone=number)
        return ok(**answer, message=summary(f"undo v{number} (its creation): delete", result))
    assert before is not None
    result = writer.restore(path, before.version, version.hash, dry)
    return ok(
        **result.answer(undone=number, restored=before.version),
        message=summary(f"undo v{number}: restore v{before.version} of", result),
    )
