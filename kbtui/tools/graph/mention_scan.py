"""The unlinked-mentions scan behind kg_suggest_links and the note view, with what it found in
each note kept between calls (issue 33, item 1).

A vault-wide scan matches every note's prose against every note name and asks the mention
rules about each match: ~1-2 s of pure Python on 1,500 notes, holding the interpreter lock
from the searches beside it. Asked back to back while one note changes at a time, almost all
of that work gives the same answer again. So each note's matches that read as mentions are
kept under everything they depend on (the file's mtime and size, its entity id) per set of
names; a rescan after a one-note save parses that one note. What depends on the index or on
other notes (a pair already linked, a target named after something else, one suggestion per
pair of notes) is decided per scan from the kept matches, in the same order, so the answer
is the one a scan from scratch gives (the rules are filters: asked in another order, they
keep the same matches). A rule that reads anything but the source note and the names (a
target's type or text, the index) belongs in `scan`'s per-scan filters, not in `_mentions`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtui.graph.mention_rules import NoteText, is_mention
from kbtui.graph.named_after import addon_after, named_after_other
from kbtui.graph.text import is_first_name
from kbtui.vault.edit.codec import decode_for_edit
from kbtui.vault.edit.relink import NameMatcher, mention_at, name_pattern, name_ranges, words_of
from kbtui.vault.edit.write import WriteError
from kbtui.vault.spans import Span, spans

NOTE_CACHE = 50_000  # notes kept parsed between calls
NAME_SETS = 8  # sets of names whose matches are kept (the vault's, a few single entities')

Named = list[tuple[str, str]]  # (name, entity id)


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


@dataclass(frozen=True)
class _Hit:
    """One match in a note that reads as a mention, before the per-scan filters."""

    target: str
    norm: str  # the matched words normalised: which spellings of the target they are
    plugin: bool  # followed by "plugin" and the like: never "named after something else"
    fields: tuple[str, int, int, str]  # text, line, column, context


@dataclass(frozen=True)
class _Names:
    """A set of names made ready to match: built once per set, not per scan."""

    owners: dict[str, str]  # normalised name -> the one entity that has it
    spellings: dict[str, set[str]]  # normalised name -> the names as written
    matcher: NameMatcher | None


# (stamp, source id) -> the note's hits
_Kept = tuple[tuple[tuple[int, int], str], tuple[_Hit, ...]]


class MentionScan:
    """Notes read from the vault and their mentions, kept while their inputs are unchanged.
    Scans may run on several threads at once: entries are replaced whole, never changed."""

    def __init__(self, vault: Path, pause: Callable[[], None]) -> None:
        self.vault = vault
        self._root = str(vault)  # os.stat on a str: pathlib's joins cost more than the stat
        self.pause = pause  # between notes: other calls go first
        self._notes: dict[str, _Note] = {}
        self._names: dict[tuple[tuple[str, str], ...], _Names] = {}
        self._kept: dict[tuple[tuple[tuple[str, str], ...], bool], dict[str, _Kept]] = {}
        self._lock = threading.Lock()  # the two small dicts above: which sets are kept
        self.parsed = 0  # notes matched anew (not from what was kept): for tests and benches

    def scan(
        self,
        named: Named,
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
        names, kept = self._prepared(named, one_entity)
        if names.matcher is None:
            return []
        other: dict[tuple[str, str], bool] = {}

        def means_other(target: str, spelled: set[str]) -> bool:
            key = (target, min(spelled))
            if key not in other:
                note = self.note(where[target]) if target in where else None
                text = note.text if note is not None else ""
                other[key] = any(named_after_other(text, name) for name in spelled)
            return other[key]

        found: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for source, path in sorted(sources, key=lambda item: item[1]):
            self.pause()
            for hit in self._hits(names, kept, source, path, one_entity):
                if (source, hit.target) in linked:
                    continue
                if not every and (source, hit.target) in seen:
                    continue
                spelled = names.spellings[hit.norm]
                if not one_entity and not hit.plugin and means_other(hit.target, spelled):
                    continue  # "your Google Calendar", not the plugin "Google Calendar"
                seen.add((source, hit.target))
                text, line, column, context = hit.fields
                found.append(
                    {
                        "sourceEntityId": source,
                        "targetEntityId": hit.target,
                        "text": text,
                        "line": line,
                        "column": column,
                        "filePath": path,
                        "context": context,
                    }
                )
        return found

    def _prepared(self, named: Named, one_entity: bool) -> tuple[_Names, dict[str, _Kept]]:
        """The names made ready and the notes' kept hits for them, the least recently
        asked set dropped past NAME_SETS."""
        key = tuple(named)
        with self._lock:
            names = self._names.pop(key, None)
            kept = self._kept.pop((key, one_entity), None)
        if names is None:
            owners = _unambiguous(named)
            spellings: dict[str, set[str]] = {}
            for name, _ in named:
                spellings.setdefault(_norm(name), set()).add(name)
            names = _Names(owners, spellings, name_pattern(owners))
        kept = {} if kept is None else kept
        with self._lock:
            self._names[key], self._kept[(key, one_entity)] = names, kept
            while len(self._names) > NAME_SETS:
                self._names.pop(next(iter(self._names)), None)
            while len(self._kept) > NAME_SETS:
                self._kept.pop(next(iter(self._kept)), None)
        return names, kept

    def _hits(
        self,
        names: _Names,
        kept: dict[str, _Kept],
        source: str,
        path: str,
        one_entity: bool,
    ) -> tuple[_Hit, ...]:
        """The note's matches that read as mentions of another note."""
        note = self.note(path)
        if note is None:
            return ()
        inputs = (note.stamp, source)
        entry = kept.get(path)
        if entry is not None and entry[0] == inputs:
            return entry[1]
        hits = _mentions(note, names, source, one_entity)
        self.parsed += 1
        if len(kept) >= NOTE_CACHE:
            kept.clear()
        kept[path] = (inputs, hits)
        return hits

    def note(self, path: str) -> _Note | None:
        """The note's text, words and spans, kept while its file is unchanged: the note view
        asks for a note's mentions each time it opens, which reads every note."""
        try:
            st = os.stat(f"{self._root}/{path}")
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        cached = self._notes.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        try:
            text = decode_for_edit((self.vault / path).read_bytes()).text
        except (OSError, WriteError):  # gone since the last pass, or not editable text
            return None
        if len(self._notes) >= NOTE_CACHE:
            self._notes.clear()
        note = self._notes[path] = _Note(stamp, text)
        return note


def _mentions(note: _Note, names: _Names, source: str, one_entity: bool) -> tuple[_Hit, ...]:
    """Every match of `names` in the note's prose that the mention rules accept, in order;
    one-entity scans ask the rules as such (`one_entity` is part of the kept set's key)."""
    matcher = names.matcher
    if matcher is None or not matcher.may_occur(note.words()):
        return ()
    text, places, out = note.text, NoteText(note.text), []
    for start, end in name_ranges(text, matcher, note.spans()):
        norm = _norm(text[start:end])
        target = names.owners.get(norm)
        if target is None or target == source:
            continue
        if not is_mention(places, start, end, names.spellings[norm], is_first_name, one_entity):
            continue
        m = mention_at(text, start, end)
        column = m.start - text.rfind("\n", 0, m.start)
        plugin = addon_after(text[end : end + 40])  # "the Citations plugin"
        out.append(_Hit(target, norm, plugin, (m.text, m.line, column, m.context)))
    return tuple(out)


def _unambiguous(names: Named) -> dict[str, str]:
    """Name -> entity for names only one entity has (a shared name suggests nothing)."""
    owners: dict[str, set[str]] = {}
    for name, entity_id in names:
        owners.setdefault(_norm(name), set()).add(entity_id)
    return {n: next(iter(ids)) for n, ids in owners.items() if len(ids) == 1}


def _norm(name: str) -> str:
    return " ".join(name.lower().split())
