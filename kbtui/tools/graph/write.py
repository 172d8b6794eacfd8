"""The kg_* tools that change the graph. The vault is the source of truth, so each writes
markdown first, through the write path (kbtui.tools.write: atomic, the note's own encoding,
the history, a merged note to the vault's trash), and then indexes what it wrote: deleting
the index and re-indexing yields the same graph."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbtui.store.graph.entities import REL_TYPES
from kbtui.textdiff import content_hash
from kbtui.tools.contracts.graph import KG_TOOLS
from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, guarded, ok
from kbtui.tools.graph.entity_note import entity_folder, entity_text, free_stem
from kbtui.tools.graph.read import KnowledgeGraph, note_file
from kbtui.tools.params import validate
from kbtui.tools.write.service import NoteWriter, StaleNoteError
from kbtui.tools.write.trash import delete_note
from kbtui.vault.decode import decode_note
from kbtui.vault.edit.frontmatter import FrontmatterEditError, add_to_list
from kbtui.vault.edit.write import safe_filename
from kbtui.vault.parse import parse_note, slug
from kbtui.vault.scan import is_markdown

if TYPE_CHECKING:
    from pathlib import Path

    from kbtui.vault.edit.codec import NoteText

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
        """A note where the vault keeps notes of that type, with the properties the vault
        uses (kbtui.tools.graph.entity_note); the answer has the spec's fields all the same."""
        name, kind = args["name"].strip(), args["type"]
        entity_id = f"{kind}:{slug(name)[:80] or 'unnamed'}"
        if self.store.note(entity_id) is not None:
            raise ConflictError(
                f"Entity {entity_id} already exists; use kg_merge_entities or pick another name"
            )
        folder = entity_folder(self.store, self.vault, kind)
        stem = free_stem(self.vault, folder, safe_filename(name))
        channel = args["channelId"] if args["channelId"] != self.graph.default_channel else None
        rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
        text = entity_text(self.store, args, entity_id, rel, channel)
        self.note_writer().create(rel, text, "kg_create_entity")  # that name, or refused
        self.index_paths(rel)
        entity = self.graph.entity(self.graph.require(entity_id))
        entity["confidence"] = args["confidence"]  # kept in the note only where the vault
        entity["description"] = entity["description"] or args["description"]  # has the key
        return ok(entity=entity, message=f"Created {kind} {name} in {entity['source']}")

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
        """Merge the sources into the target; with dryRun, the same answer from the same plan
        and nothing written: the file that changes, the links it gains, the notes removed
        (to the vault's trash, kbtui.tools.write.trash) and the notes linking to them (left
        as written; the index resolves them to the target by the aliases it gains, Obsidian
        does not)."""
        target_id, sources = args["targetEntityId"], list(dict.fromkeys(args["sourceEntityIds"]))
        if not sources:
            raise ValidationError("sourceEntityIds cannot be empty", field="sourceEntityIds")
        if target_id in sources:
            raise ValidationError("the target cannot also be a source", field="sourceEntityIds")
        target = note_file(self.graph.require(target_id), "targetEntityId")
        rows = [note_file(self.graph.require(s), "sourceEntityIds") for s in sources]
        writer = self.note_writer()
        read = {r["path"]: content_hash((self.vault / r["path"]).read_bytes()) for r in rows}
        original = writer.read(target["path"])  # its own encoding and line endings
        text, aliases, links, moved = self._merged_text(original.text, target, rows)
        removed = [row["path"] for row in rows]
        linking = {src for r in removed for src, *_ in self.store.obsidian_links(dest_path=r)}
        result: dict[str, Any] = {
            "success": True,
            "relationshipsTransferred": moved,
            "aliasesMerged": aliases,
            "dryRun": args["dryRun"],
            "filesChanged": [target["path"]],
            "linksAdded": links,
            "removed": removed,
            "linkingNotes": sorted(linking - set(removed)),
        }
        if args["dryRun"]:
            merged = self.graph.entity(target)
            merged["aliases"] = [*merged["aliases"], *aliases]
            message = (
                f"Dry run: merging {len(sources)} entities into {target_id} would change "
                f"{target['path']} and move {len(removed)} note(s) to the vault's trash; "
                "nothing was written"
            )
            return ok(result={**result, "mergedEntity": merged}, message=message)
        for path in [target["path"], *removed]:
            writer.check_scope(path)  # every note it changes, before any is written
        merging = f"kg_merge_entities: {', '.join(sources)} into {target_id}"
        writer.edit(target["path"], lambda _: text, merging, expected_hash=original.hash)
        trashed: list[str] = []  # each source only as it was read, with its history
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
        self.index_paths(target["path"], *removed)
        self.store.merge_usage(target_id, sources)
        merged = self.graph.entity(self.graph.require(target_id))
        result = {**result, "mergedEntity": merged, "trashed": trashed}
        return ok(result=result, message=f"Merged {len(sources)} entities into {target_id}")

    def _merged_text(
        self, text: str, target: dict[str, Any], rows: list[dict[str, Any]]
    ) -> tuple[str, list[str], list[str], int]:
        """The target note's text after the merge, the aliases and the relation links
        (`key: [[link]]`) it gains, and the relationships the sources have."""
        known = {n.lower() for n in [target["name"], *target["aliases"]]}
        aliases: list[str] = []
        links: list[str] = []
        moved = 0
        appendix = []
        for row in rows:
            moved += len(self.store.neighbor_relationships(row["id"], "both", None, 100_000))
            names = [row["name"], *row["aliases"], row["path"].rsplit("/", 1)[-1].rsplit(".", 1)[0]]
            for name in names:
                if name.lower() not in known:
                    known.add(name.lower())
                    aliases.append(name)
            note = parse_note(row["path"], decode_note((self.vault / row["path"]).read_bytes())[0])
            for link in note.links:
                if link.rel not in ("references", "embeds") and link.target.lower() not in known:
                    ref = f"[[{link.target}|{link.label}]]" if link.label else f"[[{link.target}]]"
                    key = slug(link.rel) or "related_to"
                    text = self._add(text, key, ref)
                    links.append(f"{key}: {ref}")
            appendix.append(f"\n\n## Merged from {row['name']}\n\n{note.body}\n")
        for alias in aliases:
            text = self._add(text, "aliases", alias)
        newline = "\r\n" if "\r\n" in text else "\n"  # the appendix in the note's line endings
        added = "".join(appendix).replace("\n", newline)
        return text.rstrip("\r\n") + added, aliases, links, moved

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
