-- Schema 11: each task's nearest heading above it (the Tasks plugin's `heading` filter, sort
-- and group, issue 41). Filled when notes are read: the next pass re-reads every note, as the
-- tasks rule's version (kbtui.vault.obsidian.tasks.VERSION) changed with this schema.
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS heading VARCHAR DEFAULT '';
