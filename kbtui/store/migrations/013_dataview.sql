-- Schema 13: what the Dataview plugin reads from a markdown note beside its properties
-- (issue 41; kbtui/vault/obsidian/dv_facts.py): the page's fields (properties and inline
-- fields, also under their simplified names), its tags as written, its day; and every list
-- item (tasks among them) with its parent, section, fields, tags and links. Values are JSON
-- in kbtui.vault.obsidian.dv_values' encoding. Filled as notes are read: the index text
-- version (kbtui/indexing/indexer.py, TEXT_VERSION 6) makes the next pass read every note.
CREATE TABLE IF NOT EXISTS dv_pages (
    entity_id VARCHAR NOT NULL,
    fields    VARCHAR NOT NULL,  -- JSON {key: value}
    etags     VARCHAR NOT NULL,  -- JSON list of "#tag" as written
    day       VARCHAR            -- file.day, when the note has one
);

CREATE TABLE IF NOT EXISTS dv_items (
    entity_id VARCHAR NOT NULL,
    line      INTEGER NOT NULL,  -- 1-based line of the file
    parent    INTEGER NOT NULL,  -- 1-based line of the parent item; 0 at the top of a list
    list_line INTEGER NOT NULL,
    symbol    VARCHAR NOT NULL,
    status    VARCHAR,           -- a task's status character; NULL for a plain list item
    text      VARCHAR NOT NULL,
    line_count INTEGER NOT NULL,
    section   VARCHAR NOT NULL,
    block_id  VARCHAR NOT NULL,
    fields    VARCHAR NOT NULL,  -- JSON {key: [values]}
    tags      VARCHAR NOT NULL,  -- JSON list
    links     VARCHAR NOT NULL,  -- JSON list
    -- a task's dates as Dataview derives them from its fields: the date's text, '?' for a
    -- value that is not a date without a zone, '' for none (what a WHERE compiles to SQL reads)
    due        VARCHAR NOT NULL DEFAULT '',
    completion VARCHAR NOT NULL DEFAULT '',
    created    VARCHAR NOT NULL DEFAULT '',
    start      VARCHAR NOT NULL DEFAULT '',
    scheduled  VARCHAR NOT NULL DEFAULT ''
);
