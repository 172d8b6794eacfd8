"""Queries behind the graph map: a neighbourhood's edges and labels, the overview's groups."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from kbtui.store.graph.usage import UsageStore

EdgeRow = tuple[str, str, str, str]  # source id, target id, type, label


class MapQueries(UsageStore):
    """Mixed into Store; lean rows (no frontmatter parsing) since a map may touch 10k ids."""

    con: duckdb.DuckDBPyConnection

    def map_edges(self, ids: Sequence[str], among: bool = False) -> list[EdgeRow]:
        """Relationships with an end among `ids` (`among`: both ends), filtered on the hashed
        keys: one scan per end, since an OR of the two scans the table far slower."""
        if not ids:
            return []
        if among:
            scans = """SELECT * FROM relationships WHERE source_key IN (SELECT key FROM k)
                       AND target_key IN (SELECT key FROM k)"""
        else:
            scans = """SELECT * FROM relationships WHERE source_key IN (SELECT key FROM k) UNION ALL
                       SELECT * FROM relationships WHERE target_key IN (SELECT key FROM k)
                       AND source_key NOT IN (SELECT key FROM k)"""
        rows = self.con.execute(
            f"""WITH k AS (SELECT hash(unnest($ids)) AS key), r AS ({scans})
                SELECT source_id, target_id, type, coalesce(label, '') FROM r
                ORDER BY source_id, target_id, type""",
            {"ids": list(ids)},
        ).fetchall()
        wanted = set(ids)
        if among:  # hashes may collide: the ids decide
            return [(r[0], r[1], r[2], r[3]) for r in rows if r[0] in wanted and r[1] in wanted]
        return [(r[0], r[1], r[2], r[3]) for r in rows if r[0] in wanted or r[1] in wanted]

    def map_link_counts(self, ids: Sequence[str], among: Sequence[str]) -> dict[str, int]:
        """id -> how many of `among` it is linked with, either way (a hub's neighbours are
        ranked by it without fetching every link between them)."""
        if not ids:
            return {}
        rows = self.con.execute(
            """WITH c AS (SELECT unnest($ids) AS id), c2 AS (SELECT id, hash(id) AS key FROM c),
                    a AS (SELECT hash(unnest($among)) AS key),
                    r AS (SELECT source_key AS k, target_key AS o FROM relationships
                          WHERE source_key IN (SELECT key FROM c2)
                            AND target_key IN (SELECT key FROM a)
                          UNION ALL
                          SELECT target_key, source_key FROM relationships
                          WHERE target_key IN (SELECT key FROM c2)
                            AND source_key IN (SELECT key FROM a))
               SELECT c2.id, count(DISTINCT r.o) FROM r JOIN c2 ON c2.key = r.k
               WHERE r.k <> r.o GROUP BY c2.id""",
            {"ids": list(ids), "among": list(among)},
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def map_entities(self, ids: Sequence[str]) -> dict[str, tuple[str, str, float, int]]:
        """id -> (title, type, Q-value, access count) for the ids that are entities."""
        if not ids:
            return {}
        self.flush_usage()
        rows = self.con.execute(
            """SELECT n.entity_id, n.title, n.type, coalesce(u.q_value, 0.5),
                      coalesce(u.access_count, 0)
               FROM notes n LEFT JOIN entity_usage u USING (entity_id)
               WHERE n.entity_id IN (SELECT unnest($ids))""",
            {"ids": list(ids)},
        ).fetchall()
        return {r[0]: (r[1], r[2], float(r[3]), int(r[4])) for r in rows}

    def map_type_counts(self) -> list[tuple[str, int]]:
        """(entity type, notes of that type), biggest first."""
        rows = self.con.execute(
            "SELECT type, count(*) AS n FROM notes GROUP BY type ORDER BY n DESC, type"
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def map_type_links(self) -> list[tuple[str, str, int]]:
        """(type, other type, relationships between them), each unordered pair once."""
        rows = self.con.execute(
            """SELECT least(s.type, t.type), greatest(s.type, t.type), count(*) AS n
               FROM relationships r JOIN notes s ON s.entity_id = r.source_id
               JOIN notes t ON t.entity_id = r.target_id
               WHERE s.type <> t.type GROUP BY ALL ORDER BY n DESC"""
        ).fetchall()
        return [(r[0], r[1], int(r[2])) for r in rows]

    def map_type_members(self, entity_type: str, limit: int) -> tuple[list[str], int]:
        """Ids of one type, most linked (then most used) first, and how many there are."""
        self.flush_usage()
        rows = self.con.execute(
            """WITH m AS (SELECT entity_id, hash(entity_id) AS key FROM notes WHERE type = $type),
                    d AS (SELECT key, count(*) AS n FROM (
                              SELECT source_key AS key FROM relationships
                              UNION ALL SELECT target_key FROM relationships)
                          WHERE key IN (SELECT key FROM m) GROUP BY key)
               SELECT m.entity_id FROM m LEFT JOIN d USING (key)
               LEFT JOIN entity_usage u USING (entity_id)
               ORDER BY coalesce(d.n, 0) DESC, coalesce(u.q_value, 0.5) DESC, m.entity_id""",
            {"type": entity_type},
        ).fetchall()
        return [r[0] for r in rows[:limit]], len(rows)
