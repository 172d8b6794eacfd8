"""Markdown links (`[t](Other%20note.md)`, `[t](../dir/x.md#Heading)`, `[t](<a b.md>)`) read
and rewritten as Obsidian does: a destination without a scheme is a link into the vault,
percent-decoded; `./` and `../` are relative to the linking note's folder, a leading `/` is the
vault's root, and anything else resolves like a wikilink's path (exact path, then a path that
ends with it, then the file name: kbtui.store.graph.links).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from urllib.parse import quote, unquote

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# `[label](dest)` or `![alt](dest)` as written: the destination with its optional <>, title.
_DEST = re.compile(r"\]\(\s*(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)")


def md_target(href: str, source_path: str) -> tuple[str, str] | None:
    """(vault target, heading) of a markdown link's destination, None when it leaves the vault
    (a URL, `mailto:`, an anchor in the same note, a path above the vault's root)."""
    if not href or href.startswith("#") or _SCHEME.match(href) or href.startswith("//"):
        return None
    path, _, heading = href.partition("#")
    path = unquote(path).strip()
    if not path:
        return None
    folder = source_path.rpartition("/")[0]
    if path.startswith("/"):
        path = posixpath.normpath(path).lstrip("/")
    elif path.startswith(("./", "../")) or path in (".", ".."):
        path = posixpath.normpath(posixpath.join(folder, path))
        if path.startswith("../") or path in ("..", "."):
            return None
    return path, unquote(heading).strip()


def rewrite_md_links(
    text: str,
    ranges: list[tuple[int, int]],
    source_path: str,
    resolves: Callable[[str], bool],
    old_path: str,
    new_path: str,
    moved_to: str | None = None,
) -> tuple[list[tuple[int, int, str]], int]:
    """Edits pointing the markdown links in `ranges` (each a link or image span of `text`)
    that `resolves` (given their vault target) at `new_path`, in the style each was written:
    relative stays relative, vault-absolute stays absolute, a bare name stays a name,
    `%20` stays `%20`, `<a b.md>` keeps its brackets, `.md` is kept or left out as it was.
    `moved_to`: where the linking note itself goes (its own links, written from there)."""
    edits: list[tuple[int, int, str]] = []
    for a, b, href, bracketed in _hrefs(text, ranges):
        target = md_target(href, source_path)
        if target is None or not resolves(target[0]):
            continue
        new = _styled(href, moved_to or source_path, old_path, new_path, bracketed)
        if new != href:
            edits.append((a + bracketed, b - bracketed, new))
    return edits, len(edits)


def rebase_md_links(
    text: str,
    ranges: list[tuple[int, int]],
    old_path: str,
    new_path: str,
    skip: Callable[[str], bool],
) -> list[tuple[int, int, str]]:
    """Edits keeping the relative markdown links (`./x.md`, `../dir/x.md`) of a note that
    moves from `old_path` to `new_path` pointing where they pointed, written from its new
    folder in the same style (as Obsidian does when it moves a note). Links whose target
    `skip`s (the moved note itself, which the rename rewrites) are left alone."""
    old_folder, new_folder = old_path.rpartition("/")[0], new_path.rpartition("/")[0]
    if old_folder == new_folder:
        return []
    edits: list[tuple[int, int, str]] = []
    for a, b, href, bracketed in _hrefs(text, ranges):
        path, hash_, heading = href.partition("#")
        decoded = unquote(path).strip()
        target = md_target(href, old_path)
        if not decoded.startswith(("./", "../")) or target is None or skip(target[0]):
            continue
        out = posixpath.relpath(target[0], new_folder or ".")
        if not out.startswith("../"):  # relative it was, relative it stays
            out = "./" + out
        if not bracketed and (" " in out or "%" in path):
            out = quote(out, safe="/.-_~!$&'*+,;=:@()")
        if out + hash_ + heading != href:
            edits.append((a + bracketed, b - bracketed, out + hash_ + heading))
    return edits


def _last_dest(text: str, start: int, end: int) -> tuple[int, int] | None:
    """[a, b) of the destination of the link text[start:end] (the last `](` in it)."""
    found = None
    for m in _DEST.finditer(text, start, end):
        found = (m.start(1), m.end(1))
    return found


def _styled(href: str, source_path: str, old_path: str, new_path: str, bracketed: bool) -> str:
    """`new_path` (a vault path with .md) written the way `href` (to `old_path`) was."""
    old, hash_, heading = href.partition("#")
    decoded = unquote(old)
    keep_ext = decoded.lower().endswith(".md")
    target = new_path if keep_ext else new_path[:-3]
    folder = source_path.rpartition("/")[0]
    if decoded.startswith("/"):
        out = "/" + target
    elif decoded.startswith(("./", "../")):
        out = posixpath.relpath(target, folder or ".")
        if not out.startswith("../") and decoded.startswith("./"):
            out = "./" + out
    elif "/" in decoded:
        below = posixpath.join(folder, decoded)  # `sub/x.md` from a/ meaning a/sub/x.md
        relative = below.removesuffix(".md") == old_path.removesuffix(".md") and folder
        out = posixpath.relpath(target, folder) if relative else target
    else:
        out = target.rsplit("/", 1)[-1]
    if not bracketed and (" " in out or "%" in old):  # a space must be encoded outside <>
        out = quote(out, safe="/.-_~!$&'*+,;=:@()")
    return out + hash_ + heading


def _hrefs(text: str, ranges: list[tuple[int, int]]) -> Iterator[tuple[int, int, str, bool]]:
    """(start, end, href, bracketed) of each link's destination in `ranges`: what both
    rewriters read, `<a b.md>`'s brackets told apart from the href."""
    for start, end in ranges:
        found = _last_dest(text, start, end)
        if found is None:
            continue
        a, b = found
        raw = text[a:b]
        bracketed = raw.startswith("<") and raw.endswith(">")
        yield a, b, raw[1:-1] if bracketed else raw, bracketed
