"""app_link_names: what the TUI's editor completes after `[[` and `#`: every note with the
text a wikilink to it takes (its file name, or its path where two notes share a name, as
Obsidian writes it), its title and aliases; and every tag with its note count. Headings after
`[[Note#` come from app_outline."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kbtui.tools.contracts.kb import READ, ToolSpec
from kbtui.tools.envelope import ok
from kbtui.tools.params import Param
from kbtui.tools.parts import VaultParts

TAG_LIMIT = 5000

APP_LINK_NAMES = ToolSpec(
    "app_link_names",
    "Every note's link text, title and aliases, and every tag with its count: the editor's "
    "`[[` and `#` completion.",
    {"tag_limit": Param("integer", "Most tags.", default=TAG_LIMIT, minimum=1, maximum=100_000)},
    {"notes": [], "tags": []},
    effects=READ,
)


def link_text(path: str, unique: bool) -> str:
    """What goes between `[[` and `]]` to reach `path`: its name (without `.md`), or its
    path when another file has that name."""
    shown = path[:-3] if path.lower().endswith(".md") else path
    return shown.rsplit("/", 1)[-1] if unique else shown


def link_names(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    rows = parts.store.link_names()
    names = Counter(link_text(path, True).lower() for path, _, _ in rows)
    notes = [
        {
            "path": path,
            "link": link_text(path, names[link_text(path, True).lower()] == 1),
            "title": title,
            "aliases": aliases,
        }
        for path, title, aliases in rows
    ]
    tags = [{"tag": t, "count": n} for t, n in parts.store.tag_counts(args["tag_limit"])]
    return ok(notes=notes, tags=tags)
