"""get_chunk (spec 002): one chunk with its note's knowledge card, cluster, URLs and the
chunks most similar to it by embedding."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from kbtui.search.cards import knowledge_card
from kbtui.search.service import make_snippet
from kbtui.tools.envelope import NotFoundError, ok
from kbtui.tools.parts import VaultParts
from kbtui.vault.chunk import reassemble

_URL = re.compile(r"^(https?|ftp)://\S+$", re.IGNORECASE)
_AUTHOR_KEYS = ("author", "authors", "creator", "by")


def get_chunk(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    chunk_id: str = args["chunk_id"]
    chunk = parts.store.chunk_by_id(chunk_id)
    if chunk is None:
        raise NotFoundError(f"Chunk '{chunk_id}' not found in KB")
    note = parts.store.note(chunk["entity_id"])
    if note is None:  # the note vanished between the two reads
        raise NotFoundError(f"Chunk '{chunk_id}' not found in KB")
    fm = note["frontmatter"]
    siblings = parts.store.note_chunks(note["entity_id"])
    body = reassemble([(c["start_pos"], c["end_pos"], c["content"]) for c in siblings])
    related: list[dict[str, Any]] = []
    if args["include_related"]:
        related = related_chunks(
            parts,
            chunk["cid"],
            note["entity_id"],
            args["related_limit"],
            args["exclude_same_note"],
            len(siblings),
        )
    return ok(
        chunk_id=chunk_id,
        entity_id=note["entity_id"],
        type=note["type"],
        title=note["title"],
        author=author_of(fm),
        source=fm.get("source") if isinstance(fm.get("source"), str) else None,
        tags=note["tags"],
        heading=chunk["heading"],
        content=chunk["content"],
        chunk_index=chunk["chunk_index"],
        chunk_info=f"{chunk['chunk_index'] + 1}/{len(siblings)}",
        knowledge_card=knowledge_card(fm, body, note["title"]),
        cluster=parts.topics.cluster_of(note["entity_id"]),
        related_chunks=related,
        **note_urls(parts, note),
    )


def related_chunks(
    parts: VaultParts,
    cid: int,
    own: str,
    limit: int,
    exclude_same_note: bool,
    note_chunks: int,
) -> list[dict[str, Any]]:
    """Nearest chunks by cosine, never the chunk itself; similarity clamped to 0..1."""
    vector = parts.search.vectors.vector(cid)
    if vector is None:  # not embedded yet
        return []
    want = limit + 1 + (note_chunks if exclude_same_note else 0)
    hits = [(c, s) for c, s in parts.search.vectors.search(vector, want) if c != cid]
    details = parts.store.chunk_details([c for c, _ in hits])
    notes = parts.store.notes_meta(sorted({d["entity_id"] for d in details.values()}))
    out = []
    for other, sim in hits:
        d = details.get(other)
        if d is None or (exclude_same_note and d["entity_id"] == own):
            continue
        fm = notes.get(d["entity_id"], {}).get("frontmatter", {})
        out.append(
            {
                "chunk_id": d["chunk_id"],
                "entity_id": d["entity_id"],
                "title": d["title"],
                "author": author_of(fm),
                "snippet": make_snippet(d["content"], ""),
                "similarity_score": round(min(1.0, max(0.0, sim)), 4),
                "file_path": d["path"],
            }
        )
        if len(out) == limit:
            break
    return out


def author_of(frontmatter: dict[str, Any]) -> str | None:
    for key in _AUTHOR_KEYS:
        value = frontmatter.get(key)
        if isinstance(value, str) and value.strip():
            return _unlink(value.strip())
        if isinstance(value, list):
            names = [_unlink(v.strip()) for v in value if isinstance(v, str) and v.strip()]
            if names:
                return ", ".join(names)
    return None


def note_urls(parts: VaultParts, note: dict[str, Any]) -> dict[str, Any]:
    """Every URL in the frontmatter, the file itself and an obsidian:// link to it."""
    fm = note["frontmatter"]
    urls: dict[str, Any] = {}
    for key, value in fm.items():
        found = [v for v in (value if isinstance(value, list) else [value]) if _is_url(v)]
        if found:
            urls[key] = found[0] if not isinstance(value, list) else found
    out: dict[str, Any] = {k: v for k, v in urls.items() if k.lower().endswith("url")}
    source = next(
        (urls[k] for k in ("source_url", "source", "url", "link") if isinstance(urls.get(k), str)),
        None,
    )
    path = note["path"]
    file = parts.settings.vault / path
    stem = path[:-3] if path.lower().endswith(".md") else path
    return {
        **out,
        "source_url": source,
        "urls": urls,
        "file_path": path,
        "file_url": file.as_uri(),
        "obsidian_url": "obsidian://open?vault="
        + quote(parts.settings.vault.name, safe="")
        + "&file="
        + quote(stem, safe=""),
    }


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and bool(_URL.match(value.strip()))


def _unlink(text: str) -> str:
    """'[[Maya Okafor]]' -> 'Maya Okafor'; authors are often wikilinks in frontmatter."""
    match = re.fullmatch(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]", text)
    return (match.group(2) or match.group(1)).strip() if match else text
