"""kg_suggest_links (unlinked mentions) and linking one. They read the notes from disk (the
vault is the truth) and edit them as text through kbtui.vault.edit.relink, so only the characters
of a link ever change, written through the write path (kbtui.tools.write: the note's encoding
and line endings, the history, refused if the file changed since it was read).
kg_rename_entity is in kbtui.tools.graph.rename.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbtui.textdiff import content_hash
from kbtui.tools.envelope import ConflictError, NotFoundError, ok
from kbtui.tools.graph.mention_scan import MentionScan
from kbtui.tools.write.service import NoteWriter
from kbtui.vault.edit.codec import decode_for_edit
from kbtui.vault.edit.relink import find_mentions, link_mention, name_pattern
from kbtui.vault.edit.write import WriteError

if TYPE_CHECKING:
    from kbtui.tools.graph.write import GraphWriter


class LinkTools:
    """The two tools over one GraphWriter (its store, vault and indexer)."""

    def __init__(self, writer: GraphWriter) -> None:
        self.writer = writer
        self.graph = writer.graph
        self.store = writer.store
        self.vault = writer.vault
        self.index_dir = writer.graph.parts.settings.index_dir
        self.released = writer.graph.parts.released
        self.mentions = MentionScan(self.vault, writer.graph.parts.pause)
        self._facts: tuple[int, dict[str, str], set[tuple[str, str]], list[tuple[str, str]]] | None
        self._facts = None

    # -- kg_suggest_links -----------------------------------------------------------------
    def kg_suggest_links(self, args: dict[str, Any]) -> dict[str, Any]:
        entity_id, limit, offset = args["entityId"], args["limit"], args["offset"]
        paths, linked, named = self._vault_facts()
        if entity_id:
            row = self.graph.require(entity_id)
            names = [(n, entity_id) for n in [row["name"], *row["aliases"]] if n]
            sources = [(eid, p) for eid, p in paths.items() if eid != entity_id]
            with self.released():  # files only: searches and saves go on meanwhile
                suggestions = self.mentions.scan(names, sources, set(), every=True, one_entity=True)
        else:
            sources = list(paths.items())
            with self.released():  # the store is read before: another thread has it meanwhile
                suggestions = self.mentions.scan(named, sources, linked, every=False)
            # longer names are the more certain suggestions
            suggestions.sort(key=lambda s: (-len(s["text"]), s["filePath"], s["line"]))
        total = len(suggestions)
        suggestions = suggestions[offset : offset + limit]
        where = f" of {entity_id}" if entity_id else ""
        shown = f"; showing {offset + 1}-{offset + len(suggestions)}" if suggestions else ""
        if total and not suggestions:
            shown = f"; none from offset {offset}"
        return ok(
            suggestions=suggestions,
            count=len(suggestions),
            totalFound=total,
            offset=offset,
            message=f"Found {total} unlinked mention(s){where}{shown}",
        )

    def note_mentions(self, args: dict[str, Any]) -> dict[str, Any]:
        """For the note view: where other notes name this one unlinked (incoming), and which
        entities this note names without linking them (outgoing)."""
        entity_id, limit = args["entityId"], args["limit"]
        row = self.graph.require(entity_id)
        incoming = self.kg_suggest_links({"entityId": entity_id, "limit": limit, "offset": 0})
        incoming = incoming["suggestions"]
        paths, linked, named = self._vault_facts()
        outgoing = self.mentions.scan(
            named, [(entity_id, row["path"])], linked, every=True, paths=paths
        )
        return ok(incoming=incoming, outgoing=outgoing[:limit])

    def _vault_facts(
        self,
    ) -> tuple[dict[str, str], set[tuple[str, str]], list[tuple[str, str]]]:
        """Every note's path by id, the linked pairs, the names notes answer to: read again
        after a write only (the store's generation moves at each COMMIT), not at every scan
        (~20 ms of a rescan's ~50 on 1,500 notes). Callers only read them."""
        generation = self.store.generation
        facts = self._facts
        if facts is None or facts[0] != generation:
            paths, linked = self.store.note_paths(), self.store.linked_pairs()
            facts = self._facts = (generation, paths, linked, self.store.name_owners())
        return facts[1], facts[2], facts[3]

    def link_mention(self, args: dict[str, Any]) -> dict[str, Any]:
        """Turn one suggestion into `[[Target|text]]`, re-checked against the file as it is."""
        source = self.graph.require(args["sourceEntityId"])
        target = self.graph.require(args["targetEntityId"])
        path = self.vault / source["path"]
        data = path.read_bytes()
        text = _read(data, source["path"])
        pattern = name_pattern([args["text"]])
        line, column = args["line"], args["column"]
        start = _offset(text, line, column)
        found = find_mentions(text, pattern) if pattern is not None else []
        hit = next((m for m in found if m.start == start), None)
        if hit is None or hit.text != args["text"]:
            raise ConflictError(
                f"{source['path']} no longer has {args['text']!r} unlinked at line {line}; "
                "suggest again"
            )
        new = link_mention(text, hit.start, hit.end, self.writer._link_ref(target))
        NoteWriter(self.graph.parts).edit(  # refused as stale if the file changed since
            source["path"],
            lambda _: new,
            f"link {hit.text!r} to {target['id']}",
            expected_hash=content_hash(data),
        )
        self.writer.index_paths(source["path"])
        return ok(filePath=source["path"], message=f"Linked {hit.text!r} to {target['id']}")


def _read(data: bytes, path: str) -> str:
    try:
        return decode_for_edit(data).text
    except WriteError as exc:
        raise ConflictError(f"{path}: {exc}") from exc


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            raise NotFoundError(f"there is no line {line}")
    return start + column - 1
