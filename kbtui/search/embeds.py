"""Attachments found by what notes say of them: alt text, captions and figure lines.

An image or a PDF has no words of its own for search (an image's bytes are never read), but
the notes that embed it describe it: `![Sunset over the harbour](photos/IMG_2041.jpg)`,
`![[scan_0007.pdf|Boiler warranty card]]`, or a figure line under the embed (`*Figure 2: ...*`,
`Fig. 3 ...`). When a result's best chunk holds an embed whose description holds at least half
of the query's words, the embedded file is a result too, right after that note, with its
score, and names the note in `embedded_in` (issue 31 item 6); `![[paper.pdf#page=3|...]]`
gives that page. Links to web images (badges) are no files of the vault and are left alone.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from kbtui.models import ChunkHit
from kbtui.store import Store
from kbtui.tokenize import query_terms
from kbtui.vault.attachments.pdf import page_of
from kbtui.vault.plain import plain_text

_EMBED = re.compile(
    r"!\[\[([^\[\]|#]+(?:#page=\d+)?)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]"  # ![[f#page=3|caption]]
    r"|!\[([^\[\]]*)\]\(<?([^()<>]+?)>?(?:\s+\"[^\"]*\")?\)"  # ![alt](file "title")
)
_FIGURE = re.compile(r"^\s*(?:[*_]+\S|(?:figure|fig\.)\s)", re.IGNORECASE)


def described_embeds(text: str) -> list[tuple[str, str]]:
    """(file as linked, what the note says of it) for each embed of a vault file in `text`:
    its alt text or caption, the rest of its line, and a figure line right under it."""
    lines = text.splitlines()
    out: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        for m in _EMBED.finditer(line):
            target = (m.group(1) or m.group(4) or "").strip()
            if not target or "://" in target or target.startswith(("data:", "#")):
                continue
            said = [m.group(2) or m.group(3) or "", _EMBED.sub(" ", line)]
            below = next((x for x in lines[i + 1 : i + 3] if x.strip()), "")
            if _FIGURE.match(below) and not _EMBED.search(below):
                said.append(below)
            out.append((unquote(target), plain_text(" ".join(said))))
    return out


def embeds_for(text: str, query: str) -> list[str]:
    """The files embedded in `text` whose description holds half the query's words or more."""
    if "![" not in text:
        return []
    wanted = set(query_terms(query))
    if not wanted:
        return []
    need = max(1, (len(wanted) + 1) // 2)
    return [t for t, said in described_embeds(text) if len(wanted & set(query_terms(said))) >= need]


def add_embedded(
    store: Store, hits: list[ChunkHit], details: dict[int, dict[str, Any]], query: str
) -> tuple[list[ChunkHit], dict[str, list[str]]]:
    """`hits` (one per note, best first) with the files their best chunks embed and describe
    as the query asks put right after them; `details` gains their chunks' rows. Also: file
    id -> the paths of the notes that described it."""
    out: list[ChunkHit] = []
    placed: dict[str, list[str]] = {}
    later = {h.entity_id: h for h in hits}
    for hit in hits:
        if hit.entity_id in placed or later.get(hit.entity_id) is None:
            continue
        out.append(hit)
        d = details[hit.cid]
        for target in embeds_for(d["shown"], query):
            file_id = store.link_target(hit.entity_id, target.split("#page=")[0])
            if (
                file_id is None
                or file_id == hit.entity_id
                or any(h.entity_id == file_id for h in out)
            ):
                continue
            rows = store.note_chunks(file_id)
            page = [r for r in rows if f"#page={page_of(r['heading'])}" in target]
            if not rows:
                continue
            row = (page or rows)[0]  # `paper.pdf#page=3`: that page's first chunk
            details.update(store.chunk_details([row["cid"]]))
            out.append(ChunkHit(row["cid"], row["chunk_id"], file_id, hit.score, 0.0, 0.0))
            placed.setdefault(file_id, []).append(d["path"])
            later.pop(file_id, None)
    return out, placed
