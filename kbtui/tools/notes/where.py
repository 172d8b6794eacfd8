"""Which file a note tool acts on: an existing note named as a caller names it (a vault path,
a name as a link reaches it, an entity id), a note's history (its old path too, once deleted),
or a new note's path as Obsidian would place it, refused when another note answers to its
name already (Obsidian resolves `[[Name]]` by file name, whatever the case)."""

from __future__ import annotations

import re

from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter, vault_path
from kbtui.vault.obsidian.new_file import new_file_folder

# Characters a file name cannot hold on one of the systems a vault syncs to (Obsidian
# refuses them there), and control characters.
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f\x7f*"<>:|?]')
_RESERVED = re.compile(r"(?i)con|prn|aux|nul|com\d|lpt\d")
MAX_NAME_BYTES = 255  # a file or folder name, on the systems Obsidian runs on


def note_path(parts: VaultParts, note: str, field: str = "note") -> str:
    """The vault path of the existing note NOTE names (resolve_note), one the write path
    accepts; NotFoundError otherwise."""
    return checked(resolve_note(parts, note.strip(), field), field)


def checked(path: str, field: str) -> str:
    """A vault path the write path accepts (no hidden folder, never outside the vault)."""
    try:
        return vault_path(path)
    except ValidationError as exc:
        raise ValidationError(exc.message, field=field) from None


def history_path(parts: VaultParts, writer: NoteWriter, note: str) -> str:
    """The path whose versions NOTE means: an existing note, else a path or a file name the
    history knows (a deleted note's)."""
    try:
        return note_path(parts, note)
    except NotFoundError:
        pass
    given = checked(note.strip().lstrip("/"), "note")
    for path in (given, given + ".md"):
        if writer.history.versions(path, limit=1):
            return path
    want = given.lower().removesuffix(".md")
    named = sorted(
        p
        for p in writer.history.paths()
        if (key := p.lower().removesuffix(".md")) == want or key.endswith("/" + want)
    )
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise ConflictError(f"{note!r} names the history of {', '.join(named)}: give the path")
    raise NotFoundError(f"no note named {note[:80]!r} in the vault, nor in its history")


def new_note_path(parts: VaultParts, raw: str) -> str:
    """Where a new note NAME or PATH goes: `.md` added; no folder: the vault's new-note folder
    (`/Name`: the root)."""
    text, shown = raw.strip().replace("\\", "/"), repr(raw[:80])
    at_root = text.startswith("/")
    path = checked(text.lstrip("/"), "path")
    name = path.rsplit("/", 1)[-1]
    bad = _NOT_IN_NAMES.search(path)
    if bad:
        raise ValidationError(
            f"{shown}: a note's name cannot hold {bad.group(0)!r} (it cannot be a file name on "
            "every system; Obsidian refuses it)",
            field="path",
        )
    if not name.lower().endswith(".md"):
        path, name = path + ".md", name + ".md"
    if any(len(part.encode()) > MAX_NAME_BYTES for part in path.split("/")):
        raise ValidationError(f"{shown}: a name longer than {MAX_NAME_BYTES} bytes", "path")
    if not name[:-3].strip(" ."):
        raise ValidationError(f"{shown} gives the note no name", field="path")
    if any(_RESERVED.fullmatch(part.split(".")[0]) for part in path.split("/")):
        raise ValidationError(f"{shown}: a name Windows keeps for a device", field="path")
    if "/" not in path and not at_root:
        folder = new_file_folder(parts.settings.vault)
        path = f"{folder}/{path}" if folder else path
    return path


def check_name_free(parts: VaultParts, path: str) -> None:
    """ConflictError when a note is at `path` already or another note answers to its name."""
    vault = parts.settings.vault
    if (vault / path).exists() or (vault / path).is_symlink():
        raise ConflictError(
            f"{path} already exists: read it (note_read) and overwrite it with its hash, or edit it"
        )
    stem = path.rsplit("/", 1)[-1][:-3]
    other = parts.store.note_by_name(stem)
    if other is not None and other != path:
        raise ConflictError(
            f"[[{stem}]] already reaches {other}: a second note of that name would make such "
            "links ambiguous; choose another name"
        )
    folder = (vault / path).parent
    if folder.is_dir():
        wanted = path.rsplit("/", 1)[-1].lower()
        for entry in folder.iterdir():
            if entry.name.lower() == wanted:  # a note written a moment ago, not indexed yet
                found = entry.relative_to(vault).as_posix()
                raise ConflictError(f"{found} already answers to [[{stem}]]; choose another name")
