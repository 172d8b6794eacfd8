"""Where things sit in a note's text: wikilinks and the prose outside code, links and URLs,
as character offsets into the file, so an edit can change a few characters and keep the rest.

markdown-it's tokens carry line ranges but no columns. Each inline rule that consumes a
construct (a wikilink, a code span, a link, an autolink, inline HTML) is wrapped to record the
range it consumed in its inline source; each line of that source is then found in its raw line
of the file. A position whose line cannot be placed is left out: an edit never guesses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from kbtui.vault.parse import _wikilink_rule

# Constructs whose text is not prose: mentions are never looked for inside them.
OPAQUE_RULES = ("backticks", "link", "image", "autolink", "html_inline", "wikilink")
URL_RE = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.|mailto:)\S+", re.IGNORECASE)
_FRONTMATTER = re.compile(
    r"\A(\ufeff?---[ \t]*\r?\n)(.*?\r?\n)?((?:---|\.\.\.)[ \t]*)(\r?\n|\Z)", re.S
)


@dataclass(frozen=True)
class Span:
    """A range [start, end) of the whole file's text."""

    start: int
    end: int
    kind: str  # an OPAQUE_RULES name, "prose" for text between them


def body_start(text: str) -> int:
    """Offset where the body begins: after a closed YAML frontmatter block, else 0."""
    match = _FRONTMATTER.match(text)
    return match.end() if match else 0


def frontmatter_range(text: str) -> tuple[int, int] | None:
    """[start, end) of the YAML between the `---` fences, when the note has frontmatter."""
    match = _FRONTMATTER.match(text)
    if not match:
        return None
    start = match.end(1)
    return start, start + len(match.group(2) or "")


def spans(text: str) -> list[Span]:
    """Every opaque construct and every stretch of prose of the body, in file order.

    Fenced and indented code blocks, HTML blocks and the frontmatter never appear: only
    inline content is reported."""
    offset = body_start(text)
    body = text[offset:]
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", body)]
    env: dict[str, Any] = {"_spans": []}
    tokens = _parser().parse(body, env)
    recorded: list[tuple[str, str, int, int]] = env["_spans"]
    out: list[Span] = []
    cursors: dict[int, int] = {}  # per line, where the last placed piece ended (table cells)
    for tok in tokens:
        if tok.type != "inline" or tok.map is None or not tok.content:
            continue
        src = tok.content
        place = _placer(body, line_starts, tok.map[0], src, cursors)
        opaque = sorted((s, e, name) for (owner, name, s, e) in recorded if owner is src)
        cursor = 0
        for s, e, name in _outermost(opaque):
            out.extend(_prose(src, cursor, s, place, offset))
            a, b = place(s), place(e)
            if a is not None and b is not None:
                out.append(Span(offset + a, offset + b, name))
            cursor = e
        out.extend(_prose(src, cursor, len(src), place, offset))
    return sorted(out, key=lambda s: s.start)


def _outermost(ranges: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Ranges not inside another one (a code span inside a link's label is the link's)."""
    end = -1
    for s, e, name in ranges:
        if s >= end:
            yield s, e, name
            end = e


def _prose(
    src: str, start: int, end: int, place: Callable[[int], int | None], offset: int
) -> Iterator[Span]:
    """The prose in src[start:end], one span per placed line piece, minus bare URLs."""
    pos = start
    while pos < end:
        nl = src.find("\n", pos, end)
        stop = end if nl < 0 else nl
        piece = src[pos:stop]
        last = 0
        for url in [*URL_RE.finditer(piece), None]:
            cut = len(piece) if url is None else url.start()
            a, b = place(pos + last), place(pos + cut)
            if cut > last and a is not None and b is not None:
                yield Span(offset + a, offset + b, "prose")
            last = len(piece) if url is None else url.end()
        pos = stop + 1


def _placer(
    body: str, line_starts: list[int], first_line: int, src: str, cursors: dict[int, int]
) -> Callable[[int], int | None]:
    """Maps an offset of the inline source to an offset of the body (None: not placed)."""
    columns: list[list[int] | None] = []  # per source line: body offset of each character
    src_starts: list[int] = []
    pos = 0
    for i, line in enumerate(src.split("\n")):
        src_starts.append(pos)
        pos += len(line) + 1
        columns.append(_align(body, line_starts, first_line + i, line, cursors))

    def place(p: int) -> int | None:
        i = max(0, _bisect(src_starts, p))
        cols = columns[i]
        k = p - src_starts[i]
        return None if cols is None or k >= len(cols) else cols[k]

    return place


def _align(
    body: str, line_starts: list[int], n: int, line: str, cursors: dict[int, int]
) -> list[int] | None:
    """Body offsets of `line`'s characters in raw line `n`: the content line is the raw line
    minus a prefix (indent, `> `, `- `, `# `, `| `), with a table's `\\|` read as `|`."""
    if not line or n >= len(line_starts):
        return None
    raw_end = line_starts[n + 1] - 1 if n + 1 < len(line_starts) else len(body)
    start = line_starts[n] + cursors.get(n, 0)
    # Without a backslash in the raw line a `|` can only be itself: the line is searched as
    # it is, with no pattern compiled per line (that was 60% of a vault's mention scan).
    if "|" not in line or body.find("\\", start, raw_end) < 0:
        at = body.find(line, start, raw_end)
        if at < 0:
            return None
    else:
        pattern = "".join(r"\\?\|" if c == "|" else re.escape(c) for c in line)
        found = re.compile(pattern).search(body, start, raw_end)
        if found is None:
            return None
        at = found.start()
    cols, j = [], at
    for c in line:
        if c == "|" and body[j] == "\\":
            j += 1
        cols.append(j)
        j += 1
    cols.append(j)
    cursors[n] = j - line_starts[n]
    return cols


def _bisect(starts: list[int], p: int) -> int:
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= p:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def _recording(name: str, fn: Callable[[StateInline, bool], bool]) -> Any:
    def rule(state: StateInline, silent: bool) -> bool:
        start = state.pos
        matched = fn(state, silent)
        if matched and not silent:
            state.env["_spans"].append((state.src, name, start, state.pos))
        return matched

    return rule


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """The index's markdown dialect, with the opaque rules recording their ranges."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    for rule in md.inline.ruler.__rules__:
        if rule.name in OPAQUE_RULES:
            rule.fn = _recording(rule.name, rule.fn)
    md.inline.ruler.__cache__ = None
    return md
