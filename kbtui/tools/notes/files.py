"""note_read, note_write and note_delete: a note's text with its hash; a note created (from a
template), overwritten, appended or prepended to; a note deleted to the vault's trash with the
links it leaves unresolved. Every write goes through NoteWriter (scope, expected hash,
history, atomic replace, index)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from kbtui.tools.envelope import NotFoundError, ValidationError, ok
from kbtui.tools.notes.where import check_name_free, checked, new_note_path, note_path
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.service import NoteWriter, WriteResult
from kbtui.tools.write.trash import delete_note
from kbtui.vault.edit.codec import EncodingError, decode_for_edit
from kbtui.vault.edit.sections import append_text, prepend_text
from kbtui.vault.edit.write import inside
from kbtui.vault.obsidian.templates import fill_template, template_names, template_settings


def newline_name(newline: str) -> str:
    return "CRLF" if newline == "\r\n" else "LF"


def note_read(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    path = note_path(parts, args["note"])
    note = NoteWriter(parts).read(path)
    text, more = note.text, dict[str, Any]()
    start, end = args.get("startLine"), args.get("endLine")
    if start is not None or end is not None:
        lines = text.splitlines(keepends=True)
        first, last = start or 1, min(end or len(lines), len(lines))
        if first > len(lines):
            raise ValidationError(f"{path} has {len(lines)} lines", field="startLine")
        if first > last:
            raise ValidationError("endLine is before startLine", field="endLine")
        text = "".join(lines[first - 1 : last])
        more = {"startLine": first, "endLine": last, "lines": len(lines)}
    return ok(
        path=path,
        hash=note.hash,
        text=text,
        encoding=note.encoding_name,
        newline=newline_name(note.newline),
        **more,
        message=f"{path} ({note.encoding_name}, {newline_name(note.newline)})",
    )


def note_write(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    mode: str = args["mode"]
    content: str = args["content"]
    expected, dry = args.get("expected_hash"), bool(args["dry_run"])
    writer = NoteWriter(parts)
    if args["inline"] and mode not in ("append", "prepend"):
        raise ValidationError("inline is for append and prepend", field="inline")
    if mode == "create":
        path = new_note_path(parts, args["path"])
        check_name_free(parts, path)
        text = _with_template(parts, args.get("template"), path, content)
        result = writer.create(path, text, "create", expected_hash=expected, dry_run=dry)
    elif mode == "overwrite":
        if expected is None:
            raise ValidationError(
                "overwrite replaces the whole note: give expected_hash, the hash note_read "
                "gave (to change a part of it: note_edit)",
                field="expected_hash",
            )
        path = note_path(parts, args["path"], "path")
        text = _with_template(parts, args.get("template"), path, content)
        result = writer.create(path, text, "overwrite", True, expected, dry)
    else:
        if args.get("template"):
            raise ValidationError("template is for create and overwrite", field="template")
        if not content:
            raise ValidationError(f"content is required to {mode}", field="content")
        path = note_path(parts, args["path"], "path")
        add = append_text if mode == "append" else prepend_text
        inline = bool(args["inline"])
        result = writer.edit(
            path, lambda n: add(n.text, n.newline, content, inline), mode, expected, dry
        )
    return ok(**result.answer(), message=summary(mode, result))


def summary(what: str, result: WriteResult) -> str:
    if result.dry_run:
        return f"{what} {result.path}: dry run, nothing written (+{result.added} -{result.removed})"
    if result.hash == result.previous_hash:
        return f"{what} {result.path}: no change"
    return f"{what} {result.path} (+{result.added} -{result.removed})"


def _with_template(parts: VaultParts, name: str | None, path: str, content: str) -> str:
    if not name:
        return content
    vault = parts.settings.vault
    settings = template_settings(vault)
    raw = name.strip().replace("\\", "/").strip("/")
    rel = raw if raw.lower().endswith(".md") else raw + ".md"
    for candidate in ([f"{settings.folder}/{rel}"] if settings.folder else []) + [rel]:
        file = vault / checked(candidate, "template")
        try:
            if not (file.is_file() and inside(vault, file)):
                continue
            text = decode_for_edit(file.read_bytes()).text.replace("\r\n", "\n")
        except (OSError, EncodingError) as exc:  # a name too long, a binary file
            problem = f"template {name[:80]!r} cannot be read: {exc}"
            raise ValidationError(problem, field="template") from exc
        title = path.rsplit("/", 1)[-1][:-3]
        filled = fill_template(text, title, dt.datetime.now(), settings)
        return append_text(filled, "\n", content) if content else filled
    names = template_names(vault, settings)
    where = (
        f"in {settings.folder}/ (templates: {', '.join(names[:30]) or 'none'})"
        if settings.folder
        else "(the Templates plugin has no folder: .obsidian/templates.json)"
    )
    raise NotFoundError(f"no template {name[:80]!r} {where}")


def note_delete(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    path = note_path(parts, args["note"])
    backlinks = [
        (src, target, key)
        for src, target, key, _ in parts.store.obsidian_links(dest_path=path)
        if src != path
    ]
    dry = bool(args["dry_run"])
    result = delete_note(NoteWriter(parts), path, args.get("expected_hash"), dry)
    left = backlinks  # a dry run: the links that reach it now
    if not dry and backlinks:  # the index is updated: those links as they resolve now
        keys = {key for _, _, key in backlinks}
        still = parts.store.unresolved_links(sorted({src for src, _, _ in backlinks}))
        left = [(src, target, key) for src, target, key in still if key in keys]
    counts = Counter((src, target) for src, target, _ in left)
    unresolved = [{"file": s, "link": t, "count": n} for (s, t), n in sorted(counts.items())]
    answer = result.answer(unresolved=unresolved)
    message = summary("delete", result) + f" -> {answer.get('trash')}"
    if unresolved:
        message += f"; {len(left)} link(s) in {len({s for s, _, _ in left})} note(s) unresolved"
    return ok(**answer, message=message)
