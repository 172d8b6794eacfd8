"""Which unlinked name matches are mentions worth a link (kg_suggest_links, the note view).

On obsidian-hub, 15,920 matches were suggested and most were not mentions: a heading
(`## Books` above `![[Books.base#Author]]`: 16 of kepano's 18), a comment Obsidian hides
(`%% ----- Badges ----- %%`), a field label (`Links: [GitHub repository](...)`, `- GitHub:`),
an ordinary phrase equal to a title in other capitals ("for theme designers" against the note
"for Theme Designers", "local images" against the alias "Local images", "GitHub" against the
plugin note "github"), a plain word capitalised because a sentence starts with it ("Quickly
hide your sidebars" against the plugin "Quickly") or inside a longer name ("Enable Folder
Icons"), and a one-word name in lower case ('repeat' the verb). A fresh random 60 drawn
before the next rules (bench/link_labels.jsonl, sample `fresh-before`: 80%) showed three more
kinds: a label's words (`- Select Background Image: Select Custom ...`, `**Work Wide, not
Deep:**`), a part of a longer name in a title-case list entry (a theme's feature list:
`- Disable Border, Red`, `- Folder Color Palette`) and a day or month ("by Friday" against
the plugin "Friday"); a fresh 60 after them (`fresh-after`: 83%) showed a name followed by
another capitalised word being a longer name ("Ben Hamilton" is not the note "Ben", "IA
Writer Mono V" a font, not the theme). Notes named after what they work with ("your Google
Calendar") are left out in kbtui.graph.named_after.

A match is kept when it is in prose (no heading, no comment), not a label (a name followed
by a colon), written as a name of the note is written (or with a capital first letter), a
one-word name not in lower case and, if a plain capitalised word, neither at the start of a
sentence, line or list item nor beside another capitalised word. Precision on a labelled
sample: bench/link_precision.py with bench/link_labels.jsonl.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from kbtui.graph import lexicon as lx

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.S)
_ITEM_START = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:\[.\][ \t]+)?[*_]*$")
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]*[ \t]+[*_]*$")
_LABEL_AFTER = re.compile(r"^[*_]*[ \t]*:[*_]*(?:\s|$)")
_CAPITAL_BEFORE = re.compile(r"[A-Z][\w&]*,?[ \t]$")
_CAPITAL_AFTER = re.compile(r"^[ \t][A-Z]")
# an imperative's object: "Mark your note", "Grace the table"; a person is followed by a verb
_DETERMINER_AFTER = re.compile(r"^[ \t]+(?:your|the|a|an|this|that|these|those|my|our|its)\b", re.I)
# a line's leading label: "- Select Background Image: ...", "**Work Wide, not Deep:** ...",
# "- Background Primary (alt): ..."
_LEAD_LABEL = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?[*_]*([^:\[\].!?`]{1,80}):"
)
_LIST_ITEM = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d+[.)])[ \t]+(?:\[.\][ \t]+)?")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_NAME_AFTER = re.compile(r"^ (?:[A-Z][a-z]+|[A-Z]{2,})\b")  # "Ben Hamilton", "Writer Mono"
_HEAD_AFTER = re.compile(
    r"^ (?:Plugins?|Themes?|Snippets?|Apps?|Integration|Mode|Version|Workflows?)\b"
)
_SMALL_WORDS = lx.PREPOSITIONS | lx.CONJUNCTIONS | lx.DETERMINERS | {"not", "is", "are"}


@dataclass
class NoteText:
    """One note's text and where its comments are, worked out once per note."""

    text: str
    _comments: list[tuple[int, int]] | None = field(default=None, repr=False)

    def in_comment(self, pos: int) -> bool:
        if self._comments is None:
            self._comments = [m.span() for m in _COMMENT.finditer(self.text)]
        starts = [s for s, _ in self._comments]
        i = bisect_right(starts, pos) - 1
        return i >= 0 and self._comments[i][0] <= pos < self._comments[i][1]


def same_spelling(words: str, spelling: str) -> bool:
    """`words` written as `spelling` is, or with a capital first letter (a sentence's start):
    "local images" is a phrase, not the note "Local images"."""
    a, b = " ".join(words.split()), " ".join(spelling.split())
    return a == b or (a[1:] == b[1:] and a[:1] == b[:1].upper())


def plain_word(word: str) -> bool:
    """A capitalised ordinary word ("Quickly", "Primary"), not a name by its shape ("GitHub",
    "iOS", "YAML", "3D")."""
    return word.isalpha() and word[:1].isupper() and word[1:].islower()


def is_mention(
    note: NoteText,
    start: int,
    end: int,
    spellings: set[str],
    first_name: Callable[[str], bool] = lambda word: False,
    one_entity: bool = False,
) -> bool:
    """Whether text[start:end], a name match in prose, is a mention worth a suggestion.
    `first_name`: whether a word is a person's first name ("- Andrei argued ..." starts a
    list item and is still a mention). `one_entity`: the mentions of one note were asked
    for (its name is known to matter), so a one-word name in capitals is taken as written."""
    text = note.text
    words = text[start:end]
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    if _HEADING.match(text[line_start:line_end]) or note.in_comment(start):
        return False
    if _LABEL_AFTER.match(after):
        return False  # "Links: [...]", "- GitHub: [...]", "**Files & Links**:", "Border:"
    if _in_link_text(before, words + after):
        return False  # "[OZ Calendar](https://...)": a link inside a link's text breaks both
    line = text[line_start:line_end]
    if not one_entity and (_in_label(line, end - line_start) or _in_entry(line, before, words)):
        return False
    if not one_entity and " " not in words.strip() and words.lower() in lx.MONTHS_DAYS:
        return False  # "by Friday" is a day, not the plugin "Friday"
    longer = _NAME_AFTER.match(after) and not _HEAD_AFTER.match(after)
    if longer and not one_entity and (" " in words.strip() or first_name(words)):
        return False  # "IA Writer Mono V" is a font, "Ben Hamilton" another Ben
    if " " in words.strip():
        return any(same_spelling(words, s) for s in spellings)
    if words.islower():
        return False  # 'repeat' the verb
    if first_name(words) and _starts(before) and _DETERMINER_AFTER.match(after):
        return False  # "Favorite Note: Mark your note as favorite": a verb, not Mark
    if first_name(words) or one_entity:  # "Andrei" at a list item's start; "Ada" for ada.md
        return True
    if words not in spellings:
        return False  # "Github" is not the plugin note "github"
    if not plain_word(words):
        return True
    capital = _CAPITAL_BEFORE.search(before)  # a capitalised word that starts no sentence
    inside_name = bool(capital and not _starts(before[: capital.start()]))
    return not (_starts(before) or inside_name or _CAPITAL_AFTER.match(after))


def _in_label(line: str, end: int) -> bool:
    """Whether a match ending at `end` of `line` is inside the line's leading label: a few
    words (at most 6) before the line's first colon, as a field or option name is written."""
    label = _LEAD_LABEL.match(line)
    return label is not None and end <= label.end(1) and len(label.group(1).split()) <= 6


def _in_entry(line: str, before: str, words: str) -> bool:
    """Whether the match is part of a longer name in a title-case list entry: in `- Disable
    Border, Red` or `- Folder Color Palette` every word is capitalised, so the capitals tell
    nothing and "Border" is part of the option "Disable Border". A whole entry or a whole
    comma-separated part ("- Excalidraw, Dataview") is still a name."""
    item = _LIST_ITEM.match(line)
    if item is None or len(before) < item.end():
        return False
    raw = line[item.end() :]
    entry = raw.strip(" \t*_")
    # "h1", "v2" say nothing about capitals: "- Toggle h1 Underline" is a title-case entry
    names = [
        w
        for w in _WORD.findall(entry)
        if w.lower() not in _SMALL_WORDS and not any(c.isdigit() for c in w)
    ]
    if len(names) < 2 or any(w[:1].islower() for w in names) or entry[-1:] in ".!?":
        return False
    start = len(before) - item.end() - (len(raw) - len(raw.lstrip(" \t*_")))
    lo = max(entry.rfind(c, 0, max(start, 0)) for c in ",;:(/") + 1
    hi = min((i for c in ",;:)/" if (i := entry.find(c, start + len(words))) >= 0), default=None)
    part = entry[lo:hi].strip(" \t*_")
    return part != words.strip()


def _in_link_text(before: str, rest: str) -> bool:
    """Whether the match (where `rest` starts) is inside a link's shown text on its line:
    `[[target|... here ...]]` or `[... here ...](url)`."""
    opened = before.rfind("[")
    if opened < 0 or "]" in before[opened:]:
        return False
    close = rest.find("]")
    if close < 0 or "[" in rest[:close]:
        return False
    return rest[close:].startswith(("](", "]]")) and (
        rest[close:].startswith("](") or "|" in before[opened:]
    )


def _starts(before: str) -> bool:
    """Whether what precedes a word on its line puts it at a sentence's or item's start."""
    return bool(_ITEM_START.match(before) or _SENTENCE_END.search(before))
