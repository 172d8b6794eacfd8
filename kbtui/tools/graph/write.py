"""The kg_* tools that change the graph. The vault is the source of truth, so each writes
markdown first, through the write path (kbtui.tools.write: atomic, the note's own encoding,
the history, a merged note to the vault's trash), and then indexes what it wrote: deleting
the index and re-indexing yields the same graph."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from kbtui.store.graph.entities import REL_TYPES
from kbtui.tools.contracts.graph import KG_TOOLS
from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, guarded, ok
from kbtui.tools.graph.read import KnowledgeGraph, note_file
from kbtui.tools.params import validate
from kbtui.tools.write.service import NoteWriter, StaleNoteError
from kbtui.tools.write.trash import delete_note
from kbtui.vault.decode import decode_note
from kbtui.vault.edit.codec import content_hash
from kbtui.vault.edit.frontmatter import FrontmatterEditError, add_to_list
from kbtui.vault.edit.write import render_note, safe_filename
from kbtui.vault.parse import parse_note, slug
from kbtui.vault.scan import is_markdown

if TYPE_CHECKING:
    from pathlib import Path

    from kbtui.vault.edit.codec import NoteText

TYPE_FOLDERS = {
    "person": "people",
    "organization": "organizations",
    "project": "projects",
    "technology": "technologies",
    "concept": "concepts",
    "location": "locations",
    "document": "documents",
    "task": "tasks",
}
# Which frontmatter key holds each relationship type (the inverse of the store's mapping).
REL_KEYS = {v: k for k, v in reversed(list(REL_TYPES.items())) if k not in ("embeds", "owner")}


class GraphWriter:
    def __init__(self, graph: KnowledgeGraph) -> None:
        self.graph = graph
        self.indexer = graph.parts.indexer
        self.store = graph.store
        self.vault: Path = graph.parts.settings.vault

    def create(self, name: str, raw: dict[str, Any]) -> dict[str, Any]:
        """kg_create_entity / kg_create_relationship with raw arguments, validated against
        their contracts and answered with the envelope (extraction persists through this)."""
        spec = KG_TOOLS[name]
        run = self.kg_create_entity if name == "kg_create_entity" else self.kg_create_relationship
        return guarded(lambda: run(validate(spec.params, raw)), name, spec.empty)

    def index_paths(self, *paths: str) -> None:
        """Index what a write just changed; a file written but not indexable is a conflict."""
        report = self.indexer.run(paths=list(paths))
        broken = [s for s in report.skipped if s.path in paths]
        if broken:
            raise ConflictError(f"{broken[0].path} was written but not indexed: {broken[0].reason}")

    # -- kg_create_entity -----------------------------------------------------------------
    def kg_create_entity(self, args: dict[str, Any]) -> dict[str, Any]:
        name, kind = args["name"].strip(), args["type"]
        entity_id = f"{kind}:{slug(name)[:80] or 'unnamed'}"
        if self.store.note(entity_id) is not None:
            raise ConflictError(
                f"Entity {entity_id} already exists; use kg_merge_entities or pick another name"
            )
        fm: dict[str, Any] = {"id": entity_id, "type": kind, "title": name}
        if args["aliases"]:
            fm["aliases"] = list(dict.fromkeys(a.strip() for a in args["aliases"]))
        if args["description"]:
            fm["description"] = args["description"]
        fm["confidence"] = args["confidence"]
        if args["channelId"] and args["channelId"] != self.graph.default_channel:
            fm["channel"] = args["channelId"]
        fm["created_by"] = "kg_create_entity"
        fm["created_at"] = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
        body = f"# {name}\n\n{args['description'] or ''}"
        written = self.note_writer().create_free(
            self._folder_for(kind), safe_filename(name), render_note(fm, body), "kg_create_entity"
        )
        self.index_paths(written.path)
        entity = self.graph.entity(self.graph.require(entity_id))
        return ok(entity=entity, message=f"Created {kind} {name} in {entity['source']}")

    def _folder_for(self, kind: str) -> str:
        """The folder most notes of this type already live in, else a plural default."""
        folder = self.store.common_folder(kind)
        return folder.split("/", 1)[0] if folder else TYPE_FOLDERS.get(kind, kind + "s")

    # -- kg_create_relationship -----------------------------------------------------------
    def kg_create_relationship(self, args: dict[str, Any]) -> dict[str, Any]:
        start, goal, kind = args["fromEntityId"], args["toEntityId"], args["type"]
        self.graph.validate_pair(start, goal)
        source = note_file(self.graph.require(start), "fromEntityId")
        target = self.graph.require(goal)
        label = (args["label"] or "").strip()
        if any(c in label for c in "[]") or any(not c.isprintable() for c in label):
            # It goes inside [[target|label]]: brackets or a line break would break the link
            # and leave a broken line in the user's note.
            raise ValidationError("label cannot contain [, ] or control characters", field="label")
        existing = self._find_rel(start, goal, kind, label)
        if existing is None:
            ref = self._link_ref(target)
            link = f"[[{ref}|{label}]]" if label else f"[[{ref}]]"
            original, written = self._edit(source["path"], REL_KEYS[kind], link)
            self.index_paths(source["path"])
            existing = self._find_rel(start, goal, kind, label)
            if existing is None:  # undo: a failed call leaves the note as it was
                self.note_writer().edit(
                    source["path"],
                    lambda _: original,
                    "kg_create_relationship undone: the relation did not resolve",
                    expected_hash=written,
                )
                self.index_paths(source["path"])
                raise ConflictError("the relation did not resolve; the note was left unchanged")
            message = f"Created {kind} from {start} to {goal} in {source['path']}"
        else:
            message = f"{kind} from {start} to {goal} already existed"
        self.store.set_relationship_meta(existing, args["confidence"])
        self.graph.used([start, goal])
        rel = self.store.relationships_by_id([str(existing)])[0]
        return ok(relationship=self.graph.relationship(rel), message=message)

    def _find_rel(self, start: str, goal: str, kind: str, label: str) -> str | None:
        for rel in self.store.neighbor_relationships(start, "outgoing", kind, 1000):
            if rel["toEntityId"] == goal and (rel["label"] or "") == label:
                return str(rel["id"])
        return None

    def _link_ref(self, target: dict[str, Any]) -> str:
        """How a wikilink names the target: its file name when that is unambiguous."""
        path = str(target["path"])
        if not is_markdown(path):  # a PDF or an image is linked with its suffix: [[paper.pdf]]
            name = path.rsplit("/", 1)[-1]
            return name if self.store.entities_named(name) == [target["id"]] else path
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        owners = self.store.entities_named(stem)
        return stem if owners == [target["id"]] else path.rsplit(".", 1)[0]

    def note_writer(self) -> NoteWriter:
        return NoteWriter(self.graph.parts)

    def _edit(self, rel_path: str, key: str, link: str) -> tuple[str, str | None]:
        """Add `link` to the note's `key` list; returns the note's text before the edit and
        the hash of its bytes after."""
        before: list[str] = []

        def change(note: NoteText) -> str:
            before.append(note.text)
            try:
                return add_to_list(note.text, key, link)
            except FrontmatterEditError as exc:
                raise ConflictError(f"cannot edit {rel_path}: {exc}") from exc

        written = self.note_writer().edit(rel_path, change, f"kg_create_relationship: {key}")
        return before[0], written.hash

    # -- kg_merge_entities ----------------------------------------------------------------
    def kg_merge_entities(self, args: dict[str, Any]) -> dict[str, Any]:
        target_id, sources = args["targetEntityId"], list(dict.fromkeys(args["sourceEntityIds"]))
        if not sources:
            raise ValidationError("sourceEntityIds cannot be empty", field="sourceEntityIds")
        if target_id in sources:
            raise ValidationError("the target cannot also be a source", field="sourceEntityIds")
        target = note_file(self.graph.require(target_id), "targetEntityId")
        rows = [note_file(self.graph.require(s), "sourceEntityIds") for s in sources]
        writer = self.note_writer()
        original = writer.read(target["path"])  # its own encoding and line endings
        text = original.text
        read: dict[str, str] = {}  # each source note's hash as read: trashed only if unchanged
        known = {n.lower() for n in [target["name"], *target["aliases"]]}
        aliases: list[str] = []
        moved = 0
        appendix = []
        for row in rows:
            moved += len(self.store.neighbor_relationships(row["id"], "both", None, 100_000))
            names = [row["name"], *row["aliases"], row["path"].rsplit("/", 1)[-1].rsplit(".", 1)[0]]
            for name in names:
                if name.lower() not in known:
                    known.add(name.lower())
                    aliases.append(name)
            data = (self.vault / row["path"]).read_bytes()
            read[row["path"]] = content_hash(data)
            note = parse_note(row["path"], decode_note(data)[0])
            for link in note.links:
                if link.rel not in ("references", "embeds") and link.target.lower() not in known:
                    ref = f"[[{link.target}|{link.label}]]" if link.label else f"[[{link.target}]]"
                    text = self._add(text, slug(link.rel) or "related_to", ref)
            appendix.append(f"\n\n## Merged from {row['name']}\n\n{note.body}\n")
        for alias in aliases:
            text = self._add(text, "aliases", alias)
        text = text.rstrip("\r\n") + original.lines_out("".join(appendix))
        merging = f"kg_merge_entities: {', '.join(sources)} into {target_id}"
        writer.edit(target["path"], lambda _: text, merging, expected_hash=original.hash)
        trashed: list[str] = []
        for row in rows:
            try:
                gone = delete_note(
                    writer, row["path"], read[row["path"]], operation=f"merged into {target_id}"
                )
            except StaleNoteError as exc:  # saved by another program since it was read
                self.index_paths(target["path"])
                raise StaleNoteError(
                    f"{target['path']} took the merge, but {exc}", exc.current_hash
                ) from None
            trashed.append(gone.extra["trash"])
        self.index_paths(target["path"], *(row["path"] for row in rows))
        self.store.merge_usage(target_id, sources)
        merged = self.graph.entity(self.graph.require(target_id))
        result = {
            "success": True,
            "mergedEntity": merged,
            "relationshipsTransferred": moved,
            "aliasesMerged": aliases,
            "trashed": trashed,
        }
        return ok(result=result, message=f"Merged {len(sources)} entities into {target_id}")

    def _add(self, text: str, key: str, value: str) -> str:
        try:
            return add_to_list(text, key, value)
        except FrontmatterEditError as exc:
            raise ConflictError(f"cannot edit the target note: {exc}") from exc

    # -- not found guard used by callers --------------------------------------------------
    def exists(self, entity_id: str) -> bool:
        try:
            self.graph.require(entity_id)
        except NotFoundError:
            return False
        return True
