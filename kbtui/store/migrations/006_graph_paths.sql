-- Schema 6: the tables kg_find_path's recursive query walks (kbtui/store/graph_paths.py).
-- Derived from `relationships` in the transaction that changes them; no index (an ART
-- index failed WAL replay in the crash suite), so nothing here needs more than a rebuild.
CREATE TABLE IF NOT EXISTS graph_nodes (
    node      INTEGER NOT NULL,   -- a small dense number: the recursion joins on it
    key       UBIGINT NOT NULL,   -- hash(entity_id), as relationships.source_key/target_key
    entity_id VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS graph_edges (
    a      INTEGER NOT NULL,      -- every relationship walked both ways, once per pair,
    b      INTEGER NOT NULL,      -- sorted by `a` when rebuilt so scans skip row groups
    bkey   UBIGINT NOT NULL,      -- b's key: ties between equal paths go to the smallest key
    rel_id VARCHAR NOT NULL       -- the smallest rel_id between the two, either direction
);
