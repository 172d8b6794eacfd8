"""What an index holds, in a form two indexes can be compared by: the proof behind "delete
the index and re-index gives the same answers" (DESIGN principle 1), used by the crash tests.

Left out on purpose: row ids (`cid`), timestamps, and the DB-only usage statistics
(access counts, Q-values, relationship confidence edits), which a rebuild cannot reproduce.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np

TABLES: dict[str, str] = {
    "notes": "SELECT entity_id, path, type, name, title, folder, frontmatter::VARCHAR,"
    " aliases::VARCHAR, size, mtime_ns, file_hash, chunk_size, chunk_overlap FROM notes",
    "chunks": "SELECT chunk_id, entity_id, chunk_index, heading, content, start_pos, end_pos,"
    " content_hash, n_terms, embedding IS NOT NULL, not_embedded FROM chunks",
    "postings": "SELECT c.chunk_id, p.term, p.tf FROM postings p JOIN chunks c USING (cid)",
    "tags": "SELECT entity_id, tag FROM tags",
    "file_tags": "SELECT entity_id, pos, tag, uses FROM file_tags",
    "links": "SELECT entity_id, target, rel, heading, label, key, form, via FROM links",
    "link_dest": "SELECT entity_id, target, key, dest FROM link_dest",
    "tasks": "SELECT * FROM tasks",
    "dv_pages": "SELECT * FROM dv_pages",
    "dv_items": "SELECT * FROM dv_items",
    "entity_names": "SELECT entity_id, key, priority FROM entity_names",
    "relationships": "SELECT rel_id, source_id, target_id, type, label, confidence, origin,"
    " source_key, target_key FROM relationships",
    # the path tables by entity ids: node numbers depend on the order entities arrived in
    "graph_edges": "SELECT na.entity_id, nb.entity_id, e.rel_id FROM graph_edges e"
    " JOIN graph_nodes na ON na.node = e.a JOIN graph_nodes nb ON nb.node = e.b",
    # the side files' bookkeeping (kbtui/store/side/state.py) is not content, nor the model
    # choice an entry point keeps (kbtui/indexing/model_choice.py: an Indexer alone makes none)
    "meta": "SELECT key, value FROM meta WHERE key NOT IN"
    " ('index_id', 'next_cid', 'vectors_epoch', 'model_choice', 'model_reason')",
}


@dataclass
class Snapshot:
    """Every table's rows (sorted) and every chunk's vector by chunk id."""

    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def differences(self, other: Snapshot, atol: float = 1e-4) -> list[str]:
        """What differs, as short human-readable lines (empty when the two agree)."""
        out: list[str] = []
        for table in sorted(set(self.rows) | set(other.rows)):
            mine, theirs = set(self.rows.get(table, [])), set(other.rows.get(table, []))
            if mine != theirs:
                extra, missing = sorted(mine - theirs)[:2], sorted(theirs - mine)[:2]
                out.append(f"{table}: {len(mine - theirs)} extra {extra!r:.300}")
                out.append(f"{table}: {len(theirs - mine)} missing {missing!r:.300}")
        if set(self.vectors) != set(other.vectors):
            out.append(f"vectors: {len(set(self.vectors) ^ set(other.vectors))} chunks differ")
        for key in sorted(set(self.vectors) & set(other.vectors)):
            if not np.allclose(self.vectors[key], other.vectors[key], atol=atol):
                out.append(f"vectors: {key} differs")
                break
        return out


def snapshot(con: duckdb.DuckDBPyConnection) -> Snapshot:
    snap = Snapshot()
    for table, sql in TABLES.items():
        snap.rows[table] = sorted(tuple(r) for r in con.execute(sql).fetchall())
    rows = con.execute(
        "SELECT chunk_id, embedding FROM chunks WHERE embedding IS NOT NULL"
    ).fetchall()
    snap.vectors = {str(r[0]): np.asarray(r[1], dtype=np.float32) for r in rows}
    return snap
