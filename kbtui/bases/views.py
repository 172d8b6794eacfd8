"""Run one view of a base: global AND view filters, sort, limit, groups, columns, summaries;
cards add each row's image, maps each row's coordinates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbtui.bases.context import Context
from kbtui.bases.errors import BaseError, EvalError
from kbtui.bases.evaluate import evaluate
from kbtui.bases.rows import FileRow, Rows
from kbtui.bases.summaries import summarize
from kbtui.bases.syntax import Base, Filter, View, property_id, property_node
from kbtui.bases.values import file_path, is_empty, sort_key, to_json, to_number, to_text, truthy

DEFAULT_COLUMNS = ["file.name"]


@dataclass
class Result:
    view: View
    columns: list[dict[str, str]]
    rows: list[dict[str, Any]]  # {"path": ..., "values": {property id: JSON value}, ...}
    groups: list[dict[str, Any]]
    summaries: dict[str, Any]
    matched: int  # rows before the limit


def passes(f: Filter | None, ctx: Context) -> bool:
    if f is None:
        return True
    cache = ctx.row.cache if ctx.row is not None and f[-1] is not None else None
    key = f"filter:{f[-1]}"
    rows = ctx.rows
    if cache is not None and key in cache:
        known, reads, at = cache[key]
        if reads is None or at == (rows.epoch if reads == "cross" else rows.names_epoch):
            if reads is not None:  # what the caller keeps depends on the same reads
                setattr(rows, reads, getattr(rows, reads) + 1)
            return bool(known)
    cross, unbound = rows.cross, rows.unbound
    kind = f[0]
    if kind == "expr":
        try:
            result = truthy(evaluate(f[1], ctx))
        except EvalError:
            result = False
    else:
        results = (passes(sub, ctx) for sub in f[1])
        if kind == "and":
            result = all(results)
        elif kind == "or":
            result = any(results)
        else:
            result = not any(results)  # not: none of them
    if cache is not None:
        if rows.cross != cross:
            cache[key] = (result, "cross", rows.epoch)
        elif rows.unbound != unbound:
            cache[key] = (result, "unbound", rows.names_epoch)
        else:
            cache[key] = (result, None, 0)
    return result


def value_of(pid: str, ctx: Context) -> Any:
    try:
        return evaluate(property_node(pid), ctx)
    except EvalError:
        return None


def run_view(
    base: Base, rows: Rows, view: View, this: FileRow | None, limit: int | None = None
) -> Result:
    if view.error is not None:
        raise view.error
    root = Context(rows, base.formulas, base.formula_lines, this)
    found: list[tuple[FileRow, Context]] = []
    probe = root.at(rows.rows[0]) if rows.rows else root  # one context moved along the rows
    for row in rows.rows:
        if not rows.listed(row):  # a file Obsidian does not show (LICENSE, a .zip)
            continue
        probe.row = row
        if passes(base.filters, probe) and passes(view.filters, probe):
            found.append((row, root.at(row)))
    for pid, desc in reversed(view.sort):
        keyed = [(sort_key(value_of(pid, c)), r, c) for r, c in found]
        keyed.sort(key=lambda k: k[0], reverse=desc)
        keyed.sort(key=lambda k: k[0][0] == 9)  # empty values last, either direction
        found = [(r, c) for _, r, c in keyed]
    matched = len(found)
    cap = min(x for x in (view.limit, limit) if x) if (view.limit or limit) else None
    if cap:
        found = found[:cap]
    order = view.order or DEFAULT_COLUMNS
    columns = [{"id": pid, "name": column_name(base, pid)} for pid in order]
    out_rows: list[dict[str, Any]] = []
    raw_values: dict[str, list[Any]] = {pid: [] for pid in order}
    for row, ctx in found:
        values = {}
        for pid in order:
            value = value_of(pid, ctx)
            raw_values[pid].append(value)
            values[pid] = to_json(value)
        item: dict[str, Any] = {"path": row.file_path, "values": values}
        if row.entity_id:
            item["id"] = row.entity_id  # a note's id in the index, for kb_get
        _extras(view, ctx, item)
        out_rows.append(item)
    groups = _groups(base, view, found, raw_values, root)
    summaries = {pid: {"summary": name, "value": to_json(summarize(name, raw_values.get(pid) or
                 [value_of(pid, c) for _, c in found], base.summaries, root))}
                 for pid, name in view.summaries.items()}  # fmt: skip
    return Result(view, columns, out_rows, groups, summaries, matched)


# A file property's header where the base sets no displayName: the words Obsidian's help uses
# for it (Bases syntax, "File properties").
FILE_HEADERS = {
    "file.name": "File name", "file.basename": "Base name", "file.path": "File path",
    "file.folder": "Folder", "file.ext": "File extension", "file.size": "File size",
    "file.ctime": "Created time", "file.mtime": "Modified time", "file.tags": "Tags",
    "file.links": "Links", "file.backlinks": "Backlinks", "file.embeds": "Embeds",
    "file.properties": "Properties", "file.file": "File",
}  # fmt: skip


def _short(pid: str) -> str:
    """A note property or a formula is headed by its name, as Obsidian does; a file property
    by its words in the help (`file.mtime`: Modified time)."""
    if pid.startswith(("note.", "formula.")):
        return pid.split(".", 1)[1]
    return FILE_HEADERS.get(pid, pid)


def column_name(base: Base, pid: str) -> str:
    """A column's header: the base's displayName, else Obsidian's default."""
    return base.display.get(pid) or _short(pid)


def _extras(view: View, ctx: Context, item: dict[str, Any]) -> None:
    settings = view.settings
    if view.type == "cards" and settings.get("image"):
        image = value_of(property_id(str(settings["image"])), ctx)
        item["image"] = getattr(image, "file_path", None) or (to_json(image) if image else None)
        first = image[0] if isinstance(image, list) and image else image
        if (path := file_path(first)) is not None:  # a vault file the user can open
            item["imagePath"] = path
    if view.type == "map":
        coords = value_of(property_id(str(settings.get("coordinates") or "note.coordinates")), ctx)
        item["coordinates"] = coordinates(coords)
        for key in ("markerIcon", "markerColor"):
            if settings.get(key):
                item[key] = to_json(value_of(property_id(str(settings[key])), ctx))


MARKERS = {"bullet": "bullet", "bullets": "bullet", "number": "number", "numbers": "number",
           "numbered": "number", "none": "none"}  # fmt: skip


def layout(view: View) -> dict[str, Any]:
    """The view settings a front end draws by (help: Bases > Layouts), defaults filled in:
    a list's markers, separator and indented properties; a card's size and cover image."""
    settings = view.settings
    if view.type == "list":
        marker = str(settings.get("markers") or "bullet").strip().lower()
        separator = settings.get("separator")
        return {
            "markers": MARKERS.get(marker, "bullet"),
            "separator": ", " if separator is None or separator == "" else str(separator),
            "indentProperties": settings.get("indentProperties") is True,
        }
    if view.type == "cards":
        size, ratio = settings.get("cardSize"), settings.get("imageAspectRatio")
        number = (int, float)
        return {
            "cardSize": size if isinstance(size, number) and size > 0 else None,
            "image": property_id(str(settings["image"])) if settings.get("image") else None,
            "imageFit": "contain" if settings.get("imageFit") == "contain" else "cover",
            "imageAspectRatio": ratio if isinstance(ratio, number) and ratio > 0 else 1,
        }
    return {}


def coordinates(value: Any) -> list[float] | None:
    """[lat, lng] from a "lat, lng" text or a two-item list, else None."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or len(value) != 2:
        return None
    try:
        lat, lng = (to_number(v.strip() if isinstance(v, str) else v) for v in value)
    except EvalError:
        return None
    return [lat, lng] if -90 <= lat <= 90 and -180 <= lng <= 180 else None


def _groups(base: Base, view: View, found: list[tuple[FileRow, Context]],
            raw_values: dict[str, list[Any]], root: Context) -> list[dict[str, Any]]:  # fmt: skip
    if view.group_by is None:
        return []
    pid, desc = view.group_by
    keys: dict[str, tuple[Any, list[int]]] = {}
    for i, (_, ctx) in enumerate(found):
        value = value_of(pid, ctx)
        label = to_text(value) if not is_empty(value) else ""
        keys.setdefault(label, (value, []))[1].append(i)
    ordered = sorted(keys.items(), key=lambda kv: sort_key(kv[1][0]), reverse=desc)
    ordered.sort(key=lambda kv: kv[0] == "")
    out = []
    for label, (value, idx) in ordered:
        summaries = {
            p: {"summary": name, "value": to_json(summarize(
                name, [raw_values[p][i] for i in idx] if p in raw_values
                else [value_of(p, found[i][1]) for i in idx], base.summaries, root))}
            for p, name in view.summaries.items()
        }  # fmt: skip
        out.append({"key": to_json(value), "label": label, "rows": idx, "summaries": summaries})
    return out


def check_this(this: FileRow | None, wanted: str | None) -> None:
    if wanted and this is None:
        raise BaseError(f"no file {wanted!r} in the index for `this`")
