"""kg_suggest_links (unlinked mentions) and kg_rename_entity (a rename or move that every link
follows). Both read the notes from disk (the vault is the truth) and edit them as text
through kbtui.vault.edit.relink, so only the characters of a link ever change; a rename writes
every file through kbtui.vault.edit.batch, all or nothing, then indexes what it wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from kbtui.store.graph.entities import link_key
from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, ok
from kbtui.vault.edit.batch import FileEdit, read_text, write_all
from kbtui.vault.edit.relink import (
    MarkdownEdits,
    find_mentions,
    link_mention,
    mention_at,
    name_pattern,
    name_ranges,
    retitle,
    rewrite_links,
    words_of,
)
from kbtui.vault.edit.write import WriteError, inside, replace_note
from kbtui.vault.mdlinks import rewrite_md_links
from kbtui.vault.parse import derive_type_and_name
from kbtui.vault.scan import scan_vault
from kbtui.vault.spans import Span, spans

if TYPE_CHECKING:
    from kbtui.tools.graph.write import GraphWriter

_BAD_CHARS = re.compile(r'[\x00-\x1f\x7f\\:*?"<>|#^\[\]]')
PREVIEW_LINES = 20  # changed lines shown per file by a dry run
NOTE_CACHE = 50_000  # notes kept parsed between calls


@dataclass
class _Note:
    stamp: tuple[int, int]  # mtime_ns, size
    text: str
    _words: frozenset[str] | None = None
    _spans: list[Span] | None = None

    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = words_of(self.text)
        return self._words

    def spans(self) -> list[Span]:
        if self._spans is None:
            self._spans = spans(self.text)
        return self._spans


class LinkTools:
    """The two tools over one GraphWriter (its store, vault and indexer)."""

    def __init__(self, writer: GraphWriter) -> None:
        self.writer = writer
        self.graph = writer.graph
        self.store = writer.store
        self.vault = writer.vault
        self.index_dir = writer.graph.parts.settings.index_dir
        self.released = writer.graph.parts.released
        self._notes: dict[str, _Note] = {}

    # -- kg_suggest_links -----------------------------------------------------------------
    def kg_suggest_links(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id, limit = args["entityId"], args["limit"]
        paths = self.store.note_paths()
        if entity_id:
            row = self.graph.require(entity_id)
            owners = {_norm(n): entity_id for n in [row["name"], *row["aliases"]]}
            sources = [(eid, p) for eid, p in paths.items() if eid != entity_id]
            with self.released():  # files only: searches and saves go on meanwhile
                suggestions = self._scan(owners, sources, set(), every=True)
        else:
            owners = _unambiguous(self.store.name_owners())
            sources = list(paths.items())
            linked = self.store.linked_pairs()
            with self.released():
                suggestions = self._scan(owners, sources, linked, every=False)
            # longer names are the more certain suggestions
            suggestions.sort(key=lambda s: (-len(s["text"]), s["filePath"], s["line"]))
        total = len(suggestions)
        suggestions = suggestions[:limit]
        where = f" of {entity_id}" if entity_id else ""
        return ok(
            suggestions=suggestions,
            count=len(suggestions),
            totalFound=total,
            message=f"Found {total} unlinked mention(s){where}",
        )

    def note_mentions(self, args: dict[str, Any]) -> dict[str, Any]:
        """For the note view: where other notes name this one unlinked (incoming), and which
        entities this note names without linking them (outgoing)."""
        entity_id, limit = args["entityId"], args["limit"]
        row = self.graph.require(entity_id)
        incoming = self.kg_suggest_links({"entityId": entity_id, "limit": limit})["suggestions"]
        owners = _unambiguous(self.store.name_owners())
        linked = self.store.linked_pairs()
        outgoing = self._scan(owners, [(entity_id, row["path"])], linked, every=True)
        return ok(incoming=incoming, outgoing=outgoing[:limit])

    def _scan(
        self,
        owners: dict[str, str],
        sources: list[tuple[str, str]],
        linked: set[tuple[str, str]],
        every: bool,
    ) -> list[dict[str, Any]]:
        """Mentions of `owners`' names in the `sources` notes (id, path): all of them with
        `every`, else one per pair of notes and no lower-case single words."""
        names = name_pattern(owners)
        found: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for source, path in sorted(sources, key=lambda item: item[1]):
            note = self._note(path) if names is not None else None
            if note is None or names is None or not names.may_occur(note.words()):
                continue
            text = note.text
            for start, end in name_ranges(text, names, note.spans()):
                words = text[start:end]
                target = owners.get(_norm(words))
                if target is None or target == source or (source, target) in linked:
                    continue
                if not every and ((source, target) in seen or _common_word(words)):
                    continue
                seen.add((source, target))
                m = mention_at(text, start, end)
                found.append(
                    {
                        "sourceEntityId": source,
                        "targetEntityId": target,
                        "text": m.text,
                        "line": m.line,
                        "column": m.start - text.rfind("\n", 0, m.start),
                        "filePath": path,
                        "context": m.context,
                    }
                )
        return found

    def link_mention(self, args: dict[str, Any]) -> dict[str, Any]:
        """Turn one suggestion into `[[Target|text]]`, re-checked against the file as it is."""
        source = self.graph.require(args["sourceEntityId"])
        target = self.graph.require(args["targetEntityId"])
        path = self.vault / source["path"]
        data = path.read_bytes()
        text, encode = _read(data, source["path"])
        pattern = name_pattern([args["text"]])
        line, column = args["line"], args["column"]
        start = _offset(text, line, column)
        found = find_mentions(text, pattern) if pattern is not None else []
        hit = next((m for m in found if m.start == start), None)
        if hit is None or hit.text != args["text"]:
            raise ConflictError(
                f"{source['path']} no longer has {args['text']!r} unlinked at line {line}; "
                "suggest again"
            )
        new = link_mention(text, hit.start, hit.end, self.writer._link_ref(target))
        try:
            replace_note(path, data, encode(new))
        except WriteError as exc:
            raise ConflictError(str(exc)) from exc
        self.writer.index_paths(source["path"])
        return ok(filePath=source["path"], message=f"Linked {hit.text!r} to {target['id']}")

    # -- kg_rename_entity -----------------------------------------------------------------
    def kg_rename_entity(self, args: dict[str, Any]) -> dict[str, Any]:
        row = self.graph.require(args["entityId"])
        old_path: str = row["path"]
        if not old_path.lower().endswith(".md"):
            raise ValidationError(f"only notes (.md) can be renamed here, not {old_path}")
        new_path = self._new_path(old_path, args["newName"])
        old_stem, new_stem = _stem(old_path), _stem(new_path)
        fm = row["frontmatter"]
        keeps_id = fm.get("id") == row["id"]
        new_type, new_name = derive_type_and_name(new_path, fm)
        new_id = row["id"] if keeps_id else f"{new_type}:{new_name}"
        if not keeps_id and new_id != row["id"] and self.store.note(new_id) is not None:
            raise ValidationError(
                f"the new name would give the id {new_id}, which {self._path_of(new_id)} has",
                field="newName",
            )
        changing = {k for k, kind in self.store.winning_names(row["id"]) if kind in (1, 2, 3)}
        if not keeps_id:
            changing.add(link_key(row["id"]))
        owners = set(self.store.entities_named(new_stem)) - {row["id"]}
        plain = new_stem if not owners else new_path[:-3]

        def new_target(old: str) -> str:
            key = link_key(old)
            suffix = ".md" if old.lower().endswith(".md") else ""
            if not keeps_id and key == link_key(row["id"]):
                return new_id
            if "/" in key:
                return ("/" if old.startswith("/") else "") + new_path[:-3] + suffix
            return plain + suffix

        def resolves(target: str) -> bool:
            return link_key(target) in changing

        def markdown_edits(source: str) -> MarkdownEdits:
            def edit(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
                # the note's own links are written from where it will be
                at = new_path if source == old_path else None
                return rewrite_md_links(text, ranges, source, resolves, old_path, new_path, at)[0]

            return edit

        edits: list[FileEdit] = []
        changes: list[dict[str, Any]] = []
        total = 0
        for path in self._linking(changing, old_path):
            data = (self.vault / path).read_bytes()
            text, encode = _read(data, path)
            new, count = rewrite_links(text, resolves, new_target, markdown_edits(path))
            if path == old_path:
                new = retitle(new, old_stem, new_stem)
            if new == text and path != old_path:
                continue
            total += count
            shown = new_path if path == old_path else path
            change: dict[str, Any] = {"path": shown, "linksRewritten": count}
            if args["dryRun"]:
                change["lines"] = _changed_lines(text, new)
            changes.append(change)
            if new != text:
                edits.append(FileEdit(self.vault / path, data, encode(new)))
        moved = f"{old_path} -> {new_path}"
        counted = f"{total} link(s) in {len(changes)} file(s)"
        if args["dryRun"]:
            entity = self.graph.entity(row)
            message = f"Dry run: {moved} would rewrite {counted}; nothing was written"
        else:
            try:
                write_all(self.vault, edits, (self.vault / old_path, self.vault / new_path))
            except WriteError as exc:
                raise ConflictError(str(exc)) from exc
            if new_id != row["id"]:  # the id follows the file name: so does its usage history
                self.store.flush_usage()
                self.store.carry_usage([(row["id"], new_id)])
            self.writer.index_paths(old_path, new_path, *(c["path"] for c in changes))
            entity = self.graph.entity(self.graph.require(new_id))
            message = f"Renamed {moved}; rewrote {counted}"
        return ok(
            entity=entity,
            oldPath=old_path,
            newPath=new_path,
            newEntityId=new_id,
            filesChanged=changes,
            linksRewritten=total,
            dryRun=args["dryRun"],
            message=message,
        )

    def _new_path(self, old_path: str, raw: str) -> str:
        """The vault path `newName` asks for; VALIDATION when it cannot be one."""
        name = raw.strip()
        if name.lower().endswith(".md"):
            name = name[:-3].rstrip()
        if not name:
            raise ValidationError("newName cannot be empty", field="newName")
        bad = _BAD_CHARS.search(name)
        if bad:
            raise ValidationError(
                f"newName has {bad.group()!r}, which a note's file name cannot hold "
                '(none of \\ : * ? " < > | # ^ [ ] or control characters)',
                field="newName",
            )
        parts = name.split("/")
        if name.startswith("/") or any(p.strip() in ("", ".", "..") for p in parts):
            raise ValidationError(f"newName {raw!r} would leave the vault", field="newName")
        if any(p.startswith(".") or p != p.strip() for p in parts):
            raise ValidationError(
                "newName parts cannot start with '.' (hidden: never indexed) or a space",
                field="newName",
            )
        if len(parts) == 1 and "/" in old_path:
            parts = [*old_path.split("/")[:-1], name]
        new_path = "/".join(parts) + ".md"
        target = self.vault / new_path
        if not inside(self.vault, target.parent if target.parent.exists() else self.vault):
            raise ValidationError(f"newName {raw!r} would leave the vault", field="newName")
        if new_path == old_path:
            raise ValidationError(f"the note is already named {new_path}", field="newName")
        if target.exists() or target.is_symlink():
            raise ValidationError(f"{new_path} already exists", field="newName")
        return new_path

    def _linking(self, keys: set[str], own: str) -> list[str]:
        """Notes that may link through `keys`: the index's answer, plus every note on disk
        whose text names one (a link typed a moment ago, or in a note the index skipped);
        rewrite_links then changes only links that really resolve to the note."""
        found = {*self.store.paths_linking(sorted(keys)), own}
        needles = {k.rsplit("/", 1)[-1] for k in keys}
        needles |= {quote(n) for n in needles}  # `[t](Other%20note.md)`
        files, _ = scan_vault(self.vault, self.index_dir)
        for path in files:
            if path not in found:
                text = self._text(path)
                if text is not None and any(n in text.lower() for n in needles):
                    found.add(path)
        return sorted(found)

    def _path_of(self, entity_id: str) -> str:
        return str(self.store.note_paths().get(entity_id, entity_id))

    def _note(self, path: str) -> _Note | None:
        """The note's text, words and spans, kept while its file is unchanged: the note view
        asks for a note's mentions each time it opens, which reads every note."""
        try:
            st = (self.vault / path).stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        cached = self._notes.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        text = self._text(path)
        if text is None:
            return None
        if len(self._notes) >= NOTE_CACHE:
            self._notes.clear()
        note = self._notes[path] = _Note(stamp, text)
        return note

    def _text(self, path: str) -> str | None:
        try:
            return read_text((self.vault / path).read_bytes())[0]
        except (OSError, WriteError):  # gone since the last pass, or not editable text
            return None


def _read(data: bytes, path: str) -> tuple[str, Any]:
    try:
        return read_text(data)
    except WriteError as exc:
        raise ConflictError(f"{path}: {exc}") from exc


def _unambiguous(names: list[tuple[str, str]]) -> dict[str, str]:
    """Name -> entity for names only one entity has (a shared name suggests nothing)."""
    owners: dict[str, set[str]] = {}
    for name, entity_id in names:
        owners.setdefault(_norm(name), set()).add(entity_id)
    return {n: next(iter(ids)) for n, ids in owners.items() if len(ids) == 1}


def _common_word(words: str) -> bool:
    """A one-word name written in lower case ("index", "empty"): across the whole vault that
    is ordinary prose far more often than a mention of the note with that title."""
    return " " not in words.strip() and words.islower()


def _norm(name: str) -> str:
    return " ".join(name.lower().split())


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            raise NotFoundError(f"there is no line {line}")
    return start + column - 1


def _changed_lines(old: str, new: str) -> list[dict[str, Any]]:
    before, after = old.split("\n"), new.split("\n")
    lines = [
        {"line": i + 1, "before": a, "after": b}
        for i, (a, b) in enumerate(zip(before, after, strict=False))
        if a != b
    ]
    return lines[:PREVIEW_LINES]
