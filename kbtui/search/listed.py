"""A list entry that points to the answer: the note it links to is the result, not the list.

Hub notes give other notes a line each (obsidian-hub's "Uncategorized plugins": `- [[bible-sidecar
|Bible sidecar]]: Open the bible in your prefered translation in a splitscreen view`; a
category page; a person's page listing their plugins; a docs index listing its pages). A
question about one of those notes matches its line in the list as well as the note itself, and
the long list took a top-3 place above the note, or the list's line scored and the note's
short text did not. When a result's best chunk is a list of linked entries and one entry holds
the query's words (at least two, and most of those the chunk holds), the note that entry links
to takes the list's place and score, and the list is named in its `listed_in`. A list whose
title is what the query asks for ("Japanese language plugins") stays a result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kbtui.models import ChunkHit
from kbtui.store import Store
from kbtui.tokenize import query_terms
from kbtui.vault.plain import plain_text

# a list item that starts with its link: it names a note, then says what the note is
_ENTRY = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+[*_]*\[")
_LINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]|\[[^\[\]]*\]\(([^()\s]+)\)")
MIN_ENTRIES = 3  # linked entries a chunk needs to count as a list
MIN_WORDS = 2  # query words the entry must hold
LOOK = 20  # results looked at: a list further down gives its note no place worth having


def _entry_target(line: str) -> str | None:
    """The one note a list entry links to (wikilink or relative markdown link), else None:
    a bullet that mentions a note in passing ("- Models must fit, see [[lab]]") or a table
    row (a team's "| [[priya]] | gesture models |") is about its own note, not an entry."""
    if not _ENTRY.match(line):
        return None
    targets = [a or b for a, b in _LINK.findall(line)]
    targets = [t for t in targets if "://" not in t and not t.startswith(("#", "mailto:"))]
    return targets[0].strip() if len(targets) == 1 else None


def listed_target(text: str, title: str, query: str) -> str | None:
    """The link target of the list entry in `text` that answers `query`, else None."""
    if text.count("[") < MIN_ENTRIES:
        return None
    entries = [(t, line) for line in text.splitlines() if (t := _entry_target(line))]
    if len(entries) < MIN_ENTRIES:
        return None
    wanted = set(query_terms(query))
    title_terms = set(query_terms(title))
    if title_terms and len(title_terms & wanted) * 2 > len(title_terms):
        return None  # the list is what the query names
    held = wanted & set(query_terms(plain_text(text)))
    scored = sorted(
        ((len(wanted & set(query_terms(plain_text(line)))), t) for t, line in entries),
        reverse=True,
    )
    best, target = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0
    if best < MIN_WORDS or best == runner or best * 2 <= len(held):
        return None
    return target


def fold_listed(
    order: list[str],
    texts: dict[str, tuple[str, str]],
    query: str,
    resolve: Callable[[str, str], str | None],
) -> dict[str, str]:
    """List note id -> the note id its answering entry links to, for the notes in `order`
    (best first) whose text (`texts`: id -> (title, best chunk's text)) is such a list;
    `resolve(list id, link target)` is the note a link from that list reaches."""
    folded: dict[str, str] = {}
    for note in order:
        title, text = texts[note]
        target = listed_target(text, title, query)
        if target is None:
            continue
        reached = resolve(note, target)
        if reached is not None and reached != note and reached not in folded:
            folded[note] = reached
    return folded


def fold_lists(
    store: Store, hits: list[ChunkHit], details: dict[int, dict[str, Any]], query: str
) -> tuple[list[ChunkHit], dict[str, list[str]]]:
    """`hits` (one per note, best first) with each answering list replaced by the note its
    entry links to (fold_listed), best first again; `details` gains the new chunks' rows.
    Also: note id -> the paths of the lists folded into it."""
    top = hits[:LOOK]
    texts = {h.entity_id: (details[h.cid]["title"], details[h.cid]["shown"]) for h in top}
    folded = fold_listed([h.entity_id for h in top], texts, query, store.link_target)
    if not folded:
        return hits, {}
    by_note = {h.entity_id: h for h in hits}
    listed: dict[str, list[str]] = {}
    for note, target in folded.items():
        lst = by_note.pop(note)
        listed.setdefault(target, []).append(details[lst.cid]["path"])
        own = by_note.get(target)
        if own is None:
            row = _best_chunk(store.note_chunks(target), query)
            if row is None:
                continue
            details.update(store.chunk_details([row["cid"]]))
            own = replace(lst, cid=row["cid"], chunk_id=row["chunk_id"], entity_id=target)
        if lst.score > own.score:  # the entry's evidence is the note's
            own = replace(own, score=lst.score)
        by_note[target] = own
    ranked = sorted(by_note.values(), key=lambda h: -h.score)  # stable: ties keep order
    return ranked, listed


def _best_chunk(rows: list[dict[str, Any]], query: str) -> dict[str, Any] | None:
    """The chunk of a note holding most of the query's words (the first on a tie)."""
    wanted = set(query_terms(query))
    return max(rows, key=lambda r: len(wanted & set(query_terms(r["shown"]))), default=None)
