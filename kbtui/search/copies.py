"""Near-identical copies of one page collapse into one search result.

Versioned docs keep a tree per release (redis: `operate/rs/`, `operate/rs/7.22/`,
`operate/rs/8.0/` ...) and vaults keep template copies; one question then filled the top 10
with the same page four times. Two results are copies when their titles are equal
(case-insensitively) and either their paths are equal once version folders are taken out
(the same page of another release, edited or not) or the text of their best chunks is
near-identical (rapidfuzz ratio >= COPY_RATIO on whitespace-folded text): a title alone
would merge distinct notes that share a name, and the text alone would merge boilerplate
sections (hub footers).

The copy shown is the one outside version folders, else the newest version; it takes the
best score of its copies, and the others are named in `metadata.also_in` (their version or
folder) and `metadata.copies` (their paths): additive fields, as the kb_search spec allows
in metadata.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rapidfuzz import fuzz

COPY_RATIO = 95.0
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$|^v\d+$")


def version_of(path: str) -> tuple[int, ...] | None:
    """The version a path's folders name (`7.22` -> (7, 22)); None outside version folders."""
    for part in PurePosixPath(path).parts[:-1]:
        if _VERSION.match(part):
            return tuple(int(n) for n in re.findall(r"\d+", part))
    return None


def preference(path: str) -> tuple[int, tuple[int, ...], str]:
    """Sort key: outside version folders first, then the newest version, then the path."""
    version = version_of(path)
    if version is None:
        return (0, (), path)
    return (1, tuple(-n for n in version), path)


def label(path: str, shown: str) -> str:
    """How a copy is named beside the shown one: its version folder, else its folder."""
    for part in PurePosixPath(path).parts[:-1]:
        if _VERSION.match(part):
            return part
    here, there = PurePosixPath(shown).parts[:-1], PurePosixPath(path).parts[:-1]
    for i, part in enumerate(there):
        if i >= len(here) or here[i] != part:
            return part
    return str(PurePosixPath(path).parent) or "."


def unversioned(path: str) -> str:
    """The path without its version folders: one page's versions share it."""
    parts = PurePosixPath(path).parts
    return "/".join(p for p in parts[:-1] if not _VERSION.match(p)) + "/" + parts[-1]


def _plain(text: str) -> str:
    return " ".join(text.split()).lower()


def group_copies(rows: list[tuple[str, str, str]]) -> list[list[int]]:
    """Groups of (title, path, best chunk text) rows that are copies, in first-seen order;
    each group's first index is the copy to show (see `preference`)."""
    groups: list[tuple[str, str, str, list[int]]] = []  # (title, page, text, members)
    for i, (title, path, text) in enumerate(rows):
        key, page, plain = title.strip().lower(), unversioned(path), _plain(text)
        for g_title, g_page, g_text, members in groups:
            if g_title == key and (
                g_page == page or g_text == plain or fuzz.ratio(g_text, plain) >= COPY_RATIO
            ):
                members.append(i)
                break
        else:
            groups.append((key, page, plain, [i]))
    out = []
    for *_, members in groups:
        members.sort(key=lambda i: preference(rows[i][1]))
        out.append(members)
    return out
