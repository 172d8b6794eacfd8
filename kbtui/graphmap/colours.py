"""Type colours, shared by the terminal canvas and the SVG so a person is the same hue in both.

Known types have fixed colours; any other type hashes into PALETTE, moving on to the next
colour when another type of the same map already has that one, so one map never shows two
types in one colour while there are colours left (mid-light hues: readable on a dark
terminal and on white paper).
"""

from __future__ import annotations

import zlib

from kbtui.graphmap.model import MapNode, Neighbourhood

KNOWN = {
    "person": "#e5a50a",
    "project": "#3584e4",
    "meeting": "#c061cb",
    "technology": "#2ec27e",
    "organization": "#e66100",
    "concept": "#1c9fa8",
    "daily": "#cdab8f",
    "note": "#a0a0a0",
    "more": "#777777",
}
PALETTE = (
    "#e01b24",
    "#f66fb0",
    "#a5d610",
    "#986a44",
    "#33c7de",
    "#8f8f20",
    "#d01bb8",
    "#7d8ac7",
    "#ff9e9e",
    "#4a9e5c",
    "#b0a8ff",
    "#ffd27f",
)


def kind_of(node: MapNode) -> str:
    return "more" if node.more else node.type


def type_colour(kind: str) -> str:
    """A type's colour on its own (a map may move a hashed type on: see `palette`)."""
    key = kind.lower()
    return KNOWN.get(key) or PALETTE[zlib.crc32(key.encode()) % len(PALETTE)]


def legend(hood: Neighbourhood) -> list[tuple[str, str]]:
    """(type, colour) for the types on this map, most frequent first."""
    counts: dict[str, int] = {}
    for node in hood.nodes:
        counts[kind_of(node)] = counts.get(kind_of(node), 0) + 1
    order = sorted(counts, key=lambda k: (-counts[k], k))
    colours = palette(order)
    return [(kind, colours[kind]) for kind in order]


def palette(kinds: list[str]) -> dict[str, str]:
    """type -> colour for the types of one map, two types sharing one only when none is left."""
    out = {k: KNOWN[k.lower()] for k in kinds if k.lower() in KNOWN}
    taken = set(out.values())
    for kind in sorted(k for k in kinds if k not in out):
        start = zlib.crc32(kind.lower().encode()) % len(PALETTE)
        free = [PALETTE[(start + i) % len(PALETTE)] for i in range(len(PALETTE))]
        colour = next((c for c in free if c not in taken), free[0])
        out[kind] = colour
        taken.add(colour)
    return out


def hood_palette(hood: Neighbourhood) -> dict[str, str]:
    return palette(sorted({kind_of(n) for n in hood.nodes}))
