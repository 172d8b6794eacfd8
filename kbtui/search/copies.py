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

from rapidfuzz import fuzz

from kbtui.vault.versions import preference, unversioned

COPY_RATIO = 95.0


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
