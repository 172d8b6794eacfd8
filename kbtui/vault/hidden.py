"""What Obsidian's reading view hides: `%%comments%%` and raw HTML markup.

Snippets, the text the model embeds, knowledge cards and the TUI's note view show a note as
Obsidian shows it. Hidden are Obsidian comments (`%%...%%`, inline or spanning lines; an
unclosed `%%` hides the rest of the note, as in Obsidian), HTML comments, HTML tags (the text
between them stays: `<b>x</b>` -> `x`), and whole elements that carry no prose (`<button>`,
`<script>`, `<style>`, ...). Code is never touched: `%%` and `<b>` inside a fence, an
indented block or a code span stay verbatim.

Where code is comes from markdown-it (block tokens for fences and indented code, its own
backtick rule for code spans); HTML is recognised by markdown-it's own tag pattern. Offsets
are computed on the whole note once, so a chunk cut inside a comment still knows it is
inside one (`HiddenText.shown(start, end)`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.html_re import HTML_TAG_RE

COMMENT = "comment"  # an Obsidian %% comment
MARKUP = "markup"  # an HTML tag, an HTML comment, an element that shows no prose
# Elements whose content is not prose a reader sees as text of the note.
DROPPED_ELEMENTS = frozenset(
    {"button", "script", "style", "template", "noscript", "svg", "iframe", "object", "canvas"}
)
# Tags that sit inside a line of text: removed without a space (`<b>x</b>y` -> `xy`).
INLINE_TAGS = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "del", "dfn", "em", "font", "i", "ins"}
    | {"kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup"}
    | {"time", "u", "var"}
)
MAX_TAG_CHARS = 16_384  # a longer "tag" is text: bounds the work on an unclosed quote
_TAG_NAME = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)")
_TICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    """Block rules only: where fences and indented code are, without the inline pass."""
    md = MarkdownIt("commonmark")
    md.disable("inline")
    return md


class HiddenText:
    """A note's text with the spans Obsidian hides, by kind; `shown()` cuts them out."""

    def __init__(self, text: str, blocks: Sequence[tuple[str, int, int]] | None = None) -> None:
        """`blocks`: where parse_note found the text's code blocks (ParsedNote.blocks; its
        GFM parse puts them where this one does on 406 real notes), sparing a parse."""
        self.text = text
        self.spans: list[tuple[int, int, str, str]] = []  # (start, end, kind, replacement)
        if "%%" in text or "<" in text:
            self.spans = _hidden_spans(text, blocks)
        # Running maximum of span ends: the first span that can reach past a position.
        self._reach: list[int] = []
        for span in self.spans:
            self._reach.append(max(span[1], self._reach[-1] if self._reach else 0))

    def shown(
        self, start: int = 0, end: int | None = None, kinds: frozenset[str] | None = None
    ) -> str:
        """text[start:end] without the hidden spans (of `kinds`, default all)."""
        end = len(self.text) if end is None else end
        out: list[str] = []
        pos = start
        for i in range(bisect.bisect_right(self._reach, start), len(self.spans)):
            s, e, kind, replacement = self.spans[i]
            if s >= end:
                break
            if e <= pos or (kinds is not None and kind not in kinds):
                continue
            if s > pos:
                out.append(self.text[pos:s])
            out.append(replacement)
            pos = max(pos, e)
        if pos < end:
            out.append(self.text[pos:end])
        return "".join(out)


def comment_lines(text: str) -> frozenset[int]:
    """The 0-based lines of `text` whose first character sits inside a `%%` or HTML comment:
    Obsidian reads no list item (no task) there."""
    if "%%" not in text and "<!--" not in text:
        return frozenset()
    spans = [
        (s, e)
        for s, e, kind, _ in _hidden_spans(text)
        if kind == COMMENT or text.startswith("<!--", s)
    ]
    if not spans:
        return frozenset()
    found: set[int] = set()
    starts = [st for st, _ in spans]
    pos = 0
    for n, line in enumerate(text.split("\n")):
        first = pos + len(line) - len(line.lstrip())
        i = bisect.bisect_right(starts, first) - 1
        if any(s <= first < e for s, e in spans[max(i - 8, 0) : i + 1]):
            found.add(n)
        pos += len(line) + 1
    return frozenset(found)


def visible_markdown(text: str) -> str:
    """The note as Obsidian's reading view shows it, still markdown: comments and HTML out."""
    return HiddenText(text).shown()


def _hidden_spans(
    text: str, blocks: Sequence[tuple[str, int, int]] | None = None
) -> list[tuple[int, int, str, str]]:
    code = _code_spans(text, blocks)
    spans = _comment_spans(text, code)
    spans += _markup_spans(text, code)
    spans.sort()
    return spans


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _code_spans(
    text: str, found: Sequence[tuple[str, int, int]] | None = None
) -> list[tuple[int, int]]:
    """Fenced and indented code blocks, then inline code spans in the text between them."""
    if found is None:
        found = [(t.type, t.map[0], t.map[1]) for t in _blocks().parse(text) if t.map]
    lines = _line_starts(text)
    blocks: list[tuple[int, int]] = []
    for kind, first, last in found:
        if kind in ("fence", "code_block"):
            start = lines[min(first, len(lines) - 1)]
            end = lines[last] if last < len(lines) else len(text)
            blocks.append((start, end))
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in [*blocks, (len(text), len(text))]:
        spans.extend(_code_inline(text, pos, start))
        if end > start:
            spans.append((start, end))
        pos = end
    return spans


def _code_inline(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """CommonMark code spans: a run of n backticks up to the next run of exactly n, within a
    paragraph (a blank line ends it); an unmatched run is literal text. Linear: each run is
    read once, by its paragraph (as markdown-it does with its backtick cache)."""
    spans: list[tuple[int, int]] = []
    for para_start, para_end in _paragraphs(text, start, end):
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, para_start, para_end)]
        by_width: dict[int, list[int]] = {}
        for n, (s, e) in enumerate(runs):
            by_width.setdefault(e - s, []).append(n)
        n = 0
        while n < len(runs):
            s, e = runs[n]
            same = by_width[e - s]
            k = bisect.bisect_right(same, n)
            if k == len(same):  # no later run of this width: literal backticks
                n += 1
                continue
            close = same[k]
            spans.append((s, runs[close][1]))
            n = close + 1
    return spans


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) cut at blank lines."""
    out = []
    pos = start
    for blank in _BLANK_LINE.finditer(text, start, end):
        out.append((pos, blank.start()))
        pos = blank.end()
    out.append((pos, end))
    return out


def _inside(spans: list[tuple[int, int]], starts: list[int], pos: int) -> int:
    """The end of the code span holding `pos`, or -1."""
    i = bisect.bisect_right(starts, pos) - 1
    return spans[i][1] if i >= 0 and spans[i][0] <= pos < spans[i][1] else -1


def _comment_spans(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
    starts = [s for s, _ in code]
    marks: list[int] = []
    pos = text.find("%%")
    while pos >= 0:
        skip = _inside(code, starts, pos)
        if skip >= 0:
            pos = text.find("%%", skip)
            continue
        marks.append(pos)
        pos = text.find("%%", pos + 2)
    spans = []
    for i in range(0, len(marks), 2):
        end = marks[i + 1] + 2 if i + 1 < len(marks) else len(text)
        spans.append((marks[i], end, COMMENT, ""))
    return spans


def _markup_spans(text: str, code: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
    """Tags by markdown-it's pattern, matched within their paragraph (as its inline parser
    does: an unclosed quote or comment cannot run on through the note); a `<!--` that opens a
    line runs to its `-->` or the end, as an HTML block does."""
    starts = [s for s, _ in code]
    spans: list[tuple[int, int, str, str]] = []
    para_end = next_gt = -1
    unclosed: dict[str, int] = {}  # element -> a position after which it has no end tag
    pos = text.find("<")
    while pos >= 0:
        skip = _inside(code, starts, pos)
        if skip >= 0:
            pos = text.find("<", skip)
            continue
        if pos >= para_end:
            blank = _BLANK_LINE.search(text, pos)
            para_end = blank.start() if blank else len(text)
        if text.startswith("<!--", pos) and _opens_line(text, pos):
            close = text.find("-->", pos + 4)
            end = close + 3 if close >= 0 else len(text)
            spans.append((pos, end, MARKUP, ""))
            pos = text.find("<", end)
            continue
        if next_gt < pos:  # no tag without a ">": found once, not per "<"
            gt = text.find(">", pos)
            next_gt = gt if gt >= 0 else len(text)
        limit = min(para_end, pos + MAX_TAG_CHARS)
        found = HTML_TAG_RE.match(text, pos, limit) if next_gt < limit else None
        if found is None:
            pos = text.find("<", pos + 1)
            continue
        end = found.end()
        name = _TAG_NAME.match(found.group())
        closing, tag = (name.group(1), name.group(2).lower()) if name else ("", "")
        dropped = tag in DROPPED_ELEMENTS and not closing and not found.group().endswith("/>")
        if dropped and unclosed.get(tag, len(text) + 1) > end:
            close_tag = re.compile(rf"</\s*{tag}\s*>", re.IGNORECASE).search(text, end)
            if close_tag is None:
                unclosed[tag] = end
            else:
                end = close_tag.end()
        replacement = "" if not name or tag in INLINE_TAGS else " "
        spans.append((pos, end, MARKUP, replacement))
        pos = text.find("<", end)
    return spans


def _opens_line(text: str, pos: int) -> bool:
    """Only spaces or tabs between the line's start and `pos` (read back, not the line)."""
    k = pos - 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    return k < 0 or text[k] == "\n"
