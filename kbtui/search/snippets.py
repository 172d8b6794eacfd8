"""Search snippets: the readable text of a chunk, around the query's first word.

A snippet shows what a reader sees, not markup. Images are not text: a badge row
(`![GitHub all releases](https://img.shields.io/...)`, every plugin note of obsidian-hub)
read "GitHub all releases GitHub manifest version" as the whole snippet; images and image
embeds are left out, and a link shows its label. Chunks are cut by size, so one may begin or
end inside a link (`...navigation|zettelkasten-navigation]]`, `...develop-for-aa">}})`):
a link cut at the start shows its label, one cut at the end (its target cut too) goes.
"""

from __future__ import annotations

import re

from kbtui.vault.plain import plain_text

SNIPPET_CHARS = 200
_IMAGE_EXT = r"(?:png|jpe?g|gif|svg|webp|bmp|avif|ico|tiff?)"
_IMAGE = re.compile(r"!\[[^\[\]]*\]\([^()]*\)")  # ![alt](url): an image, shown as itself
_IMAGE_EMBED = re.compile(rf"!\[\[[^\[\]|]*\.{_IMAGE_EXT}(?:\|[^\[\]]*)?\]\]", re.IGNORECASE)
_EMPTY_LINK = re.compile(r"\[\s*\]\([^()]*\)")  # what a linked badge leaves: [](url)
_HTML_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_CUT_WIKILINK_HEAD = re.compile(r"^[^\[\]\n]*?\]\]")  # "...target|label]]" at the start
_CUT_WIKILINK_TAIL = re.compile(r"!?\[\[[^\]\n]*$")  # "[[target|lab..." at the end
_CUT_URL_HEAD = re.compile(r"^\S*[/\"]\S*?\)")  # "...path/page \"title\")" at the start
_CUT_MDLINK_TAIL = re.compile(r"\[([^\[\]]*)\]\([^)\s]*$")  # "[label](http://exa..." at the end


def _cut_wikilink(fragment: str) -> str:
    inner = fragment.strip("[]!")
    label = inner.rsplit("|", 1)[-1] if "|" in inner else inner.split("#")[0]
    return label.rsplit("/", 1)[-1].strip()


def readable(content: str) -> str:
    """The chunk's text as a reader sees it: no images, links as labels, no cut markup."""
    text = _IMAGE_EMBED.sub(" ", _IMAGE.sub(" ", _HTML_IMG.sub(" ", content)))
    text = _EMPTY_LINK.sub(" ", text)
    stripped = text.lstrip()
    head = _CUT_WIKILINK_HEAD.match(stripped)
    if head:
        text = _cut_wikilink(head.group()) + stripped[head.end() :]
    else:
        url = _CUT_URL_HEAD.match(stripped)
        if url:
            text = stripped[url.end() :]
    tail = _CUT_WIKILINK_TAIL.search(text)
    if tail:  # its target is cut too: nothing to show
        text = text[: tail.start()]
    return _CUT_MDLINK_TAIL.sub(r"\1", text)


def make_snippet(content: str, query: str, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters of the chunk, around the first query word it contains.

    `content` is the chunk as Obsidian shows it (the store's `shown`: no comments, no HTML);
    "" when nothing of it is readable (only images, say).
    """
    content = readable(content)
    lines = [ln for ln in content.strip().splitlines() if not ln.lstrip().startswith("#")]
    text = re.sub(r"\s+", " ", plain_text("\n".join(lines) or content, keep_code=True)).strip()
    if len(text) <= limit:
        return text
    words = [w for w in re.findall(r"\w{3,}", query.lower())]
    lowered = text.lower()
    hits = [p for p in (lowered.find(w) for w in words) if p >= 0]
    start = max(0, min(hits) - limit // 4) if hits else 0
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    body = text[start : start + limit - 2 * (start > 0) - 1].rstrip()
    return ("…" if start else "") + body + "…"
