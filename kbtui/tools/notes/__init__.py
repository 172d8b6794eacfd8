"""The note tools (issue 39): note_read, note_write, note_edit, note_delete, note_history,
each through the one write path (kbtui.tools.write), shared by the CLI, MCP and the TUI."""
