-- Schema 5: the text of a chunk as Obsidian's reading view shows it (kbtui.vault.hidden: no
-- %%comments%%, no HTML markup), kept only when it differs from the chunk's content. It is what
-- the model embeds and what snippets show; NULL means "the content itself". Old rows stay NULL
-- until the next pass re-reads every note (the index text version changed with it).
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS shown VARCHAR;
