"""The note view's Obsidian panels: the outline (the note's headings; Enter scrolls to one)
and the backlinks as Obsidian counts them (files whose links reach the note, with how many,
canvases and markdown links included), and finding the block that holds a line of the note
(the Tasks screen opens a note at its task)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownHeader
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.widgets.note_parts import linkify

HEADING_PREFIX = "heading-"  # an outline option's id: the heading's place among the note's


def outline_options(answer: dict[str, Any]) -> list[Option]:
    """One option per heading, indented by level, with its line in the file."""
    options = []
    for i, h in enumerate(answer.get("results", [])):
        text = Text("  " * (int(h["level"]) - 1) + cell_safe(str(h["heading"])))
        text.append(f"  :{h['line']}", style="dim")
        options.append(Option(text, id=f"{HEADING_PREFIX}{i}"))
    return options


def backlink_options(answer: dict[str, Any]) -> list[Option]:
    """One option per linking file (its path is the id), with its number of links."""
    options = []
    for r in answer.get("results", []):
        text = Text(cell_safe(str(r["file"])))
        text.append(f"  ×{r['count']}", style="dim")
        options.append(Option(text, id=str(r["file"])))
    return options


def heading_block(body: Markdown, index: int) -> MarkdownHeader | None:
    """The `index`th heading drawn in the note's body (the outline lists them in order)."""
    headers = list(body.query(MarkdownHeader))
    return headers[index] if 0 <= index < len(headers) else None


def block_holding(body: Markdown, text: str, line: int) -> MarkdownBlock | None:
    """The innermost block of the body whose source holds `text` (a task's words), the one
    nearest `line` (1-based in the file: the body starts after the properties, so the
    nearest one at or above it) when the words recur."""
    words = text.strip()
    for marker in ("- [", "* [", "+ ["):  # the words after the checkbox
        if words.startswith(marker) and "]" in words:
            words = words.split("]", 1)[1].strip()
    words = linkify(words)[:40]  # as the view draws it: a task naming a [[link]] is found
    if not words:
        return None
    found = [b for b in body.query(MarkdownBlock) if b.source and words in b.source]
    if not found:
        return None
    return min(
        found,
        key=lambda b: (len(b.source or ""), abs(line - 1 - b.source_range[0])),
    )
