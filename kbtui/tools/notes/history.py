"""note_history: a note's versions (kbtui.store.history: what kbtui wrote and what the indexer
saw other programs save), one version's text, a diff between two versions or a version and
the file, and a restore, which is a write like any other (undoable; a deleted note comes
back at its path).

Versions are numbered per path from 1, the oldest, so a number stays valid while newer ones
are added (Obsidian's CLI numbers from 1, the newest: a restore by number could then hit
another version than the one listed a moment before)."""

from __future__ import annotations

from typing import Any

from kbtui.store.history import Version
from kbtui.textdiff import content_hash, line_changes
from kbtui.tools.envelope import NotFoundError, ValidationError, ok
from kbtui.tools.notes.files import summary
from kbtui.tools.notes.where import history_path, note_path
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.codec import EncodingError, decode_for_edit
from kbtui.vault.edit.diffs import unified

_ONLY = {
    "list": (),
    "read": ("version",),
    "restore": ("version", "expected_hash", "dry_run"),
    "diff": ("from", "to"),
    "proposal": ("version",),
}
_ALL = ("version", "from", "to", "expected_hash", "dry_run")


def note_history(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    action: str = args["action"]
    for name in _ALL:
        if args.get(name) not in (None, False) and name not in _ONLY[action]:
            raise ValidationError(f"{name} is not used by action {action}", field=name)
    writer = NoteWriter(parts)
    if action == "proposal":
        return _proposal(parts, writer, args["note"], args.get("version"))
    path = history_path(parts, writer, args["note"])
    file = parts.settings.vault / path
    now = content_hash(file.read_bytes()) if file.is_file() else None
    if action == "list":
        rows = [
            {k: v for k, v in version.as_dict().items() if k != "path"}
            for version in writer.history.versions(path)
        ]
        return ok(
            path=path, hash=now, versions=rows, count=len(rows),
            message=f"{len(rows)} version(s) of {path}" + ("" if now else " (deleted)"),
        )  # fmt: skip
    if action in ("read", "restore"):
        if args.get("version") is None:
            raise ValidationError(f"version is required to {action}", field="version")
        version = _version(writer, path, args["version"], "version")
        data = _data(writer, version, "version")
        if action == "read":
            return ok(
                path=path, version=version.version, hash=version.hash, text=_text(data),
                time=version.as_dict()["time"], source=version.source,
                operation=version.operation, message=f"{path} v{version.version}",
            )  # fmt: skip
        number, dry = version.version, bool(args["dry_run"])
        result = writer.restore(path, number, args.get("expected_hash"), dry)
        return ok(
            **result.answer(restored=version.version),
            message=summary(f"restore v{version.version} of", result),
        )
    return _diff(writer, path, now, args.get("from"), args.get("to"))


def _version(writer: NoteWriter, path: str, number: int, field: str) -> Version:
    version = writer.history.version(path, number)
    if version is None:
        newest = writer.history.newest(path)
        known = f"versions 1-{newest.version}" if newest else "no versions"
        raise NotFoundError(f"{path} has no version {number} ({known})")
    return version


def _data(writer: NoteWriter, version: Version, field: str) -> bytes:
    if version.hash is None:
        raise ValidationError(
            f"version {version.version} of {version.path} is its deletion: it holds no text; "
            "give the version before it",
            field=field,
        )
    try:
        return writer.history.data(version.hash)
    except KeyError:
        raise NotFoundError(f"the bytes of version {version.version} are gone (pruned)") from None


def _text(data: bytes) -> str:
    try:
        return decode_for_edit(data).text
    except EncodingError:
        return data.decode("utf-8", errors="replace")


def _diff(
    writer: NoteWriter, path: str, now: str | None, start: int | None, end: int | None
) -> dict[str, Any]:
    """From version `start` (default: the newest whose bytes are not the end's) to version
    `end` (default: the file as it is)."""
    if end is not None:
        to = _version(writer, path, end, "to")
        to_hash, to_label = to.hash, f"v{end}"
        new = "" if to.hash is None else _text(_data(writer, to, "to"))
    else:
        file = writer.vault / path
        to_hash, to_label = now, "now" if now else "deleted"
        new = _text(file.read_bytes()) if now else ""
    if start is None:
        older = [v for v in writer.history.versions(path) if end is None or v.version < end]
        start = next((v.version for v in older if v.hash != to_hash), None)
    if start is None:  # no version before it: nothing to compare
        return ok(
            path=path, **{"from": None, "to": end}, diff="", added=0, removed=0,
            message=f"{path}: no earlier version than {to_label}",
        )  # fmt: skip
    version = _version(writer, path, start, "from")
    old = "" if version.hash is None else _text(_data(writer, version, "from"))
    label = f"v{start}"
    added, removed = line_changes(old, new)
    diff = unified(old, new, path, label, to_label)
    return ok(
        path=path, **{"from": start, "to": end}, diff=diff, added=added, removed=removed,
        message=f"{path}: {label} -> {to_label} (+{added} -{removed})",
    )  # fmt: skip


def _proposal(
    parts: VaultParts, writer: NoteWriter, note: str, number: int | None
) -> dict[str, Any]:
    """The state of a write held for review (kbtui.tools.review): proposal `number`, or the
    proposals about NOTE, newest first. A proposal may name a note that does not exist yet."""
    store = writer.history.proposals
    try:
        known = {note_path(parts, note)}
    except (NotFoundError, ValidationError):
        known = set()
    want = note.strip().replace("\\", "/").lstrip("/").lower().removesuffix(".md")

    def about(path: str) -> bool:
        key = path.lower().removesuffix(".md")
        return path in known or key == want or key.endswith("/" + want)

    if number is not None:
        found = store.get(number)
        if found is None:
            raise NotFoundError(f"no proposal {number}")
        if not about(found.path):
            raise ValidationError(f"proposal {number} is about {found.path}", field="note")
        return ok(
            path=found.path, proposal=found.as_dict(),
            message=f"proposal {number} ({found.tool} on {found.path}): {found.state}",
        )  # fmt: skip
    rows = [p.as_dict(diff=False) for p in store.listed(limit=1000) if about(p.path)][:50]
    path = rows[0]["path"] if rows else next(iter(known), None)
    return ok(path=path, proposals=rows, count=len(rows), message=f"{len(rows)} proposal(s)")
