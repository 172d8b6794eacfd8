-- Schema 10: links resolved at index time as Obsidian resolves them (issue 29), so that the
-- vault-wide link answers (unresolved, orphans, deadends) are joins, not a resolution of every
-- link per call; kept current by the writes that touch a note or a name it links by. Filled
-- by the relation rule's rebuild (RELATION_RULE 4). `via`: the key of the note a canvas edge
-- starts from (the edge's own card), empty for every other link, whose source is its note.
CREATE TABLE IF NOT EXISTS link_dest (  -- one row per link, as `links` (its bare values out)
    entity_id VARCHAR NOT NULL,   -- the linking note
    target    VARCHAR NOT NULL,   -- the target as written
    key       VARCHAR NOT NULL,   -- the link's key (kbtui.store.graph.links.link_key)
    dest      VARCHAR             -- the note it opens in Obsidian; NULL: none (unresolved)
);

ALTER TABLE links ADD COLUMN IF NOT EXISTS via VARCHAR DEFAULT '';

-- Canvas edges run from card to card now: read every canvas again.
UPDATE notes SET size = -1, file_hash = '' WHERE lower(path) LIKE '%.canvas';
