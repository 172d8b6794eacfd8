"""The app-side tools behind `kbtui outline`, `tags`, `tag`, `properties`, `property:*` and
`search:context`: Obsidian's answers from the index, or from the note on disk where lines
and bytes matter (the vault is the truth)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from markdown_it import MarkdownIt

from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, ok
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.frontmatter import FrontmatterEditError
from kbtui.vault.edit.property import (
    PropertyValueError,
    current_value,
    property_types,
    remove_property,
    set_property,
    text_type,
    typed_value,
    value_type,
)
from kbtui.vault.scan import MARKDOWN_SUFFIXES, is_markdown
from kbtui.vault.spans import body_start


def _read(parts: VaultParts, path: str) -> tuple[bytes, str]:
    try:
        data = (parts.settings.vault / path).read_bytes()
    except OSError as exc:
        raise NotFoundError(f"{path} cannot be read: {exc}") from exc
    return data, data.decode("utf-8", errors="replace")


def outline(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """Headings in order: level, text, 1-based line of the file (code blocks left out)."""
    path = resolve_note(parts, args["note"])
    _, text = _read(parts, path)
    at = body_start(text)
    first = text[:at].count("\n")
    tokens = MarkdownIt("commonmark").parse(text[at:])
    results = [
        {
            "heading": tokens[i + 1].content.strip(),
            "level": int(t.tag[1:]),
            "line": first + t.map[0] + 1,
        }
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map is not None
    ]
    return ok(note=path, results=results, count=len(results), message=f"{len(results)} headings")


def tags(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """Every tag with the notes carrying it (as Obsidian's Tags view counts) and how often it
    is written; one tag's notes with `name`; one note's tags with `note`. A tag shows the case
    it was first written in; matching ignores case (help: Tags)."""
    name = (args.get("name") or "").strip().lstrip("#")
    if args.get("note"):
        path = resolve_note(parts, args["note"])
        rows = [{"tag": t, "count": n} for t, n in parts.store.note_tags(path)]
        return ok(note=path, results=rows, count=len(rows), message=f"{len(rows)} tags of {path}")
    if name:
        form, files = parts.store.tag_files(name)
        uses = sum(n for _, n in files)
        results = [{"file": f, "count": n} for f, n in files]
        return ok(tag=form, count=len(files), occurrences=uses, results=results)
    results = [{"tag": t, "count": n, "occurrences": u} for t, n, u in parts.store.tag_forms()]
    return ok(results=results, count=len(results))


def properties(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """Property names with their type (`.obsidian/types.json`, else guessed from the values)
    and how many notes have them; one note's properties with `note`."""
    path = resolve_note(parts, args["note"]) if args.get("note") else None
    counts: Counter[str] = Counter()
    seen: dict[str, Any] = {}
    if path is None:  # counted by the index; each property's value from its first note
        firsts: dict[str, list[str]] = {}
        for key, n, first in parts.store.property_counts(MARKDOWN_SUFFIXES):
            counts[key] = n
            firsts.setdefault(first, []).append(key)
        for note_path in sorted(firsts):
            values = json.loads(parts.store.frontmatters(note_path)[0][1]) or {}
            seen.update({k: values.get(k) for k in firsts[note_path]})
    for note_path, raw in parts.store.frontmatters(path) if path is not None else ():
        if not is_markdown(note_path):  # a PDF's or an image's facts are kbtui's, not properties
            continue
        for key, value in (json.loads(raw) or {}).items():
            counts[key] += 1
            seen.setdefault(key, value)
    types = property_types(parts.settings.vault)
    results: list[dict[str, Any]] = [
        {"name": k, "type": types.get(k) or _guess(seen[k]), "count": counts[k]}
        for k in sorted(counts, key=str.lower)
    ]
    if path is not None:
        for r in results:
            r["value"] = seen[r["name"]]
    return ok(note=path, results=results, count=len(results))


def _guess(value: Any) -> str:
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "multitext"
    if isinstance(value, str) and len(value) >= 10 and value[4:5] == "-" and value[7:8] == "-":
        return "datetime" if "T" in value else "date"
    return "text"


def property_edit(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """action read, set or remove one property of one note; writes keep every other byte."""
    path = resolve_note(parts, args["note"])
    name: str = args["name"]
    if args["action"] == "read":
        rows = parts.store.frontmatters(path)
        fm = json.loads(rows[0][1]) if rows else {}
        if name not in fm:
            raise NotFoundError(f"{path} has no property {name!r}")
        return ok(note=path, name=name, value=fm[name], message=f"{name} of {path}")
    writer = NoteWriter(parts)
    note = writer.read(path)  # in its own encoding and line endings (kbtui.tools.write)
    text = note.text
    try:
        if args["action"] == "set":
            if args.get("value") is None:
                raise ValidationError("value is required to set a property", field="value")
            kind = args.get("type") or property_type(parts, path, text, name, args["value"])
            value = typed_value(args["value"], kind)
            new = set_property(text, name, value)
        else:
            new = remove_property(text, name)
    except PropertyValueError as exc:
        raise ValidationError(f"{name}: {exc}", field="value") from exc
    except FrontmatterEditError as exc:
        raise ConflictError(f"{path}: {exc}") from exc
    if new != text:
        operation = f"property:{args['action']} {name}"
        writer.edit(path, lambda _: new, operation, expected_hash=note.hash)
    return ok(
        note=path, name=name, changed=new != text, message=f"{args['action']} {name} of {path}"
    )


def property_type(parts: VaultParts, path: str, text: str, name: str, raw: str) -> str:
    """The type of property `name` as Obsidian has it: `.obsidian/types.json`, else the
    value it holds in this note, else the first value another note holds (the index), else
    the text's own form (a number, true/false, else text)."""
    typed = property_types(parts.settings.vault).get(name)
    if typed:
        return typed
    here = value_type(current_value(text, name))
    if here:
        return here
    other = parts.store.property_value(name, MARKDOWN_SUFFIXES, but=path)
    return value_type(json.loads(other) if other else None) or text_type(raw)


def search_context(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """`path:line: text` for every line holding the query (any case unless `case`), in the
    notes the index finds it in."""
    query: str = args["query"]
    case = bool(args.get("case"))
    results: list[dict[str, Any]] = []
    files = 0
    for path in parts.store.paths_containing(query, args.get("folder") or ""):
        if files == args["limit"]:
            break
        _, text = _read(parts, path)
        found = len(results)
        for n, line in enumerate(text.split("\n"), 1):
            if (query in line) if case else (query.lower() in line.lower()):
                results.append({"file": path, "line": n, "text": line.rstrip("\r")})
        files += len(results) > found  # a candidate without the line is not a file found
    return ok(results=results, count=len(results))
