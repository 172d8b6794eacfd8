-- Schema 3: the knowledge graph. Names under which links reach an entity, relationships
-- resolved from links, usage statistics and agent-given relationship metadata (both keyed by
-- ids so that re-indexing content never resets them).
ALTER TABLE links ADD COLUMN key VARCHAR;

CREATE TABLE entity_names (
    entity_id VARCHAR NOT NULL,
    key       VARCHAR NOT NULL,   -- lower-cased id, path, file name, title or alias
    priority  INTEGER NOT NULL    -- 0 id, 1 path, 2 file name, 3 title, 4 alias
);

CREATE TABLE relationships (
    rel_id     VARCHAR NOT NULL,
    source_id  VARCHAR NOT NULL,
    target_id  VARCHAR NOT NULL,
    type       VARCHAR NOT NULL,
    label      VARCHAR,
    confidence DOUBLE NOT NULL,
    origin     VARCHAR NOT NULL,  -- the note whose frontmatter or body holds the link
    source_key UBIGINT NOT NULL,  -- hash(source_id), hash(target_id): integer join keys that
    target_key UBIGINT NOT NULL   -- make path search over 1M relationships 2x faster
);

CREATE TABLE entity_usage (
    entity_id     VARCHAR PRIMARY KEY,
    q_value       DOUBLE NOT NULL,
    access_count  INTEGER NOT NULL,
    last_accessed TIMESTAMP
);

CREATE TABLE relationship_meta (
    rel_id     VARCHAR PRIMARY KEY,
    confidence DOUBLE NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- Links need their key: make the next index pass re-parse every note.
UPDATE notes SET size = -1, file_hash = '';
