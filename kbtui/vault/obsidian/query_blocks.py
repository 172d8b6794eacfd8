"""The query blocks of a note: fenced code whose language is a plugin's query language
(```tasks, ```dataview, ```dataviewjs, ```base), with the 1-based line of the opening fence;
blocks in quotes and callouts count, as the plugins run them there too."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

LANGUAGES = ("tasks", "dataview", "dataviewjs", "base")


@dataclass(frozen=True)
class QueryBlock:
    line: int  # 1-based line of the opening fence in the file
    language: str
    source: str  # the block's text, without quote markers


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark")


def query_blocks(text: str, languages: tuple[str, ...] = LANGUAGES) -> list[QueryBlock]:
    found: list[QueryBlock] = []
    for token in _md().parse(text):
        if token.type != "fence" or token.map is None:
            continue
        language = token.info.strip().split(" ", 1)[0].lower()
        if language in languages:
            found.append(QueryBlock(token.map[0] + 1, language, token.content))
    return found
