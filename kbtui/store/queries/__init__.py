"""Reads for the query layer and the TUI: chunks and notes by id, browsing by type, tag and
folder, and the read-only SQL console."""
