"""Notes named after something else: an extension note for a service or tool takes its name
("Google Calendar", "Cubox", "LanguageTool"), so most prose that names the service means the
service, not the note. On obsidian-hub this was the largest kind of wrong link suggestion left
(GPT, Kindle, Gist, Bluesky, HackerNews, Cubox ... in every random sample labelled).

A note tells it in its first sentence: "Interact with your Google Calendar from Inside
Obsidian", "Sync your Cubox articles", "Post to Bluesky". There the name follows a preposition
or a determiner (the object of what the note does), and is neither followed by "plugin"
("Inofficial LanguageTool plugin") nor the verb's own object ("Create Buttons in your notes",
"view Excalidraw drawings": plugins named after what they make, which prose means too).
"""

from __future__ import annotations

import re

from kbtui.graph import lexicon as lx

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_HIDDEN = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)|```.*?(?:```|\Z)|`[^`\n]*`", re.S)
_LINK = re.compile(r"!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>|https?://\S+")
_SKIP_LINE = re.compile(r"^\s*(?:#|\||>|---|\*\*\*|[\w][\w .()/-]{0,30}:\s|[-*+]\s*$|$)")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\W*$")
_OBJECT_CUES = lx.PREPOSITIONS | lx.DETERMINERS
_ADDON_AFTER = re.compile(r"^\s+(?:plugins?|themes?|snippets?|extensions?)\b", re.I)


def lead(text: str) -> str:
    """The first paragraph of a note's own prose: no front matter, comments, code, links,
    headings, tables or `Field: value` lines."""
    body = _LINK.sub(" ", _HIDDEN.sub(" ", _FRONT_MATTER.sub("", text, count=1)))
    lines: list[str] = []
    for line in body.splitlines():
        if _SKIP_LINE.match(line):
            if lines and not line.strip():
                break
            continue
        lines.append(line.strip())
    return " ".join(lines)


def named_after_other(text: str, name: str) -> bool:
    """Whether the note (`text`) names `name`, its own name, in its first sentence as
    something it works with: as written, after a preposition or determiner ("with your
    Google Calendar", "to Bluesky"), not followed by "plugin" or "theme"."""
    first = lead(text)
    end = _SENTENCE_END.search(first)
    first = first[: end.start() + 1] if end else first
    for hit in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", first):
        before = _WORD_BEFORE.search(first[: hit.start()])
        if before is None or before.group(1).lower() not in _OBJECT_CUES:
            continue
        if _ADDON_AFTER.match(first[hit.end() :]):
            continue
        return True
    return False


def addon_after(after: str) -> bool:
    """Whether the words after a mention call it a plugin or theme: "the Citations plugin"."""
    return bool(_ADDON_AFTER.match(after))
