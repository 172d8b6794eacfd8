"""What the editor completes and how it ranks: `[[` (a note by its link text, title or alias),
`[[Note#` (its headings), `#` (a tag); and the list it shows under the cursor.

Ranking is rapidfuzz's WRatio over the names holding every typed word (a name that starts
with what was typed first); when no name holds them (a typo), partial ratio over every name
finds the near ones. Names are folded once (rapidfuzz's
default_process: lower case, punctuation as spaces), so a keystroke on a 10k-note vault
ranks in milliseconds (bench/tui_editor.py).
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from rapidfuzz import fuzz, process, utils
from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe

SHOWN = 12  # entries in the list
RANKED = 300  # names WRatio ranks at most (the likeliest: those starting with the query ...)
_HEADING = re.compile(r"\[\[([^\[\]|#\n]*)#([^\[\]|#\n]*)$")
_LINK = re.compile(r"\[\[([^\[\]|#\n]*)$")
_TAG = re.compile(r"(?:^|[\s(,;])#([\w/-]*)$")


@dataclass(frozen=True)
class Context:
    """What is being completed on the cursor's line: `kind` link, heading or tag; `query`
    the text typed so far, from column `start`; `note` the note whose headings (heading)."""

    kind: str
    query: str
    start: int
    note: str = ""


def context(before: str, in_code: bool = False) -> Context | None:
    """The completion the text before the cursor (on its line) asks for, if any."""
    if in_code:
        return None
    found = _HEADING.search(before)
    if found:
        return Context("heading", found.group(2), found.start(2), found.group(1).strip())
    found = _LINK.search(before)
    if found:
        return Context("link", found.group(1), found.start(1))
    found = _TAG.search(before)
    if found and (found.group(1) or found.start() > 0):  # `#` opening a line is a heading
        return Context("tag", found.group(1), found.start(1))
    return None


def in_code_block(lines: list[str], row: int) -> bool:
    """True when line `row` is inside a fenced code block (``` or ~~~)."""
    fence = ""
    for line in lines[:row]:
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = "" if fence == mark else (fence or mark)
    return bool(fence)


@dataclass(frozen=True)
class Choice:
    label: str  # what the list shows
    detail: str  # beside it, dimmed
    insert: str  # what replaces the query (the link's closing brackets come after)


class Ranker:
    """Names to choose from, each with the choice it makes."""

    def __init__(self, choices: list[tuple[str, Choice]]) -> None:
        self.choices = [c for _, c in choices]
        self.keys = [utils.default_process(name) for name, _ in choices]
        self.aside = [0.5 if "|" in c.insert else 0.0 for _, c in choices]  # title, alias

    def rank(self, query: str, limit: int = SHOWN) -> list[Choice]:
        q = utils.default_process(query)
        if not q:
            return _unique(self.choices, limit)
        words, keys = q.split(), self.keys
        if len(words) == 1:
            hits = [i for i, key in enumerate(keys) if q in key]
        else:
            hits = [i for i, key in enumerate(keys) if all(w in key for w in words)]
        if len(hits) > RANKED:
            hits = self._likeliest(q, hits)
        best: dict[int, float] = {}
        for _, score, i in process.extract(
            q, {i: self.keys[i] for i in hits}, scorer=fuzz.WRatio, processor=None, limit=None
        ):
            # a name typed from its start first; a note's own link text before its aliases
            best[i] = score + (20 if self.keys[i].startswith(q) else 0) - self.aside[i]
        if not hits and len(q) >= 3:  # a typo: the names nearest to it
            for _, score, i in process.extract(
                q, self.keys, scorer=fuzz.partial_ratio, processor=None, limit=limit * 2,
                score_cutoff=70,
            ):  # fmt: skip
                best.setdefault(i, score - 30 - self.aside[i])
        order = sorted(best, key=lambda i: (-best[i], len(self.keys[i]), self.keys[i]))
        return _unique([self.choices[i] for i in order], limit)

    def _likeliest(self, q: str, hits: list[int]) -> list[int]:
        """RANKED of many names holding the query, for WRatio to order: those starting
        with it, then those with a word starting with it, then the rest; shortest first."""
        keys, spaced = self.keys, " " + q
        picked: list[int] = []
        starts = [i for i in hits if keys[i].startswith(q)]
        inner = [i for i in hits if spaced in keys[i] and not keys[i].startswith(q)]
        for tier in (starts, inner, hits):
            room = RANKED - len(picked)
            if room <= 0:
                break
            taken = set(picked)
            fresh = [i for i in tier if i not in taken] if picked and tier is hits else tier
            picked += heapq.nsmallest(room, fresh, key=lambda i: len(keys[i]))
        return picked


def _unique(choices: list[Choice], limit: int) -> list[Choice]:
    """The best choice of each note (one found by its name, title and alias is listed once)."""
    seen: set[str] = set()
    out: list[Choice] = []
    for choice in choices:
        key = choice.insert.split("|", 1)[0]
        if key in seen:
            continue
        seen.add(key)
        out.append(choice)
        if len(out) == limit:
            break
    return out


def link_ranker(notes: list[dict[str, Any]]) -> Ranker:
    """`[[` choices from app_link_names: each note by its link text (the file's name), its
    title and its aliases; a title or alias inserts `link|shown`, as Obsidian writes it."""
    choices: list[tuple[str, Choice]] = []
    for note in notes:
        link, path = str(note["link"]), str(note["path"])
        choices.append((link, Choice(cell_safe(link), cell_safe(path), link)))
        names = [str(note.get("title") or "")] + [str(a) for a in note.get("aliases") or []]
        for name in dict.fromkeys(n for n in names if n and n.lower() != link.lower()):
            shown = cell_safe(name)
            choices.append((name, Choice(shown, f"→ {cell_safe(link)}", f"{link}|{name}")))
    return Ranker(choices)


def tag_ranker(tags: list[dict[str, Any]]) -> Ranker:
    choices = [
        (str(t["tag"]), Choice(f"#{cell_safe(str(t['tag']))}", f"{t['count']}", str(t["tag"])))
        for t in tags
    ]
    return Ranker(choices)


def heading_ranker(headings: list[tuple[int, str]]) -> Ranker:
    """`[[Note#` choices: (level, text) of each heading, in the note's order."""
    return Ranker([(text, Choice(cell_safe(text), "#" * level, text)) for level, text in headings])


def text_headings(text: str) -> list[tuple[int, str]]:
    """The headings of markdown text (outside code blocks): what `[[#` completes."""
    found: list[tuple[int, str]] = []
    fence = ""
    for line in text.splitlines():
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = "" if fence == mark else (fence or mark)
            continue
        heading = re.match(r"(#{1,6})\s+(.+?)\s*#*\s*$", line)
        if heading and not fence:
            found.append((len(heading.group(1)), heading.group(2)))
    return found


class CompletionList(OptionList):
    """The choices under the cursor. It never takes the focus: the text area keeps it, and
    the editor sends it up, down, Enter, Tab and Escape while it is shown."""

    can_focus = False
    WIDE = 62  # a choice's cells: the width less the border
    DEFAULT_CSS: ClassVar[str] = """
    CompletionList {
        overlay: screen;
        constrain: inside inflect;
        width: 64;
        height: 14;
        border: round $accent;
        background: $surface;
        padding: 0;
        display: none;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Choice] = []

    def show_choices(self, choices: list[Choice]) -> None:
        if choices == self.choices and self.display:
            return  # the same list: nothing to draw again
        self.choices = choices
        options = []
        for choice in choices:
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(choice.label, style="bold")
            line.append(f"  {choice.detail}", style="dim")
            line.truncate(self.WIDE, overflow="ellipsis")  # one row each: the list's size
            options.append(Option(line))
        # A fixed size: new options redraw the list alone; a size of `auto` laid out the
        # whole screen again on every letter typed (bench/tui_editor.py)
        self.styles.height = len(options) + 2  # the border
        self.set_options(options)
        self.highlighted = 0 if choices else None
        self.display = bool(choices)

    def hide(self) -> None:
        self.display = False
        self.choices = []

    @property
    def shown(self) -> bool:
        return bool(self.display and self.choices)

    def move(self, step: int) -> None:
        if self.choices:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.choices)

    def chosen(self) -> Choice | None:
        if not self.shown or self.highlighted is None:
            return None
        return self.choices[self.highlighted]
