"""Which chunks carry no meaning for the embedding model: long code, tables of numbers,
template shortcodes.

The model costs most of a first index (redis docs: 140k chunks, 54 min) and MiniLM turns a
chunk of C, JSON or `| 0.12 | 3.4 |` rows into a vector near every other such chunk: a
vector search never wants it. Such chunks are still written, keyword-searched and read; they
are only not embedded.

The rule, per chunk, on the visible (non-blank) characters of its span in the note body:
- code: inside a fenced or indented code block of at least LONG_CODE_LINES lines (a short
  example is usually explained by the text around it, and cheap);
- data: on a table row (header, divider or body) whose cells hold fewer than
  DATA_LETTERS of letters (numbers, dates, ticks, punctuation);
- markup: inside a template shortcode (`{{< ... >}}`, `{{% ... %}}`, `{% ... %}`);
and the chunk is not embedded when these add up to at least NOT_EMBEDDED_SHARE of its visible
characters. The reason recorded is the largest of the three. Where blocks are comes from
markdown-it over the whole note, so a piece cut from the middle of a long block (no fence
of its own) is still known as code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt

LONG_CODE_LINES = 12
DATA_LETTERS = 0.5
NOT_EMBEDDED_SHARE = 0.8
CODE, DATA, MARKUP = "code", "data", "markup"
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}|\{%.*?%\}", re.DOTALL)
_LETTER = re.compile(r"[^\W\d_]")
_VISIBLE = re.compile(r"\S")
_TABLE_CELL_MARKS = re.compile(r"[|\s]")


@lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    """Block rules only, tables on: where code blocks and tables are."""
    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    return md


class Meaning:
    """A note body's spans that carry no meaning for a model; `reason()` judges a chunk."""

    def __init__(self, body: str, blocks: Sequence[tuple[str, int, int]] | None = None) -> None:
        """`blocks`: the body's code blocks and tables as parse_note found them (ParsedNote.
        blocks), which spares a second parse of every note (a third of a first index's
        text pass on documentation); parsed here when not given."""
        self.body = body
        self.spans: list[tuple[int, int, str]] = []  # (start, end, kind), body offsets
        if "```" in body or "~~~" in body or "|" in body or "    " in body or "\t" in body:
            self.spans.extend(_block_spans(body, blocks))
        if "{{" in body or "{%" in body:
            self.spans.extend((m.start(), m.end(), MARKUP) for m in _SHORTCODE.finditer(body))
        self.spans.sort()

    def reason(self, start: int, end: int) -> str | None:
        """ "code", "data" or "markup" when the chunk body[start:end] is not worth a vector."""
        if end <= start or not self.spans:
            return None
        visible = len(_VISIBLE.findall(self.body, start, end))
        if not visible:
            return None
        counts = {CODE: 0, DATA: 0, MARKUP: 0}
        covered = start  # shortcodes inside a code block are counted once
        for s, e, kind in self.spans:
            s, e = max(s, covered, start), min(e, end)
            if e <= s:
                continue
            counts[kind] += len(_VISIBLE.findall(self.body, s, e))
            covered = e
        if sum(counts.values()) < NOT_EMBEDDED_SHARE * visible:
            return None
        return max(counts, key=lambda k: counts[k])


def _block_spans(
    body: str, blocks: Sequence[tuple[str, int, int]] | None
) -> list[tuple[int, int, str]]:
    if blocks is None:
        blocks = [(t.type, t.map[0], t.map[1]) for t in _blocks().parse(body) if t.map]
    lines = [0]
    lines.extend(m.end() for m in re.finditer("\n", body))

    def offset(line: int) -> int:
        return lines[line] if line < len(lines) else len(body)

    spans: list[tuple[int, int, str]] = []
    for kind, first, last in blocks:
        if kind in ("fence", "code_block") and last - first >= LONG_CODE_LINES:
            spans.append((offset(first), offset(last), CODE))
        elif kind == "table_open":
            for line in range(first, last):
                row = body[offset(line) : offset(line + 1)]
                cells = _TABLE_CELL_MARKS.sub("", row)
                if len(_LETTER.findall(cells)) < DATA_LETTERS * len(cells):
                    spans.append((offset(line), offset(line + 1), DATA))
    return spans
