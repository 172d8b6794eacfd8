"""Files (`file`, `this.file`, `link.asFile()`): fields and functions; links: asFile, linksTo."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbtui.bases.rows import FileRow, Rows, date_of_ms
from kbtui.bases.values import Link, TagList, file_path, to_text

if TYPE_CHECKING:
    from kbtui.bases.context import Context


def file_member(row: FileRow, name: str, rows: Rows) -> Any:
    simple: dict[str, Callable[[], Any]] = {
        "name": lambda: row.name, "basename": lambda: row.basename,
        "path": lambda: row.file_path, "folder": lambda: row.folder, "ext": lambda: row.ext,
        "size": lambda: row.size, "ctime": lambda: date_of_ms(row.ctime_ms),
        "mtime": lambda: date_of_ms(row.mtime_ms), "properties": lambda: rows.properties(row),
        "tags": lambda: TagList(row.tags), "links": lambda: rows.row_links(row, False),
        "embeds": lambda: rows.row_links(row, True), "backlinks": lambda: rows.backlinks(row),
        "file": lambda: row,
    }  # fmt: skip
    get = simple.get(name)
    return get() if get else None


def _path_of(value: Any, ctx: Context) -> str | None:
    path = file_path(value)
    if path is None and value is not None and not isinstance(value, Link):
        path = ctx.rows.resolve(to_text(value), None)
    return path


def _has_link(row: FileRow, args: list[Any], ctx: Context) -> bool:
    target = _path_of(args[0] if args else None, ctx)
    if target is None:
        return False
    links = ctx.rows.row_links(row, False) + ctx.rows.row_links(row, True)
    return any(link.path == target for link in links)


def _has_tag(row: FileRow, args: list[Any], ctx: Context) -> bool:
    """Without case and `#`, nested tags included (row.tags are as written: `#Area/Sub`)."""
    wanted = [to_text(a).lstrip("#").lower() for a in args if a is not None]
    tags = [t.lstrip("#").lower() for t in row.tags]
    return any(t == w or t.startswith(w + "/") for t in tags for w in wanted)


def _in_folder(row: FileRow, args: list[Any], ctx: Context) -> bool:
    folder = to_text(args[0] if args else "").strip("/")
    return not folder or row.file_path.startswith(folder + "/")


def _has_property(row: FileRow, args: list[Any], ctx: Context) -> bool:
    name = to_text(args[0] if args else "")
    return name in row.raw


def _as_link(row: FileRow, args: list[Any], ctx: Context) -> Link:
    stem = row.file_path[:-3] if row.file_path.endswith(".md") else row.file_path
    return Link(stem, args[0] if args else None, row.file_path)


FILE_METHODS: dict[str, Callable[[Any, list[Any], Context], Any]] = {
    "asLink": _as_link,
    "hasLink": _has_link,
    "hasProperty": _has_property,
    "hasTag": _has_tag,
    "inFolder": _in_folder,
}


def _links_to(link: Link, args: list[Any], ctx: Context) -> bool:
    row = ctx.rows.other(link.path)
    return row is not None and _has_link(row, args, ctx)


LINK_METHODS: dict[str, Callable[[Any, list[Any], Context], Any]] = {
    "asFile": lambda link, a, c: c.rows.other(link.path),
    "linksTo": _links_to,
}
