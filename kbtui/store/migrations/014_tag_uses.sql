-- Schema 14: how often a note writes each of its tags (issue 42): Obsidian's CLI counts a
-- tag's occurrences (`tag name=x total`), not only the notes carrying it. Filled as notes are
-- read: the index text version (kbtui/indexing/indexer.py, TEXT_VERSION 7) makes the next
-- pass read every note (vectors are reused by their chunks' content hashes).
ALTER TABLE file_tags ADD COLUMN IF NOT EXISTS uses INTEGER DEFAULT 1;
