-- Schema 1: notes, chunks (vectors in an ordinary FLOAT[384] column, no persisted HNSW index),
-- BM25 postings keyed by 64-bit term hashes, tags and links.
CREATE TABLE notes (
    entity_id     VARCHAR PRIMARY KEY,
    path          VARCHAR NOT NULL,
    type          VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    title         VARCHAR NOT NULL,
    folder        VARCHAR NOT NULL,
    frontmatter   JSON,
    aliases       VARCHAR[],
    size          BIGINT NOT NULL,
    mtime_ns      BIGINT NOT NULL,
    file_hash     VARCHAR NOT NULL,
    chunk_size    INTEGER NOT NULL,
    chunk_overlap INTEGER NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    indexed_at    TIMESTAMP NOT NULL
);

-- cid: integer key used by postings and the in-memory vector matrix; chunk_id: the public id.
CREATE TABLE chunks (
    cid          BIGINT NOT NULL,
    chunk_id     VARCHAR NOT NULL,
    entity_id    VARCHAR NOT NULL,
    chunk_index  INTEGER NOT NULL,
    heading      VARCHAR NOT NULL,
    content      VARCHAR NOT NULL,
    start_pos    INTEGER NOT NULL,
    end_pos      INTEGER NOT NULL,
    content_hash VARCHAR NOT NULL,
    n_terms      INTEGER NOT NULL,
    embedding    FLOAT[384]
);

CREATE TABLE postings (
    term BIGINT NOT NULL,
    cid  BIGINT NOT NULL,
    tf   INTEGER NOT NULL
);

CREATE TABLE tags (
    entity_id VARCHAR NOT NULL,
    tag       VARCHAR NOT NULL
);

CREATE TABLE links (
    entity_id VARCHAR NOT NULL,
    target    VARCHAR NOT NULL,
    rel       VARCHAR NOT NULL,
    heading   VARCHAR NOT NULL,
    label     VARCHAR NOT NULL
);
