"""The one write path: every tool that changes a note goes through `NoteWriter`."""
