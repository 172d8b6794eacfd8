"""Where an edit aimed at a heading, a block or a piece of text lands — or an error.

Peers' worst failures are edits that miss: a heading not found (or found twice) and the text
appended at the end of the note with "success". Here a target is found exactly once or the
edit is refused with the candidates and their line numbers; nothing is created unless asked.

A heading target is its text (`Tasks`) or a path of headings (`Project > Tasks`: Tasks
somewhere under Project), with or without leading `#`s. Headings inside code blocks are not
headings. A section runs from its heading to the next heading of the same or a higher level.
A block target is `^id`: the paragraph or list item that ends with that id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from rapidfuzz import fuzz, process

from kbtui.vault.spans import body_start

POSITIONS = ("append", "prepend", "replace", "before", "after")
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)$")


class TargetError(ValueError):
    """The edit's target is missing or ambiguous; `candidates` are (line, text) to choose from."""

    def __init__(self, message: str, candidates: list[tuple[int, str]] | None = None) -> None:
        self.candidates = candidates or []
        listed = "; ".join(f"line {n}: {t}" for n, t in self.candidates[:12])
        super().__init__(f"{message}{' — candidates: ' + listed if listed else ''}")
        self.message = message


@dataclass(frozen=True)
class Heading:
    line: int  # 0-based line of the file where the heading starts
    end: int  # 0-based line after the heading (setext headings take two)
    level: int
    text: str


@dataclass
class Lines:
    """A note's lines with their own endings, and the ending new lines get."""

    items: list[str]
    newline: str
    headings: list[Heading] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, newline: str) -> Lines:
        return cls(text.splitlines(keepends=True), newline, headings(text))

    def text(self) -> str:
        return "".join(self.items)


def headings(text: str) -> list[Heading]:
    """The note's headings in order, code blocks and the properties left out."""
    at = body_start(text)
    first = text[:at].count("\n")
    found: list[Heading] = []
    tokens = MarkdownIt("commonmark").parse(text[at:])
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            title = tokens[i + 1].content.strip()
            found.append(
                Heading(first + token.map[0], first + token.map[1], int(token.tag[1:]), title)
            )
    return found


def _norm(part: str) -> tuple[str, int | None]:
    """A target part as written: `## Tasks` -> ("Tasks", 2); `Tasks` -> ("Tasks", None)."""
    match = re.match(r"^(#{1,6})\s+(.*)$", part.strip())
    if match:
        return match.group(2).strip(), len(match.group(1))
    return part.strip(), None


def section_end(hs: list[Heading], index: int, total_lines: int) -> int:
    level = hs[index].level
    return next((h.line for h in hs[index + 1 :] if h.level <= level), total_lines)


def find_heading(lines: Lines, target: str) -> int | None:
    """The index in `lines.headings` of the one heading `target` names; None when the last
    part is missing but its parents exist (the caller may create it). Raises TargetError."""
    parts = [_norm(p) for p in re.split(r"\s*>\s*", target) if p.strip()]
    if not parts:
        raise TargetError("an empty heading was given")
    hs = lines.headings
    matches = [i for i, h in enumerate(hs) if _is(h, parts[-1])]
    matches = [i for i in matches if _under(hs, i, parts[:-1])]
    if len(matches) == 1:
        return matches[0]
    shown = [(h.line + 1, "#" * h.level + " " + h.text) for h in hs]
    if len(matches) > 1:
        raise TargetError(
            f"{target!r} names {len(matches)} headings; give its path (Parent > Heading)",
            [shown[i] for i in matches],
        )
    parents = [i for i, h in enumerate(hs) if parts[:-1] and _is(h, parts[-2])]
    if len(parts) > 1 and not [i for i in parents if _under(hs, i, parts[:-2])]:
        raise TargetError(f"no heading {parts[-2][0]!r} in the note", _closest(shown, parts[-2]))
    if not hs:
        raise TargetError("the note has no headings")
    return None


def _is(heading: Heading, part: tuple[str, int | None]) -> bool:
    text, level = part
    return heading.text == text and (level is None or heading.level == level)


def _under(hs: list[Heading], index: int, parents: list[tuple[str, int | None]]) -> bool:
    """True when the headings `parents` enclose heading `index`, outermost first."""
    need = list(parents)
    level = hs[index].level
    for h in reversed(hs[:index]):
        if not need:
            break
        if h.level < level:
            level = h.level
            if _is(h, need[-1]):
                need.pop()
    return not need


def _closest(shown: list[tuple[int, str]], part: tuple[str, int | None]) -> list[tuple[int, str]]:
    texts = [t.lstrip("#").strip() for _, t in shown]
    best = process.extract(part[0], texts, scorer=fuzz.WRatio, limit=8)
    return [shown[i] for _, score, i in best if score >= 50] or shown[:12]


def block_range(lines: Lines, block_id: str) -> tuple[int, int]:
    """[first, end) lines of the block ending in `^block_id`: its paragraph or list item, or
    the block above a line holding only the id (tables, quotes)."""
    wanted = block_id.lstrip("^")
    hits = [
        n
        for n, line in enumerate(lines.items)
        if (m := _BLOCK_ID.search(line.rstrip()))
        and m.group(1) == wanted
        and (m.start() == 0 or line.rstrip()[m.start() - 1] in " \t")
    ]
    if not hits:
        ids = [
            (n + 1, m.group(0))
            for n, line in enumerate(lines.items)
            if (m := _BLOCK_ID.search(line.rstrip()))
        ]
        raise TargetError(f"no block ^{wanted} in the note", ids)
    if len(hits) > 1:
        raise TargetError(
            f"^{wanted} marks {len(hits)} blocks",
            [(n + 1, lines.items[n].rstrip()[:80]) for n in hits],
        )
    end = hits[0] + 1
    start = hits[0]
    if lines.items[start].strip() == f"^{wanted}":
        start -= 1
        while start >= 0 and not lines.items[start].strip():
            start -= 1
        end = start + 1
    if re.match(r"\s*([-*+]|\d+[.)])\s", lines.items[start]):
        return start, end  # a list item: its own line
    while start > 0 and lines.items[start - 1].strip() and not _starts_block(lines, start):
        start -= 1
    return start, end


def _starts_block(lines: Lines, n: int) -> bool:
    line = lines.items[n]
    return bool(re.match(r"\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|```|~~~)", line)) or any(
        h.line == n for h in lines.headings
    )


def _block(text: str, newline: str) -> list[str]:
    """New content as lines, each ending in the note's line ending."""
    if not text:
        return []
    plain = text.replace("\r\n", "\n")
    if not plain.endswith("\n"):
        plain += "\n"
    return [line + newline for line in plain.split("\n")[:-1]]


def _ensure_final_newline(lines: Lines, at: int) -> None:
    """Inserting after the last line: it gets a line ending first (its only change)."""
    if at == len(lines.items) and lines.items and not lines.items[-1].endswith(("\n", "\r")):
        lines.items[-1] += lines.newline


def edit_section(
    text: str, newline: str, target: str, position: str, content: str, create: bool = False
) -> str:
    """`text` with `content` placed at `position` of the section or block `target`."""
    if position not in POSITIONS:
        raise TargetError(f"position must be one of {', '.join(POSITIONS)}")
    lines = Lines.of(text, newline)
    new = _block(content, newline)
    if target.strip().startswith("^"):
        first, end = block_range(lines, target.strip())
        spans = {"before": (first, first), "prepend": (first, first), "after": (end, end)}
        spans |= {"append": (end, end), "replace": (first, end)}
        start, stop = spans[position]
        _ensure_final_newline(lines, start)
        lines.items[start:stop] = new
        return lines.text()
    index = find_heading(lines, target)
    if index is None:
        if not create:
            shown = [(h.line + 1, "#" * h.level + " " + h.text) for h in lines.headings]
            last = _norm(re.split(r"\s*>\s*", target)[-1])
            raise TargetError(
                f"no heading {last[0]!r} in the note (create_section adds it)",
                _closest(shown, last),
            )
        return _create(lines, target, new)
    h = lines.headings[index]
    end = section_end(lines.headings, index, len(lines.items))
    body_end = end
    while body_end > h.end and not lines.items[body_end - 1].strip():
        body_end -= 1  # the blank lines before the next heading stay where they are
    at = {"before": h.line, "prepend": h.end, "append": body_end, "after": end}
    if position == "replace":
        _ensure_final_newline(lines, body_end)
        lines.items[h.end : body_end] = new
    else:
        _ensure_final_newline(lines, at[position])
        if position == "after" and end == len(lines.items) and lines.items[-1].strip():
            new = [newline, *new]
        lines.items[at[position] : at[position]] = new
    return lines.text()


def _create(lines: Lines, target: str, new: list[str]) -> str:
    """Add the missing last heading of `target` (under its parent when it has one)."""
    parts = [p for p in re.split(r"\s*>\s*", target) if p.strip()]
    title, level = _norm(parts[-1])
    at, parent_level = len(lines.items), 1
    if len(parts) > 1:
        parent = find_heading(lines, " > ".join(parts[:-1]))
        if parent is not None:
            parent_level = lines.headings[parent].level
            at = section_end(lines.headings, parent, len(lines.items))
    level = level or (parent_level + 1 if len(parts) > 1 else 2)
    while at > 0 and not lines.items[at - 1].strip() and at == len(lines.items):
        at -= 1
    _ensure_final_newline(lines, at)
    nl = lines.newline
    gap = [nl] if at > 0 and lines.items[at - 1].strip() else []
    lines.items[at:at] = [*gap, f"{'#' * level} {title}{nl}", *new]
    return lines.text()


def replace_text(text: str, newline: str, old: str, new: str, count: int | None) -> str:
    """Every occurrence of `old` replaced by `new`; `count` occurrences are expected (None:
    any number but at least one). The text's line endings are matched and kept."""
    if not old:
        raise TargetError("the text to replace is empty")
    find = old.replace("\r\n", "\n").replace("\n", newline)
    put = new.replace("\r\n", "\n").replace("\n", newline)
    starts = [m.start() for m in re.finditer(re.escape(find), text)]
    lines = [(text.count("\n", 0, s) + 1, _line_at(text, s)) for s in starts]
    if not starts:
        near = [(n + 1, line.rstrip()) for n, line in enumerate(text.splitlines())]
        near = [c for c in near if fuzz.partial_ratio(find.strip()[:200], c[1]) >= 70][:8]
        raise TargetError("the text to replace is not in the note", near)
    if count is not None and len(starts) != count:
        raise TargetError(
            f"the text occurs {len(starts)} times, not {count} (give the expected count, or all)",
            lines,
        )
    return text.replace(find, put)


def _line_at(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end >= 0 else len(text)].rstrip("\r")[:120]


def append_text(text: str, newline: str, content: str, inline: bool = False) -> str:
    """`content` at the end of the note, on a line of its own unless `inline`."""
    add = content.replace("\r\n", "\n").replace("\n", newline)
    if inline:
        return text + add
    sep = "" if not text or text.endswith(("\n", "\r")) else newline
    return text + sep + add + ("" if add.endswith(newline) else newline)


def prepend_text(text: str, newline: str, content: str, inline: bool = False) -> str:
    """`content` at the start of the body: after the properties, as Obsidian's CLI does."""
    at = body_start(text)
    add = content.replace("\r\n", "\n").replace("\n", newline)
    if not inline and not add.endswith(newline):
        add += newline
    return text[:at] + add + text[at:]
