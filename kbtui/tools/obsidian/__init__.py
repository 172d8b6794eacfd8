"""Obsidian's own vault commands (issue 29): links, tasks, the daily note, outline, tags,
properties and search with context."""
