"""Notes named after something else: an extension note for a service or tool takes its name
("Google Calendar", "Cubox", "LanguageTool"), so most prose that names the service means the
service, not the note. On obsidian-hub this was the largest kind of wrong link suggestion left
(GPT, Kindle, Gist, Bluesky, HackerNews, Cubox ... in every random sample labelled).

A note tells it in its first sentence: "Interact with your Google Calendar from Inside
Obsidian", "Sync your Cubox articles", "Post to Bluesky". There the name follows a preposition
or a determiner (the object of what the note does), and is neither followed by "plugin"
("Inofficial LanguageTool plugin") nor the verb's own object ("Create Buttons in your notes",
"view Excalidraw drawings": plugins named after what they make, which prose means too).
Fresh samples showed the same kind written other ways: a longer name or a list between the
preposition and the name ("display the GitHub Gist", "to Ereader/Kindle/Pocketbook"), the
name used ("View chemical structures using Ketcher") or brought into an app ("Loom in
Obsidian", "Lilypond support in Obsidian"). A note named after an ordinary phrase tells it too:
its first sentence writes its name as a phrase, in lower case ("Create tabs in your notes",
"Protect your vault with a lock screen"), so prose naming tabs or a lock screen means them.
"""

from __future__ import annotations

import re

from kbtui.graph import lexicon as lx

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_HIDDEN = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)|```.*?(?:```|\Z)|`[^`\n]*`", re.S)
_LINK = re.compile(r"!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>|https?://\S+")
_SKIP_LINE = re.compile(r"^\s*(?:#|\||>|---|\*\*\*|[\w][\w .()/-]{0,30}:\s|[-*+]\s*$|$)")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_WORDS_BEFORE = re.compile(r"[A-Za-z][\w.'’-]*")
_OBJECT_CUES = lx.PREPOSITIONS | lx.DETERMINERS | {"use", "uses", "using"}
# "Loom in Obsidian", "Lilypond support in Obsidian", "Google Photos integration": the name
# brought into an app
_INTO_APP = re.compile(
    r"^(?:(?:\s+[a-z]+)?\s+(?:in|on|into|inside|within)\s+(?:the\s+)?[A-Z]"
    r"|\s+(?:integration|support|sync|client)\b)"  # "Google Photos integration for Obsidian"
)
_NEXT_WORD = re.compile(r"\s+([a-z]+)")
_SMALL_WORDS = lx.PREPOSITIONS | lx.CONJUNCTIONS | lx.DETERMINERS
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
    something it works with: after a preposition, determiner or "using", maybe past a longer
    name or a list ("with your Google Calendar", "the GitHub Gist", "to Ereader/Kindle"), or
    brought into an app ("Loom in Obsidian"), not followed by "plugin" or "theme"; or as an
    ordinary phrase in lower case ("Create tabs in your notes" for the note "Tabs")."""
    first = lead(text)
    end = _SENTENCE_END.search(first)
    first = first[: end.start() + 1] if end else first
    if _phrase_in(first, name):
        return True
    for hit in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", first):
        after = first[hit.end() :]
        if _ADDON_AFTER.match(after):
            continue
        if _cue_before(first[: hit.start()]) or _INTO_APP.match(after):
            return True
    return False


def _cue_before(before: str) -> bool:
    """Whether the words before a name put it as an object: a preposition, determiner or
    "using" right before, or before at most two capitalised words ("the GitHub Gist",
    "to Ereader/Kindle/Pocketbook")."""
    words = _WORDS_BEFORE.findall(before)
    for skipped, word in enumerate(reversed(words[-3:])):
        if word.lower() in _OBJECT_CUES:
            return True
        if skipped >= 2 or not word[:1].isupper():
            return False
    return False


def _phrase_in(first: str, name: str) -> bool:
    """Whether a name of capitalised plain words ("Tabs", "Lock Screen") is written in lower
    case in the note's first sentence, not as a modifier of the next word: the note is named
    after an ordinary phrase."""
    words = name.split()
    if not words or not all(w.isalpha() and w[:1].isupper() and w[1:].islower() for w in words):
        return False
    phrase = r"\s+".join(re.escape(w.lower()) for w in words)
    for hit in re.finditer(rf"(?<![\w#]){phrase}(?![\w])", first):
        following = _NEXT_WORD.match(first[hit.end() :])
        if following is None or following.group(1) in _SMALL_WORDS:
            return True  # not a modifier: "allowing contextual typography styling"
    return False


def addon_after(after: str) -> bool:
    """Whether the words after a mention call it a plugin or theme: "the Citations plugin"."""
    return bool(_ADDON_AFTER.match(after))
