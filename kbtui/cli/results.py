"""`kbtui search` for people: one group of lines per result, what a person scans first.

A table with an id column wrapped ids mid-word and ran long snippets ten lines deep in 80
columns. Here each result is a line with score, title and folder (the id too with `--ids`),
then its snippet: two lines at most, fitted to the terminal's width. Piped output has no width
to fit (Rich would assume 80 and cut every line there): each snippet stays on one line, unless
COLUMNS says how wide to be.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from kbtui.cells import cell_safe

INDENT = 6  # the snippet starts under the title, past the score
SNIPPET_LINES = 2


def print_results(console: Console, results: Sequence[dict[str, Any]], ids: bool) -> None:
    fit = console.is_terminal or os.environ.get("COLUMNS", "").isdigit()
    width = console.width if fit else None
    for n, result in enumerate(results):
        if n:
            console.print()
        head = head_line(result, ids, safe=width is not None)
        snippet = " ".join(str(result.get("snippet", "")).split())
        if width is None:
            console.print(head, soft_wrap=True)
            if snippet:
                console.print(Text(" " * INDENT + snippet, style="dim"), soft_wrap=True)
            continue
        head.truncate(width, overflow="ellipsis")
        console.print(head, no_wrap=True)
        for line in snippet_lines(console, snippet, width - INDENT):
            console.print(Text(" " * INDENT) + line, no_wrap=True)


def head_line(result: dict[str, Any], ids: bool, safe: bool = True) -> Text:
    """Score, [id,] title, folder: the id before the title so a narrow line never cuts it.
    `safe`: width-safe text (kbtui.cells) for a terminal; piped text stays as written."""
    shown = cell_safe if safe else str
    head = Text(f"{float(result['score']):.2f}", style="green")
    head.append(" " * (INDENT - len(head.plain)))
    if ids:
        head.append(str(result["id"]), style="cyan")
        head.append("  ")
    head.append(shown(str(result.get("title") or result["id"])), style="bold")
    metadata = result.get("metadata") or {}
    if metadata.get("page"):  # a PDF's page
        head.append(f"  p. {metadata['page']}", style="magenta")
    path = str(metadata.get("file_path") or "")
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if folder:
        head.append(f"  {shown(folder)}/", style="dim")
    also = (result.get("metadata") or {}).get("also_in")
    if also:  # near-identical copies folded into this result (search/copies.py)
        head.append(f"  (also in {shown(', '.join(map(str, also)))})", style="dim")
    for key, words in (("listed_in", "listed in"), ("embedded_in", "in")):
        names = [str(p).rsplit("/", 1)[-1].removesuffix(".md") for p in metadata.get(key, ())]
        if names:  # search/listed.py, search/embeds.py
            head.append(f"  ({words} {shown(', '.join(names))})", style="dim")
    return head


def snippet_lines(console: Console, snippet: str, width: int) -> list[Text]:
    """The snippet wrapped to `width`, at most SNIPPET_LINES lines, "…" where it was cut."""
    if not snippet or width < 10:
        return []
    lines = list(Text(cell_safe(snippet), style="dim").wrap(console, width))
    if len(lines) > SNIPPET_LINES:
        lines = lines[:SNIPPET_LINES]
        last = lines[-1]
        last.rstrip()
        if last.cell_len >= width:
            last.truncate(width - 1)
            space = last.plain.rfind(" ")
            if space > width // 2:  # end on a whole word
                last.truncate(space)
            last.rstrip()
        last.append("…", style="dim")
    return lines
