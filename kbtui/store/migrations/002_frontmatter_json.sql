-- Schema 2: schema 1 stored frontmatter as a JSON *string* and lost aliases: numpy str columns
-- register as ENUM, and ENUM::JSON quotes the text. Unwrap frontmatter, and make the next
-- index pass re-parse every note (size -1 and no file hash never match a file) so aliases are
-- rebuilt; chunk vectors are kept, as their content hashes do not change.
UPDATE notes SET frontmatter = json(frontmatter ->> '$') WHERE json_type(frontmatter) = 'VARCHAR';
UPDATE notes SET size = -1, file_hash = '';
