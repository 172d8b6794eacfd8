"""Writing in the TUI (issue 40): a new note from a template, quick capture, a note's history,
the vault's latest changes with undo, deleting a note. Every write is a tool call
(`KbApp.tool`: note_write, note_delete, note_history, daily_append, app_changes), so it goes
through the one write path (preconditions, history, index). The in-app editor, its conflict
view and review mode are elsewhere; `new_note.open_created` is where a new note opens."""
