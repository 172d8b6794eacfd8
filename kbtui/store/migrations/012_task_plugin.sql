-- Schema 12: each task's nearest heading above it (the Tasks plugin's `heading` filter, sort
-- and group) and the plugin's reading of its line, packed (kbtui.vault.obsidian.task_line.
-- pack), so a Tasks query parses no line (issue 41). Filled when notes are read: the next
-- pass re-reads every note, as the tasks rule's version (kbtui.vault.obsidian.tasks.VERSION)
-- changed with this schema.
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS heading VARCHAR DEFAULT '';
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS plugin VARCHAR DEFAULT '';
