"""Obsidian's own conventions inside a vault: tasks, markdown links, daily notes, where a
new note goes."""
