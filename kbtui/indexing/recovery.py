"""Writes a killed process left half done, finished before the vault is read.

A process killed in the middle of a note write (kbtui.vault.edit.swap) may leave the note
renamed aside: a pass that scanned the vault then would take the note for deleted (and the
history would say so). So every index pass and every write first runs `recover_writes`: the
note goes back under its name, the file kept aside goes to the history, and a replacement that
landed before the kill is recorded as the writer's version (its source and operation come
from the journal's memo, written by kbtui.tools.write).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from kbtui.store.history import History
from kbtui.vault.edit.swap import Recovered, keep_dir, recover


def memo(source: str, operation: str, added: int, removed: int) -> str:
    """What a writer's journal says of it, for `recover_writes`."""
    return json.dumps(
        {"source": source, "operation": operation, "added": added, "removed": removed}
    )


def recover_writes(vault: Path, index_dir: Path, history: History | None) -> list[Recovered]:
    """Finish the dead writers' writes in this vault; the history hears of each."""

    def settle(done: Recovered) -> None:
        if history is None:
            return
        try:
            rel = done.note.relative_to(vault).as_posix()
        except ValueError:
            return
        if done.kept is not None:
            history.note_kept(done.kept, rel, None)
        if not done.new_hash:
            return
        try:
            data = done.note.read_bytes()
        except OSError:
            return
        if hashlib.sha256(data).hexdigest() != done.new_hash:
            return  # the replacement did not land
        newest = history.newest(rel)
        if newest is not None and newest.hash == done.new_hash:
            return  # recorded before the kill
        try:
            said = json.loads(done.memo)
            who = (str(said["source"]), str(said["operation"]))
            lines = (int(said.get("added", 0)), int(said.get("removed", 0)))
        except (ValueError, KeyError, TypeError):
            who, lines = ("external", "written by a kbtui write cut short"), (0, 0)
        history.record(rel, data, *who, *lines)

    return recover(keep_dir(index_dir), settle)
