"""Edits of link text inside a note that keep every other byte: links retargeted for a rename,
unlinked mentions found and turned into links. Positions come from kbtui.vault.spans, so
nothing inside code, the frontmatter (for mentions), a link or a URL is ever touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from kbtui.vault.parse import RELATION_KEYS, WIKILINK_RE, slug
from kbtui.vault.spans import Span, frontmatter_range, spans

# Frontmatter keys the index never reads links from (parse._frontmatter_links).
_NOT_LINKS = {"id", "type", "title", "aliases", "alias", "tags", "tag"}
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(.*)$")
_MD_KINDS = ("link", "image")
MIN_NAME = 3  # shorter names ("AI", "Jo") would flag half the vault
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Mention:
    """Words at text[start:end] that name an entity without linking it."""

    start: int
    end: int
    text: str
    line: int  # 1-based line of the file
    context: str  # the sentence around it


def retarget(inner: str, resolves: Callable[[str], bool], new_target: Callable[[str], str]) -> str:
    """A wikilink's inner text pointing at the new target, heading, label and spacing kept;
    unchanged when its target does not resolve to the renamed note."""
    head, bar, label = inner.partition("|")
    target, hash_, heading = head.partition("#")
    escape = "\\" if target.endswith("\\") and bar else ""  # `[[Old\|label]]` in a table
    name = target[: len(target) - len(escape)]
    core = name.strip()
    if not core or not resolves(core):
        return inner
    lead = name[: len(name) - len(name.lstrip())]
    trail = name[len(name.rstrip()) :]
    return f"{lead}{new_target(core)}{trail}{escape}{hash_}{heading}{bar}{label}"


MarkdownEdits = Callable[[str, list[tuple[int, int]]], list[tuple[int, int, str]]]


def rewrite_links(
    text: str,
    resolves: Callable[[str], bool],
    new_target: Callable[[str], str],
    markdown: MarkdownEdits | None = None,
) -> tuple[str, int]:
    """`text` with every link that `resolves` to the old note pointed at `new_target(old)`:
    body wikilinks and embeds (never in code), frontmatter wikilinks and bare relation values.
    `markdown` gives the edits of the markdown links among the link and image spans it is
    handed (kbtui.vault.obsidian.mdlinks). Returns the new text and how many links changed."""
    edits: list[tuple[int, int, str]] = []
    found = spans(text)
    if markdown is not None:
        edits.extend(markdown(text, [(s.start, s.end) for s in found if s.kind in _MD_KINDS]))
    for span in found:
        if span.kind != "wikilink":
            continue
        whole = text[span.start : span.end]
        match = WIKILINK_RE.fullmatch(whole)
        if match is None:  # the placement did not land on the link: leave it alone
            continue
        inner = match.group(1)
        new = retarget(inner, resolves, new_target)
        if new != inner:
            at = span.start + match.start(1)
            edits.append((at, at + len(inner), new))
    edits.extend(_frontmatter_edits(text, resolves, new_target))
    return apply(text, edits), len(edits)


def _frontmatter_edits(
    text: str, resolves: Callable[[str], bool], new_target: Callable[[str], str]
) -> Iterable[tuple[int, int, str]]:
    found = frontmatter_range(text)
    if found is None:
        return
    pos, end = found
    key = ""
    for line in text[pos:end].splitlines(keepends=True):
        keyed = _KEY_LINE.match(line)
        if keyed:
            key = slug(keyed.group(1))
        if key not in _NOT_LINKS:
            links = list(WIKILINK_RE.finditer(line))
            for m in links:
                new = retarget(m.group(1), resolves, new_target)
                if new != m.group(1):
                    yield pos + m.start(1), pos + m.end(1), new
            if not links and key in RELATION_KEYS:
                value_at = keyed.start(2) if keyed else 0
                for s, e in _bare_values(line, value_at):
                    if resolves(line[s:e]):
                        yield pos + s, pos + e, new_target(line[s:e])
        pos += len(line)


_ITEM = re.compile(r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^,\[\]\s"'#][^,\[\]\n#]*?))\s*(?=,|\]|#|$)""")


def _bare_values(line: str, start: int) -> Iterable[tuple[int, int]]:
    """(start, end) of each plain value on a frontmatter line: `key: a`, `key: [a, "b"]`,
    `  - a`; quotes excluded from the range."""
    body = line[start:].rstrip("\r\n")
    stripped = body.lstrip()
    offset = start + len(body) - len(stripped)
    if stripped.startswith("- "):  # an item of a block list
        skip = 2 + len(stripped[2:]) - len(stripped[2:].lstrip())
        offset += skip
        stripped = stripped[skip:]
    if stripped.startswith("["):
        offset += 1
        stripped = stripped[1:]
    for m in _ITEM.finditer(stripped):
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        if m.group(group).strip():
            yield offset + m.start(group), offset + m.start(group) + len(m.group(group).rstrip())


def apply(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """Replace the (start, end, new) ranges of `text`, which must not overlap."""
    out, last = [], 0
    for start, end, new in sorted(edits):
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


class NameMatcher:
    """Names found as whole words, in any case. A candidate is found by its first word in a
    dict and confirmed by that word's small pattern: one alternation of thousands of names
    would be tried at every character of every note (31 s for a 2000-note vault)."""

    def __init__(self, names: Iterable[str]) -> None:
        buckets: dict[str, set[str]] = {}
        needs: dict[str, set[frozenset[str]]] = {}
        for raw in names:
            name = raw.strip()
            first = _WORD.match(name)
            if len(name) >= MIN_NAME and first is not None:  # ".NET"-like names: not matched
                key = first.group().lower()
                buckets.setdefault(key, set()).add(name)
                # ASCII words only: a name's other words lower-case the same way in the note
                need = frozenset(w for w in _WORD.findall(name.lower()) if w.isascii())
                needs.setdefault(key, set()).add(need)
        self.patterns = {word: _pattern(group) for word, group in buckets.items()}
        self.needs = needs

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def may_occur(self, words: AbstractSet[str]) -> bool:
        """A cheap test before parsing a note: are all the words of some name among its
        `words` (see `words_of`)? The first word alone let 4,679 of 6,600 notes through for
        "Have Replica Project" ("have"), each parsed and scanned with the store locked."""
        for first in self.patterns.keys() & words:
            if any(need <= words for need in self.needs[first]):
                return True
        return False

    def finditer(self, text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        """(start, end) of each name in text[start:end], longest first, not overlapping."""
        pos = start
        for word in _WORD.finditer(text, start, end):
            if word.start() < pos:
                continue
            pattern = self.patterns.get(word.group().lower())
            found = pattern.match(text, word.start(), end) if pattern is not None else None
            if found is not None:
                yield found.start(), found.end()
                pos = found.end()


def words_of(text: str) -> frozenset[str]:
    """The lower-cased words of a text, for NameMatcher.may_occur."""
    return frozenset(_WORD.findall(text.lower()))


def _pattern(names: Iterable[str]) -> re.Pattern[str]:
    parts = sorted(names, key=len, reverse=True)
    alternatives = "|".join(r"[ \t]+".join(map(re.escape, p.split())) for p in parts)
    return re.compile(rf"(?<![\w@#/.-])(?:{alternatives})(?![\w@]|-\w|\.\w)", re.IGNORECASE)


def name_pattern(names: Iterable[str]) -> NameMatcher | None:
    """A matcher for `names` (those under MIN_NAME characters left out), None if none is left."""
    matcher = NameMatcher(names)
    return matcher if matcher else None


def find_mentions(text: str, names: NameMatcher, found: list[Span] | None = None) -> list[Mention]:
    """Every name in the note's prose: not in frontmatter, code, links, URLs. `found`: the
    note's spans when the caller has them already."""
    return [mention_at(text, start, end) for start, end in name_ranges(text, names, found)]


def name_ranges(
    text: str, names: NameMatcher, found: list[Span] | None = None
) -> Iterator[tuple[int, int]]:
    """(start, end) of every name in the note's prose; `mention_at` describes one."""
    for span in spans(text) if found is None else found:
        if span.kind == "prose":
            yield from names.finditer(text, span.start, span.end)


def mention_at(text: str, start: int, end: int) -> Mention:
    """The mention at text[start:end]: its 1-based line and the sentence around it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    sentence_start = line_start
    for m in re.finditer(r"[.!?][\"')\]]*\s+", text[line_start:start]):
        sentence_start = line_start + m.end()
    stop = re.search(r"[.!?](?=\s|$)", text[end:line_end])
    sentence_end = end + stop.end() if stop else line_end
    context = text[sentence_start:sentence_end].strip()
    return Mention(start, end, text[start:end], text.count("\n", 0, start) + 1, context)


def link_mention(text: str, start: int, end: int, target: str) -> str:
    """The words at text[start:end] as a link to `target`, written as they were."""
    words = text[start:end]
    link = f"[[{target}]]" if words == target else f"[[{target}|{words}]]"
    return text[:start] + link + text[end:]


def retitle(text: str, old: str, new: str) -> str:
    """The frontmatter `title` set to `new` when it was `old` (the note's former file name)."""
    found = frontmatter_range(text)
    if found is None:
        return text
    start, end = found
    title = re.compile(r"^(title[ \t]*:[ \t]*)([\"']?)(.*?)\2([ \t]*)$", re.M)
    for m in title.finditer(text, start, end):
        if m.group(3) == old:
            quote = m.group(2) or ('"' if re.search(r"[:#\[\]{}&*!|>'\"%@`,]", new) else "")
            rest = m.end(3) + len(m.group(2))
            return text[: m.start(2)] + quote + new + quote + text[rest:]
    return text
