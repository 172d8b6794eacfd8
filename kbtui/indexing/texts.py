"""The texts made from a chunk: what the model embeds and what BM25 indexes, and the hash
that lets an unchanged chunk keep its vector."""

from __future__ import annotations

import hashlib

from kbtui.vault.attachments.pdf import page_of
from kbtui.vault.plain import prose_text

TITLE_WEIGHT = 2  # the title counts twice in BM25: SciFact nDCG@10 +0.011 (bench/retrieval.py)


def embed_text(title: str, heading: str, content: str) -> str:
    """What the model sees for a chunk: title and heading path for context, then plain prose.

    `content` is the chunk as Obsidian shows it (no comments or HTML markup: the store's
    `shown`). Field lines and code blocks are left out unless the chunk has no other prose.
    """
    if page_of(heading) is not None:  # a PDF page's `p. N` is no context: a page that
        heading = ""  # moves keeps its vector (pending rows bring the heading back here)
    path = [h for h in heading.split(" > ") if h] if heading else []
    if path and path[0] == title:
        path = path[1:]
    context = " > ".join([title, *path])
    return f"{context}\n{prose_text(content)}"


def keyword_text(title: str, heading: str, content: str) -> str:
    """What BM25 indexes: the text, code identifiers included, the title weighted up.

    `content` is the chunk without HTML markup (`button`, `mod-cta` are not the note's
    words); Obsidian comments stay searchable, as in Obsidian."""
    return "\n".join([title] * TITLE_WEIGHT + [heading, content])


def content_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
