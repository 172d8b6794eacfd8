"""Which notes this process's writes changed, so a holder of pages (kbtui/dataview/held.py)
re-reads only their states after a save instead of every note's (10k rows: ~20 ms a query)."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

KEPT = 64  # writes remembered; a holder further behind reads every note's state again


class NoteChanges:
    """Mixed into Store: `write_notes` and `delete_notes` log here at each text_generation."""

    con: duckdb.DuckDBPyConnection
    text_generation: int

    def _init_note_changes(self) -> None:
        self._note_log: list[tuple[int, frozenset[str] | None]] = []

    def _notes_changed(self, paths: frozenset[str] | None) -> None:
        """Log the write that made this text_generation: the note paths it wrote or removed
        (None: not known, e.g. a delete by entity id)."""
        self._note_log.append((self.text_generation, paths))
        del self._note_log[:-KEPT]

    def notes_changed_since(self, text_generation: int) -> frozenset[str] | None:
        """The paths written since `text_generation`, or None when the log cannot say."""
        since = [paths for g, paths in self._note_log if g > text_generation]
        if len(since) != self.text_generation - text_generation:
            return None  # older than the log, or a write it did not see
        if any(paths is None for paths in since):
            return None
        return frozenset[str]().union(*since)  # type: ignore[arg-type]

    def note_states_of(self, paths: Sequence[str]) -> dict[str, tuple[str, int, int, str]]:
        """note_states for these paths only (those still indexed)."""
        rows = self.con.execute(
            "SELECT path, entity_id, size, mtime_ns, file_hash FROM notes "
            "WHERE list_contains(?, path)",
            [list(paths)],
        )
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows.fetchall()}
