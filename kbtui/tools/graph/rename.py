"""kg_rename_entity: a rename or move that every link follows, and never steals one.

The note's links are rewritten as text through kbtui.vault.edit.relink (only a link's characters
change), each note in its own encoding and line endings (kbtui.vault.edit.codec), and every
file is written through the write path's batch (kbtui.tools.write.batch: all or nothing, never
over another program's save, each note's versions in the history), then indexed.
A new name that another note already answers to (file name, title or alias, any case) would
make that note's links reach this one: refused unless `force`, and then the answer lists
every link that changes target, found by the index's own resolver (store.links_retargeted).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from kbtui.store.graph.entities import link_key
from kbtui.store.graph.links import NAME_PRIORITY
from kbtui.tools.envelope import ConflictError, ValidationError, ok
from kbtui.tools.graph.read import note_file
from kbtui.tools.graph.rename_names import new_vault_path
from kbtui.tools.write.batch import write_batch
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.canvas import is_canvas, rewrite_canvas_files
from kbtui.vault.edit.batch import FileEdit
from kbtui.vault.edit.codec import decode_for_edit
from kbtui.vault.edit.relink import MarkdownEdits, retitle, rewrite_links
from kbtui.vault.edit.write import WriteError
from kbtui.vault.names import page_title
from kbtui.vault.obsidian.mdlinks import rebase_md_links, rewrite_md_links
from kbtui.vault.parse import derive_type_and_name
from kbtui.vault.scan import scan_vault

if TYPE_CHECKING:
    from kbtui.tools.graph.write import GraphWriter

PREVIEW_LINES = 20  # changed lines shown per file by a dry run
RETARGET_SHOWN = 200  # links that change target, listed one by one
_KINDS = {p: k for k, p in NAME_PRIORITY.items()}
_KIND_WORDS = {
    **{kind: kind for kind in NAME_PRIORITY},
    "suffix": "path ending",
    "stem": "file name",
}


class Renamer:
    """kg_rename_entity over one GraphWriter (its store, vault and indexer)."""

    def __init__(self, writer: GraphWriter) -> None:
        self.writer = writer
        self.graph = writer.graph
        self.store = writer.store
        self.vault = writer.vault
        self.index_dir = writer.graph.parts.settings.index_dir

    def kg_rename_entity(self, args: dict[str, Any]) -> dict[str, Any]:
        row = note_file(self.graph.require(args["entityId"]), "entityId")
        old_path: str = row["path"]
        new_path, meant = new_vault_path(self.vault, old_path, args["newName"])
        old_stem, new_stem = _stem(old_path), _stem(new_path)
        fm = row["frontmatter"]
        keeps_id = fm.get("id") == row["id"]
        new_type, new_name = derive_type_and_name(new_path, fm)
        new_id = row["id"] if keeps_id else f"{new_type}:{new_name}"
        if not keeps_id and new_id != row["id"] and self.store.note(new_id) is not None:
            raise ValidationError(
                f"the new name would give the id {new_id}, which {self._path_of(new_id)} has",
                field="newName",
            )
        new_title = page_title(new_path) if row["name"] == page_title(old_path) else row["name"]
        retargeted = self._retargeted(row, new_id, new_path, new_title)
        taken = self._taken(row["id"], old_path, new_stem, new_title)
        if taken and not args["force"]:
            raise ConflictError(_taken_message(args["newName"], taken, retargeted), "newName")
        by_path = {NAME_PRIORITY[k] for k in ("path", "suffix", "stem")}
        changing = {k for k, kind in self.store.winning_names(row["id"]) if kind in by_path}
        if not keeps_id:
            changing.add(link_key(row["id"]))
        owners = set(self.store.entities_named(new_stem)) - {row["id"]}
        plain = new_stem if not owners else new_path[:-3]

        def new_target(old: str) -> str:
            key = link_key(old)
            suffix = ".md" if old.lower().endswith(".md") else ""
            if not keeps_id and key == link_key(row["id"]):
                return new_id
            if "/" in key:
                return ("/" if old.startswith("/") else "") + new_path[:-3] + suffix
            return plain + suffix

        def resolves(target: str) -> bool:
            return link_key(target) in changing

        def markdown_edits(source: str) -> MarkdownEdits:
            def edit(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
                # the note's own links are written from where it will be
                at = new_path if source == old_path else None
                out = rewrite_md_links(text, ranges, source, resolves, old_path, new_path, at)[0]
                if source == old_path:  # its relative links to other files, from there
                    out += rebase_md_links(text, ranges, old_path, new_path, resolves)
                return out

            return edit

        edits: list[FileEdit] = []
        changes: list[dict[str, Any]] = []
        total = 0
        touched = 0  # files whose text changes: the moved note itself may not
        linking = self._linking(changing, old_path)
        # A dry run plans from files only, the store let go (searches go on); a real
        # rename keeps it: what it read of the index must still hold when it writes.
        with self.graph.parts.released() if args["dryRun"] else nullcontext():
            for path in linking:
                try:
                    data = (self.vault / path).read_bytes()
                except FileNotFoundError:  # moved or deleted on disk; the index follows shortly
                    raise ConflictError(
                        f"{path} was moved or deleted on disk during the rename; nothing was "
                        "written: retry once the index has caught up"
                    ) from None
                text, encode = _read(data, path)
                if is_canvas(path):  # file cards hold the note's path
                    new, count = rewrite_canvas_files(text, resolves, new_path)
                else:
                    new, count = rewrite_links(text, resolves, new_target, markdown_edits(path))
                if path == old_path:
                    new = retitle(new, old_stem, new_stem)
                if new == text and path != old_path:
                    continue
                total += count
                shown = new_path if path == old_path else path
                change: dict[str, Any] = {"path": shown, "linksRewritten": count}
                if args["dryRun"]:
                    change["lines"] = _changed_lines(text, new)
                changes.append(change)
                if new != text:
                    touched += 1
                    edits.append(FileEdit(self.vault / path, data, encode(new)))
        moved = f"{old_path} -> {new_path}" + (f" ({meant})" if meant else "")
        counted = f"{total} link(s) in {touched} file(s)"
        if retargeted:
            counted += f"; {len(retargeted)} other link(s) change target"
        if args["dryRun"]:
            entity = self.graph.entity(row)
            message = f"Dry run: {moved} would rewrite {counted}; nothing was written"
        else:
            writer = NoteWriter(self.graph.parts)
            write_batch(writer, edits, (old_path, new_path), f"rename {old_path} -> {new_path}")
            if new_id != row["id"]:  # the id follows the file name: so does its usage history
                self.store.flush_usage()
                self.store.carry_usage([(row["id"], new_id)])
            self.writer.index_paths(old_path, new_path, *(c["path"] for c in changes))
            entity = self.graph.entity(self.graph.require(new_id))
            message = f"Renamed {moved}; rewrote {counted}"
        return ok(
            entity=entity,
            oldPath=old_path,
            newPath=new_path,
            newEntityId=new_id,
            filesChanged=changes,
            linksRewritten=total,
            retargeted=retargeted[:RETARGET_SHOWN],
            retargetedCount=len(retargeted),
            dryRun=args["dryRun"],
            message=message,
        )

    def _taken(
        self, entity_id: str, old_path: str, new_stem: str, new_title: str
    ) -> list[tuple[str, str]]:
        """(path, which name) of every other note answering to a name the renamed note would
        newly answer to: the index's names, and file names on disk it may not have yet."""
        keys = {link_key(new_stem), link_key(new_title)}
        paths = self.store.note_paths()
        taken = {
            (paths.get(other, other), _KIND_WORDS[_KINDS[kind]])
            for _, other, kind in self.store.names_held(sorted(keys), but=entity_id)
            if kind >= NAME_PRIORITY["stem"]
        }
        files, _ = scan_vault(self.vault, self.index_dir)
        for path in files:
            if path != old_path and link_key(_stem(path)) in keys:
                taken.add((path, "file name"))
        found: dict[str, str] = {}
        for path, kind in sorted(taken, key=lambda t: NAME_PRIORITY.get(t[1], 2)):
            found.setdefault(path, kind)
        return sorted(found.items())

    def _retargeted(
        self, row: dict[str, Any], new_id: str, new_path: str, new_title: str
    ) -> list[dict[str, Any]]:
        """Every indexed link outside the note's own rewrite that would reach another note
        after the rename than it does now, with its file and line."""
        names = [(link_key(new_id), 0), (link_key(_stem(new_path)), 2)]
        if "/" in new_path:
            names.append((link_key(new_path), 1))
        names += [(link_key(new_title), 3)] + [(link_key(a), 4) for a in row["aliases"]]
        folder = new_path.rsplit("/", 1)[0] if "/" in new_path else ""
        moved = self.store.links_retargeted(row["id"], new_id, names, folder)
        paths = self.store.note_paths()
        found: list[dict[str, Any]] = []
        for source, key, before, after in moved:
            path = paths.get(source)
            text = self._text(path) if path else None
            lines = _lines_linking(text, key) if text is not None else []
            for line, content in lines or [(0, "")]:
                found.append(
                    {
                        "path": path,
                        "line": line,
                        "text": content.strip(),
                        "from": paths.get(before, before),
                        "to": new_path if after == row["id"] else paths.get(after, after),
                    }
                )
        return found

    def _linking(self, keys: set[str], own: str) -> list[str]:
        """Notes that may link through `keys`: the index's answer, plus every note on disk
        whose text names one (a link typed a moment ago, or in a note the index skipped);
        rewrite_links then changes only links that really resolve to the note."""
        found = {*self.store.paths_linking(sorted(keys)), own}
        needles = {k.rsplit("/", 1)[-1] for k in keys}
        needles |= {quote(n) for n in needles}  # `[t](Other%20note.md)`
        files, _ = scan_vault(self.vault, self.index_dir)
        for path in files:
            if path not in found:
                text = self._text(path)
                if text is not None and any(n in text.lower() for n in needles):
                    found.add(path)
        return sorted(found)

    def _path_of(self, entity_id: str) -> str:
        return str(self.store.note_paths().get(entity_id, entity_id))

    def _text(self, path: str) -> str | None:
        try:
            return decode_for_edit((self.vault / path).read_bytes()).text
        except (OSError, WriteError):  # gone since the last pass, or not editable text
            return None


def _taken_message(raw: str, taken: list[tuple[str, str]], retargeted: list[Any]) -> str:
    shown = ", ".join(f"{path} ({kind})" for path, kind in taken[:3])
    more = f" and {len(taken) - 3} more" if len(taken) > 3 else ""
    moved = f"; {len(retargeted)} link(s) would change target" if retargeted else ""
    return (
        f"{raw.strip()!r} is already a name of {shown}{more}: links to it would reach the "
        f"renamed note instead{moved}. Choose another name, or force it after a dry run "
        "lists the links that change target"
    )


def _lines_linking(text: str, key: str) -> list[tuple[int, str]]:
    """(1-based line, line) of each link in `text` whose target is `key`."""
    marked, _ = rewrite_links(text, lambda t: link_key(t) == key, lambda t: f"{t}\x00")
    before = text.split("\n")
    return [(i + 1, before[i]) for i, line in enumerate(marked.split("\n")) if line != before[i]]


def _read(data: bytes, path: str) -> tuple[str, Callable[[str], bytes]]:
    """The note's text (its own line endings) and how to write text back in its encoding;
    a character the encoding cannot hold is a conflict naming the note, nothing written."""
    try:
        note = decode_for_edit(data)
    except WriteError as exc:
        raise ConflictError(f"{path}: {exc}") from exc

    def encode(text: str) -> bytes:
        try:
            return note.encode(text)
        except WriteError as exc:
            raise ConflictError(f"{path}: {exc}") from exc

    return note.text, encode


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _changed_lines(old: str, new: str) -> list[dict[str, Any]]:
    before, after = old.split("\n"), new.split("\n")
    lines = [
        {"line": i + 1, "before": a, "after": b}
        for i, (a, b) in enumerate(zip(before, after, strict=False))
        if a != b
    ]
    return lines[:PREVIEW_LINES]
