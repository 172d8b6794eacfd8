-- Schema 4: a note with an empty body but with properties now gets one chunk of its
-- properties (kbtui.vault.chunk.properties_chunk), so it can be found. Make the next index
-- pass re-read the notes that have no chunk (size -1 and no file hash never match a file).
UPDATE notes SET size = -1, file_hash = ''
WHERE entity_id NOT IN (SELECT DISTINCT entity_id FROM chunks);
