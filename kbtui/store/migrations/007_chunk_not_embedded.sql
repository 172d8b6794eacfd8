-- Schema 7: why a chunk is not embedded (kbtui.vault.meaning: 'code', 'data' or 'markup'), or
-- NULL for a chunk that gets a vector. Such chunks stay keyword-searchable and readable; they
-- are done, not waiting for a vector. Old rows stay NULL until the next pass re-reads every
-- note (the index text version changed with it).
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS not_embedded VARCHAR;
