"""Contracts of the note tools (issue 39): read a note with its hash, write, edit, delete and
undo through the one write path. Kept short: every character is an assistant's context (the
whole `tools/list` stays under 28k characters), so an enum or a flag goes without words."""

from __future__ import annotations

from kbtui.tools.contracts.kb import READ, Effects, ToolSpec
from kbtui.tools.params import Param

_NOTE = Param("string", "Path, name or entity id.", True, min_length=1, max_length=500)
_HASH = Param("string", "note_read's hash: refused if the note changed.")
_DRY = Param("boolean", "Diff only, no write.")  # booleans default to false: unsaid
_WRITE = {"path": None, "hash": None}
_DRY_READS = ("dry_run", (True,))
# overwrite, replace and property removal take text away: destructive; append adds again
_WRITES = Effects(read_when=_DRY_READS, scoped=True, reviewable=True)
POSITIONS = ("append", "prepend", "replace", "before", "after")
PROPERTY_TYPES = ("text", "list", "multitext", "number", "checkbox", "date", "datetime")

NOTE_READ = ToolSpec(
    "note_read",
    "A note's raw text and hash (sha256 of the file) for expected_hash.",
    {
        "note": _NOTE,
        "startLine": Param("integer", "", minimum=1),
        "endLine": Param("integer", "", minimum=1),
    },
    {"path": None, "hash": None, "text": None},
    effects=READ,
)

NOTE_WRITE = ToolSpec(
    "note_write",
    "Create a note (never over a file or a name in use), or overwrite (needs expected_hash), "
    "append or prepend (after the properties).",
    {
        "path": Param(
            "string",
            "Path or name; no folder: the new-note folder, /Name: the root.",
            True,
            min_length=1,
            max_length=500,
        ),
        "content": Param("string", "", default=""),
        "mode": Param(
            "string", "", default="create", enum=("create", "overwrite", "append", "prepend")
        ),
        "expected_hash": _HASH,
        "inline": Param("boolean", "No line break."),
        "template": Param("string", "A template's name.", max_length=500),
        "dry_run": _DRY,
    },
    _WRITE,
    effects=_WRITES,
)

_EDIT = Param(
    "object",
    "{section|block, position, text} | {old, new, count|all} | {property, value, type} | "
    "{property, remove}",
    properties={
        "section": Param("string", "Heading or A > B."),
        "block": Param("string", "^id"),
        "position": Param("string", "", default="append", enum=POSITIONS),
        "text": Param("string", ""),
        "old": Param("string", "Exact text."),
        "new": Param("string", ""),
        "count": Param("integer", "Expected (1).", minimum=1),
        "all": Param("boolean", ""),
        "property": Param("string", "", max_length=200),
        "value": Param(("string", "number", "boolean", "array"), ""),
        "type": Param("string", "", enum=PROPERTY_TYPES),
        "remove": Param("boolean", ""),
    },
)

NOTE_EDIT = ToolSpec(
    "note_edit",
    "Edit a note: text at a section or block, exact text replaced, properties set or removed; "
    "in order, all or none. A missing or ambiguous target is refused with the candidates.",
    {
        "note": _NOTE,
        "edits": Param("array", "", True, items=_EDIT, max_items=100),
        "expected_hash": _HASH,
        "create_section": Param("boolean", "Add a missing heading."),
        "dry_run": _DRY,
    },
    _WRITE,
    effects=_WRITES,
)

NOTE_DELETE = ToolSpec(
    "note_delete",
    "Delete a note to the vault's trash (kept in history); answers the links left unresolved.",
    {"note": _NOTE, "expected_hash": _HASH, "dry_run": _DRY},
    {**_WRITE, "trash": None, "unresolved": []},
    effects=Effects(idempotent=True, read_when=_DRY_READS, scoped=True, reviewable=True),
)

NOTE_HISTORY = ToolSpec(
    "note_history",
    "A note's versions, deleted notes too: list, read or restore one, diff two (default: the "
    "last change). proposal: the state of writes held for review (version: the proposal id).",
    {
        "note": _NOTE,
        "action": Param(
            "string", "", default="list", enum=("list", "read", "diff", "restore", "proposal")
        ),
        "version": Param("integer", "", minimum=1),
        "from": Param("integer", "", minimum=1),
        "to": Param("integer", "Default: the file.", minimum=1),
        "expected_hash": _HASH,
        "dry_run": _DRY,
    },
    {"path": None, "versions": []},
    effects=Effects(
        idempotent=True,
        read_when=("action", ("list", "read", "diff", "proposal")),
        scoped=True,
        reviewable=True,
    ),
)

NOTE_TOOLS = {t.name: t for t in (NOTE_READ, NOTE_WRITE, NOTE_EDIT, NOTE_DELETE, NOTE_HISTORY)}

# The TUI's own note operations (not published over MCP: their names start with app_).
APP_NEW_NOTE = ToolSpec(
    "app_new_note",
    "What the new-note dialog offers: the vault's folders, the folder a new note goes to "
    "(Obsidian's setting; `current`: the note open now), the Templates plugin's templates.",
    {"current": Param("string", "The vault path of the note open now.", max_length=1000)},
    {"folders": [], "folder": "", "templates": [], "template_folder": ""},
    effects=READ,
)
APP_CHANGES = ToolSpec(
    "app_changes",
    "The latest writes across the vault, newest first (list); what one of them changed "
    "(diff: against the version before it); or undo one (a restore of the version before "
    "it, refused when the note changed since; undoing a creation deletes the note).",
    {
        "action": Param("string", "", default="list", enum=("list", "diff", "undo")),
        "limit": Param("integer", "Most writes listed.", default=200, minimum=1, maximum=2000),
        "path": Param("string", "The note's vault path (diff, undo).", max_length=1000),
        "version": Param("integer", "The write's version of that note (diff, undo).", minimum=1),
        "dry_run": _DRY,
    },
    {"changes": []},
    effects=Effects(read_when=("action", ("list", "diff")), scoped=True),
)
APP_NOTE_IDS = ToolSpec(
    "app_note_ids",
    "The entity ids of indexed notes by their vault paths (a note just written, to open it).",
    {
        "paths": Param(
            "array",
            "Vault paths.",
            True,
            items=Param("string", "", max_length=1000),
            max_items=1000,
        ),
    },
    {"ids": {}},
    effects=READ,
)
APP_NOTE_TOOLS = {t.name: t for t in (APP_NEW_NOTE, APP_CHANGES, APP_NOTE_IDS)}
