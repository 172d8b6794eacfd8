"""Heading-aware chunking with character size and overlap.

Sections (text under a heading) are the unit: small consecutive sections are packed into one
chunk up to `size` characters (never two cards of a canvas: each card is its own chunk); a
long section is cut into windows of at most `size` characters that end on a paragraph, line,
sentence or word boundary when one lies in the window's second half, each overlapping the
previous window by about `overlap` characters.
Chunks carry their body offsets, so the note can be reassembled exactly without the overlap.
"""

from __future__ import annotations

from typing import Any

from kbtui.models import Chunk
from kbtui.vault.parse import WIKILINK_RE, split_wikilink

_BOUNDARIES = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


def chunk_body(
    body: str,
    sections: tuple[tuple[int, str], ...] | list[tuple[int, str]],
    size: int = 500,
    overlap: int = 50,
    cards: bool = False,
) -> list[Chunk]:
    """`cards`: the body is a canvas's (kbtui.vault.canvas), a `# ` heading per card; cards
    are never packed together, so a text card's hit does not carry its neighbours' paths."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError("chunk_size must be >= 1 and 0 <= chunk_overlap < chunk_size")
    starts = [s for s in sections if 0 <= s[0] < len(body)] or [(0, "")]
    if starts[0][0] != 0:
        starts.insert(0, (0, ""))
    spans = [
        (start, starts[i + 1][0] if i + 1 < len(starts) else len(body), heading)
        for i, (start, heading) in enumerate(starts)
    ]
    chunks: list[Chunk] = []
    for start, end, heading in _pack(spans, size, body if cards else ""):
        for s, e in _windows(body, start, end, size, overlap):
            if body[s:e].strip():
                chunks.append(
                    Chunk(index=len(chunks), content=body[s:e], start=s, end=e, heading=heading)
                )
    return chunks


def fixed_chunks(body: str, size: int, overlap: int) -> list[Chunk]:
    """Spec 003's chunking: a window every `size - overlap` characters, `size` long.

    knowledge_import notes ask for this in their frontmatter (`chunk_mode: fixed`), so
    re-indexing them reproduces exactly the chunks the import reported.
    """
    if size < 1 or not 0 <= overlap < size:
        raise ValueError("chunk_size must be >= 1 and 0 <= chunk_overlap < chunk_size")
    chunks: list[Chunk] = []
    start = 0
    while start < len(body):
        end = min(start + size, len(body))
        chunks.append(Chunk(len(chunks), body[start:end], start, end, ""))
        if end == len(body):
            break
        start += size - overlap
    return chunks


def reassemble(chunks: list[tuple[int, int, str]]) -> str:
    """(start, end, content) in order -> the original text, overlap removed. A chunk with an
    empty span is no body text (a properties chunk) and is left out."""
    out: list[str] = []
    pos = 0
    for start, end, content in chunks:
        if end <= start:
            continue
        if start < pos:
            content = content[pos - start :]
        elif start > pos and out:
            out.append("\n\n")  # a whitespace-only stretch that had no chunk
        out.append(content)
        pos = max(pos, end)
    return "".join(out)


def _pack(
    spans: list[tuple[int, int, str]], size: int, cards: str = ""
) -> list[tuple[int, int, str]]:
    """Small consecutive spans as one; with `cards` (a canvas's body), not across a card."""
    packed: list[tuple[int, int, str]] = []
    for start, end, heading in spans:
        new_card = bool(cards) and cards.startswith("# ", start)
        if packed and end - packed[-1][0] <= size and not new_card:
            prev_start, _, prev_heading = packed[-1]
            packed[-1] = (prev_start, end, prev_heading or heading)
        else:
            packed.append((start, end, heading))
    return packed


def _windows(body: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    s = start
    while s < end:
        e = min(s + size, end)
        if e < end:
            e = _snap_end(body, s, e, size)
        windows.append((s, e))
        if e >= end:
            break
        nxt = e - overlap
        if overlap:
            space = body.find(" ", nxt, e)
            newline = body.find("\n", nxt, e)
            cut = min((p for p in (space, newline) if p >= 0), default=-1)
            if cut >= 0 and cut + 1 < e:
                nxt = cut + 1
        s = max(nxt, s + 1)
    return windows


def _snap_end(body: str, s: int, e: int, size: int) -> int:
    floor = s + size // 2
    for mark in _BOUNDARIES:
        pos = body.rfind(mark, floor, e)
        if pos >= 0:
            return pos + len(mark)
    return e


# Keys that steer kbtui itself, not what the note is about.
_INTERNAL_KEYS = frozenset({"id", "chunk_size", "chunk_overlap", "chunk_mode"})


def properties_chunk(frontmatter: dict[str, Any], limit: int = 2000) -> Chunk | None:
    """The one chunk of a note whose body is empty but whose properties say what it is.

    Obsidian vaults keep many notes as properties only (kepano's: a film with its director,
    genre and year); without this they could never be found. The content is `key: value`
    lines, links shown as their names, URLs and nested maps left out. Its span is empty
    (0, 0): it is not body text, so reassembling the note leaves it out.
    """
    content = properties_text(frontmatter, limit)
    return Chunk(index=0, content=content, start=0, end=0, heading="") if content else None


def properties_text(frontmatter: dict[str, Any], limit: int = 2000) -> str:
    """A note's properties as `key: value` lines (links as names; URLs, flags, maps out)."""
    lines = []
    for key, value in frontmatter.items():
        if key in _INTERNAL_KEYS:
            continue
        items = value if isinstance(value, list) else [value]
        shown = [_shown(v) for v in items]
        text = ", ".join(v for v in shown if v)
        if text:
            lines.append(f"{key}: {text}")
    return "\n".join(lines)[:limit].strip()


def with_properties(
    texts: list[str], chunks: list[Chunk], frontmatter: dict[str, Any]
) -> list[str]:
    """`texts` (one per chunk, for BM25) with the note's properties added to its first body
    chunk: words a note gives only in its properties (redis docs' `description`, an `aliases`
    entry) are its words too, as Obsidian's search finds them in the file. A note with no
    body already has them as its properties chunk (empty span); `title` is counted already.
    The names of properties left empty are words of either (a template's fields)."""
    if not chunks:
        return texts
    unset = " ".join(k for k, v in frontmatter.items() if k not in _INTERNAL_KEYS and _unset(v))
    props = ""
    if chunks[0].end > chunks[0].start:
        props = properties_text({k: v for k, v in frontmatter.items() if k != "title"})
    extra = "\n".join(t for t in (props, unset) if t)
    return [f"{texts[0]}\n{extra}", *texts[1:]] if extra else texts


def _unset(value: Any) -> bool:
    """A property with no value: its name is all a template says of itself ("price:", "sqft:"
    in kepano's Real Estate Template), and Obsidian's search finds it in the file."""
    return value is None or value == "" or value == [] or value == {}


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        return ""
    text = str(value).strip()
    if text.startswith(("http://", "https://")):
        return ""
    return WIKILINK_RE.sub(lambda m: _link_name(m.group(1)), text)


def _link_name(inner: str) -> str:
    target, _, label = split_wikilink(inner)
    return label or target
