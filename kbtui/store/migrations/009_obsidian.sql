-- Schema 9: what Obsidian's own commands answer (issue 29). Each link's form (a wikilink, a
-- markdown link, or a relation key's bare value, which Obsidian does not read as a link), and
-- the vault's tasks: `- [c] text` list items with the Tasks plugin's and Dataview's fields.
ALTER TABLE links ADD COLUMN IF NOT EXISTS form VARCHAR DEFAULT 'wiki';

CREATE TABLE IF NOT EXISTS tasks (
    entity_id  VARCHAR NOT NULL,
    line       INTEGER NOT NULL,  -- 1-based line of the file
    status     VARCHAR NOT NULL,  -- the character between the brackets
    text       VARCHAR NOT NULL,  -- the line as written
    due        VARCHAR NOT NULL,
    scheduled  VARCHAR NOT NULL,
    start      VARCHAR NOT NULL,
    done       VARCHAR NOT NULL,
    priority   VARCHAR NOT NULL,
    recurrence VARCHAR NOT NULL
);

-- Markdown links and tasks are read from the notes: the next pass re-reads every note, as the
-- link rule's version (kbtui.vault.names.ID_RULE_VERSION) changed with this schema.
