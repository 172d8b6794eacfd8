-- Schema 11: each note's tags as written (issue 42): `#` first and the case the note uses,
-- frontmatter then body, each written form once, in `pos` order. Bases' `file.tags` reads
-- them; `tags` stays lower case without `#` for matching (file.hasTag, search filters).
CREATE TABLE IF NOT EXISTS file_tags (
    entity_id VARCHAR NOT NULL,
    pos       INTEGER NOT NULL,
    tag       VARCHAR NOT NULL
);

-- The written forms come from the notes' text: read every note again (vectors are reused by
-- their chunks' content hashes, so nothing is embedded again).
UPDATE notes SET size = -1, file_hash = '';
