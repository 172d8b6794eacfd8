"""Parse one note: frontmatter (python-frontmatter), structure (markdown-it-py), entity id.

Links, tags and headings come from markdown-it's token stream, not regexes over raw text, so
`[[...]]` inside code blocks and code spans is never a link and `#x` in code is never a tag.

Entity id rule (documented in README): frontmatter `id` when it matches
``^[a-z_]+:[a-z0-9_]+$``, else ``{type}:{name}`` (kbtui.vault.names).

Frontmatter that YAML refuses is read leniently (kbtui.vault.yaml_text); when even that fails,
the note is indexed by its body and file name with a warning naming the line, as Obsidian
still shows and searches such a note.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from functools import lru_cache
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from kbtui.models import Link, ParsedNote
from kbtui.vault.canvas import CANVAS_SUFFIX, CanvasError, parse_canvas
from kbtui.vault.hidden import comment_lines
from kbtui.vault.names import MAX_ID_LEN, derive_type_and_name, page_title, singular, slug
from kbtui.vault.obsidian.dv_facts import dataview_page
from kbtui.vault.obsidian.mdlinks import md_target
from kbtui.vault.obsidian.tasks import find_tasks
from kbtui.vault.yaml_text import load_yaml_lenient

__all__ = ["NoteError", "derive_type_and_name", "parse_note", "singular", "slug"]

ID_RE = re.compile(r"^[a-z_]+:[a-z0-9_]+$")
WIKILINK_RE = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_WIKILINK_AT = re.compile(r"\[\[([^\[\]\n]+)\]\]")
TAG_RE = re.compile(r"(?<![\w#&/])#([\w/-]+)")
# Frontmatter keys whose plain-string values are entity references even without [[ ]].
RELATION_KEYS = frozenset(
    {
        "works_on",
        "owns",
        "owner",
        "depends_on",
        "related_to",
        "member_of",
        "uses",
        "created",
        "modified",
        "references",
        "blocks",
        "contradicts",
        "attendees",
    }
)


BLOCK_KINDS = ("fence", "code_block", "table_open")  # what kbtui.vault.meaning weighs


class NoteError(ValueError):
    """A note that cannot be indexed; the message is the reason shown to the user."""


def parse_note(path: str, text: str) -> ParsedNote:
    """Parse decoded text of the vault-relative `path`. Properties that cannot be read are
    reported in `warnings`, never raised: the note still has its body and file name."""
    if path.lower().endswith(CANVAS_SUFFIX):  # JSON Canvas: its cards as the body
        try:
            return parse_canvas(path, text, parse_markdown)
        except CanvasError as exc:
            raise NoteError(str(exc)) from exc
    return parse_markdown(path, text)


def parse_markdown(path: str, text: str) -> ParsedNote:
    """A markdown note (or a canvas's cards written as one)."""
    meta, body, warnings = _split_frontmatter(text)
    tokens = _markdown().parse(body)
    body_links, inline_tags, sections = _walk_tokens(tokens, body, path)
    entity_type, name = derive_type_and_name(path, meta)
    raw_id = meta.get("id")
    if isinstance(raw_id, str) and ID_RE.match(raw_id) and len(raw_id) <= MAX_ID_LEN:
        entity_id = raw_id
        entity_type = raw_id.split(":", 1)[0]
    else:
        if raw_id is not None:
            warnings.append(f"frontmatter id {raw_id!r} is not of the form type:name; derived one")
        entity_id = f"{entity_type}:{name}"
    title = _first_str(meta.get("title")) or page_title(path)
    aliases = _strings(meta.get("aliases")) + _strings(meta.get("alias"))
    fm_tags = [t.lstrip("#") for key in ("tags", "tag") for t in _strings(meta.get(key), r"[,\s]+")]
    tags = _unique([t.lower() for t in fm_tags + inline_tags if t])
    written = Counter("#" + t for t in fm_tags + inline_tags if t)  # first written, first
    links = _frontmatter_links(meta) + body_links
    lines = text.split("\n")
    tail = text.rstrip()  # the body is the end of the text, stripped
    at = len(tail) - len(body) if tail.endswith(body) else max(text.find(body), 0)
    first_line = text[:at].count("\n")
    dataview = None
    if path.lower().endswith(".md"):  # Dataview reads markdown notes only
        etags = [*inline_tags, *fm_tags]
        dataview = dataview_page(path, tokens, lines, first_line, json_safe(meta), etags)
    return ParsedNote(
        path=path,
        entity_id=entity_id,
        type=entity_type,
        name=entity_id.split(":", 1)[1],
        title=title,
        body=body,
        frontmatter=json_safe(meta),
        aliases=tuple(_unique(aliases)),
        tags=tuple(tags),
        links=tuple(links),
        sections=tuple(sections),
        warnings=tuple(warnings),
        blocks=tuple(
            (t.type, t.map[0], t.map[1])
            for t in tokens
            if t.map is not None and t.type in BLOCK_KINDS
        ),
        tasks=find_tasks(tokens, lines, first_line, comment_lines(text)),
        file_tags=tuple(written),
        tag_uses=tuple(written.values()),
        dataview=dataview,
    )


def split_wikilink(inner: str) -> tuple[str, str, str]:
    """'target#heading|label' -> (target, heading, label)."""
    target, _, label = inner.partition("|")
    target, _, heading = target.partition("#")
    return target.strip(), heading.strip(), label.strip()


def json_safe(value: Any) -> Any:
    """Frontmatter as JSON-compatible values (YAML gives dates, sets, nested lists)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _split_frontmatter(text: str) -> tuple[dict[str, Any], str, list[str]]:
    """(properties, body, warnings). Properties that cannot be read leave the body alone."""
    handler = YAMLHandler()
    if not handler.detect(text):
        return {}, text.strip(), []
    try:
        raw_fm, body = handler.split(text)
    except ValueError:  # an opening '---' with no closing one: it is just a horizontal rule
        return {}, text.strip(), []
    first_line = text[: text.find(raw_fm)].count("\n") + 1  # of the properties, in the file
    try:
        meta, lenient = load_yaml_lenient(raw_fm)
    except yaml.YAMLError as exc:
        # An unclosed `[` or quote is named where it opens, not where YAML gave up.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        where = f"line {first_line + mark.line}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        if context:
            problem += f" {context}"
        return {}, body.strip(), [f"{_UNREAD}: {where}{problem}{_BY_BODY}"]
    except RecursionError:
        return {}, body.strip(), [f"{_UNREAD}: nested too deeply{_BY_BODY}"]
    fm_lines = raw_fm.split("\n")
    warnings = [
        f"properties line {first_line + n}: a value YAML refuses was read as text: "
        f"{fm_lines[n].strip()[:80]}"
        for n in lenient
    ]
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        kind = type(meta).__name__
        return {}, body.strip(), [f"{_UNREAD}: a {kind}, not a mapping of fields{_BY_BODY}"]
    return meta, body.strip(), warnings


_UNREAD = "invalid YAML frontmatter, properties not read"
_BY_BODY = "; indexed by its body and file name"


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    # Matched in place, not found by searching ahead: `[[[[...` with no `]]` on the line
    # made a search to the end of the note at every bracket (quadratic in its length).
    found = _WIKILINK_AT.match(src, pos + (1 if embed else 0))
    if found is None:
        return False
    inner, end = found.group(1), found.end(1)
    if not inner.strip():
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {"embed": embed}
    state.pos = end + 2
    return True


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    return md


def _walk_tokens(
    tokens: list[Token], body: str, note_path: str = ""
) -> tuple[list[Link], list[str], list[tuple[int, str]]]:
    line_starts = [0]
    for i, ch in enumerate(body):
        if ch == "\n":
            line_starts.append(i + 1)
    links: list[Link] = []
    tags: list[str] = []
    sections: list[tuple[int, str]] = [(0, "")]
    stack: list[tuple[int, str]] = []  # (level, heading text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None and i + 1 < len(tokens):
            level = int(tok.tag[1:])
            text = _plain(tokens[i + 1])
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
            offset = line_starts[min(tok.map[0], len(line_starts) - 1)]
            path = " > ".join(h for _, h in stack)
            if offset == sections[-1][0]:
                sections[-1] = (offset, path)
            else:
                sections.append((offset, path))
        if tok.type != "inline" or not tok.children:
            continue
        for child in tok.children:
            if child.type == "wikilink":
                target, heading, label = split_wikilink(child.content)
                if target:
                    rel = "embeds" if child.meta.get("embed") else "references"
                    links.append(Link(target=target, rel=rel, heading=heading, label=label))
            elif child.type in ("link_open", "image"):
                href = child.attrs.get("href" if child.type == "link_open" else "src")
                found = md_target(str(href or ""), note_path)
                if found is not None:
                    rel = "embeds" if child.type == "image" else "references"
                    links.append(Link(found[0], rel, heading=found[1], form="md"))
            elif child.type == "text":
                tags.extend(t for t in TAG_RE.findall(child.content) if _is_tag(t))
    return links, tags, sections


def _plain(inline: Token) -> str:
    if not inline.children:
        return inline.content.strip()
    parts = []
    for child in inline.children:
        if child.type == "wikilink":
            target, _, label = split_wikilink(child.content)
            parts.append(label or target)
        elif child.content:
            parts.append(child.content)
    return "".join(parts).strip()


def _is_tag(tag: str) -> bool:
    return bool(re.search(r"[^\d/_-]", tag))


def _frontmatter_links(meta: dict[str, Any]) -> list[Link]:
    links: list[Link] = []
    for key, value in meta.items():
        rel = slug(str(key))
        if rel == "id":  # any other property holding a [[link]] is a relationship of its name
            continue
        for item, nested in _items(value):
            found = WIKILINK_RE.findall(item)
            # Unquoted [[x]] in YAML parses as a nested list; relation keys may hold bare names.
            form = "wiki"
            if not found and (nested or rel in RELATION_KEYS) and item.strip():
                found, form = [item], "wiki" if nested else "bare"
            for inner in found:
                target, heading, label = split_wikilink(inner)
                if target:
                    links.append(Link(target, rel, heading=heading, label=label, form=form))
    return links


def _items(value: Any, depth: int = 0) -> list[tuple[str, bool]]:
    """Every string in a frontmatter value, with whether it sat in a list inside a list."""
    if isinstance(value, str):
        return [(value, depth >= 2)]
    if isinstance(value, list | tuple):
        return [item for v in value for item in _items(v, depth + 1)]
    return []


def _strings(value: Any, split: str | None = None) -> list[str]:
    """A frontmatter field that may be a string or a list, as a list of non-empty strings."""
    items = [s for s, _ in _items(value)]
    if split is not None:
        items = [part for s in items for part in re.split(split, s)]
    return [s.strip() for s in items if s.strip()]


def _first_str(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0].strip()
    return ""


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
