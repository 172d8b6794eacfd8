"""Type colours, shared by the terminal canvas and the SVG so a person is the same hue in both."""

from __future__ import annotations

import zlib

from kbtui.graphmap.model import Neighbourhood

KNOWN = {
    "person": "#e5a50a",
    "project": "#3584e4",
    "meeting": "#c061cb",
    "technology": "#2ec27e",
    "organization": "#e66100",
    "concept": "#1c9fa8",
    "daily": "#cdab8f",
    "note": "#a0a0a0",
    "group": "#62a0ea",
    "more": "#777777",
}
# Distinct on a dark terminal and on white paper; other types hash into it.
PALETTE = (
    "#f66151",
    "#8ff0a4",
    "#99c1f1",
    "#dc8add",
    "#f9f06b",
    "#ffbe6f",
    "#d5a6bd",
    "#5bc8af",
    "#b5835a",
    "#e01b24",
)


def type_colour(kind: str) -> str:
    """A stable colour for an entity type: known types by name, others by a hash of the name."""
    key = kind.lower()
    if key in KNOWN:
        return KNOWN[key]
    return PALETTE[zlib.crc32(key.encode()) % len(PALETTE)]


def legend(hood: Neighbourhood) -> list[tuple[str, str]]:
    """(type, colour) for the types present, most frequent first: what a legend lists."""
    counts: dict[str, int] = {}
    for node in hood.nodes:
        kind = "more" if node.more else node.type
        counts[kind] = counts.get(kind, 0) + 1
    order = sorted(counts, key=lambda k: (-counts[k], k))
    return [(kind, type_colour(kind)) for kind in order]
