"""Obsidian's own conventions inside a vault: tasks, markdown links, daily notes."""
