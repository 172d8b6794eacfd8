"""kg_suggest_links (unlinked mentions) and linking one. They read the notes from disk (the
vault is the truth) and edit them as text through kbtui.vault.edit.relink, so only the characters
of a link ever change. kg_rename_entity is in kbtui.tools.graph.rename.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kbtui.graph.mention_rules import NoteText, is_mention
from kbtui.graph.named_after import addon_after, named_after_other
from kbtui.graph.text import is_first_name
from kbtui.tools.envelope import ConflictError, NotFoundError, ok
from kbtui.vault.edit.batch import read_text
from kbtui.vault.edit.relink import (
    find_mentions,
    link_mention,
    mention_at,
    name_pattern,
    name_ranges,
    words_of,
)
from kbtui.vault.edit.write import WriteError, replace_note
from kbtui.vault.spans import Span, spans

if TYPE_CHECKING:
    from kbtui.tools.graph.write import GraphWriter

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
        self.pause = writer.graph.parts.pause  # between notes: other calls go first
        self._notes: dict[str, _Note] = {}

    # -- kg_suggest_links -----------------------------------------------------------------
    def kg_suggest_links(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id, limit, offset = args["entityId"], args["limit"], args["offset"]
        paths = self.store.note_paths()
        if entity_id:
            row = self.graph.require(entity_id)
            names = [(n, entity_id) for n in [row["name"], *row["aliases"]] if n]
            sources = [(eid, p) for eid, p in paths.items() if eid != entity_id]
            with self.released():  # files only: searches and saves go on meanwhile
                suggestions = self._scan(names, sources, set(), every=True, one_entity=True)
        else:
            sources = list(paths.items())
            linked, named = self.store.linked_pairs(), self.store.name_owners()
            with self.released():  # the store is read before: another thread has it meanwhile
                suggestions = self._scan(named, sources, linked, every=False)
            # longer names are the more certain suggestions
            suggestions.sort(key=lambda s: (-len(s["text"]), s["filePath"], s["line"]))
        total = len(suggestions)
        suggestions = suggestions[offset : offset + limit]
        where = f" of {entity_id}" if entity_id else ""
        shown = f"; showing {offset + 1}-{offset + len(suggestions)}" if suggestions else ""
        if total and not suggestions:
            shown = f"; none from offset {offset}"
        return ok(
            suggestions=suggestions,
            count=len(suggestions),
            totalFound=total,
            offset=offset,
            message=f"Found {total} unlinked mention(s){where}{shown}",
        )

    def note_mentions(self, args: dict[str, Any]) -> dict[str, Any]:
        """For the note view: where other notes name this one unlinked (incoming), and which
        entities this note names without linking them (outgoing)."""
        entity_id, limit = args["entityId"], args["limit"]
        row = self.graph.require(entity_id)
        incoming = self.kg_suggest_links({"entityId": entity_id, "limit": limit, "offset": 0})
        incoming = incoming["suggestions"]
        linked = self.store.linked_pairs()
        outgoing = self._scan(
            self.store.name_owners(),
            [(entity_id, row["path"])],
            linked,
            every=True,
            paths=self.store.note_paths(),
        )
        return ok(incoming=incoming, outgoing=outgoing[:limit])

    def _scan(
        self,
        named: list[tuple[str, str]],
        sources: list[tuple[str, str]],
        linked: set[tuple[str, str]],
        every: bool,
        one_entity: bool = False,
        paths: dict[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Mentions of the (name, entity id) `named` in the `sources` notes (id, path): all
        of them with `every`, else one per pair of notes; only matches that read as mentions
        (graph.mention_rules: not headings, comments, labels, other capitals ...) and, unless
        one entity's mentions are asked for, not the name of what a note named after
        something else works with (graph.named_after). `paths`: every note's path by id
        (default: the sources')."""
        where = dict(sources) if paths is None else paths
        other: dict[tuple[str, str], bool] = {}

        def means_other(target: str, spelled: set[str]) -> bool:
            key = (target, min(spelled))
            if key not in other:
                note = self._note(where[target]) if target in where else None
                text = note.text if note is not None else ""
                other[key] = any(named_after_other(text, name) for name in spelled)
            return other[key]

        owners = _unambiguous(named)
        spellings: dict[str, set[str]] = {}
        for name, _ in named:
            spellings.setdefault(_norm(name), set()).add(name)
        names = name_pattern(owners)
        found: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for source, path in sorted(sources, key=lambda item: item[1]):
            self.pause()
            note = self._note(path) if names is not None else None
            if note is None or names is None or not names.may_occur(note.words()):
                continue
            text, places = note.text, NoteText(note.text)
            for start, end in name_ranges(text, names, note.spans()):
                words = text[start:end]
                target = owners.get(_norm(words))
                if target is None or target == source or (source, target) in linked:
                    continue
                if not every and (source, target) in seen:
                    continue
                spelled = spellings[_norm(words)]
                if not is_mention(places, start, end, spelled, is_first_name, one_entity):
                    continue
                plugin = addon_after(text[end : end + 40])  # "the Citations plugin"
                if not one_entity and not plugin and means_other(target, spelled):
                    continue  # "your Google Calendar", not the plugin "Google Calendar"
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


def _norm(name: str) -> str:
    return " ".join(name.lower().split())


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            raise NotFoundError(f"there is no line {line}")
    return start + column - 1
