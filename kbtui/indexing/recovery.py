"""Writes a killed process left half done, finished before the vault is read.

A process killed in the middle of a note write (kbtui.vault.edit.swap) may leave the note
renamed aside: a pass that scanned the vault then would take the note for deleted (and the
history would say so). So every index pass and every write first runs `recover_writes`: the
note goes back under its name, the file kept aside goes to the history, and a replacement that
landed before the kill is recorded as the writer's version, a delete that reached the trash as
the writer's deletion (their source and operation come from the journal's memo, written by
kbtui.tools.write).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from kbtui.store.history import History
from kbtui.vault.edit.swap import Recovered, keep_dir, recover


def memo(source: str, operation: str, added: int, removed: int) -> str:
    """What a writer's journal says of it, for `recover_writes`."""
    return json.dumps(
        {"source": source, "operation": operation, "added": added, "removed": removed}
    )


def recover_writes(vault: Path, index_dir: Path, history: History | None) -> list[Recovered]:
    """Finish the dead writers' writes in this vault; the history (opened here if the
    caller has none) hears of each."""
    opened: list[History] = []

    def settle(done: Recovered) -> None:
        nonlocal history
        if history is None:
            history = History(index_dir)
            opened.append(history)
        try:
            rel = done.note.relative_to(vault).as_posix()
        except ValueError:
            return
        if done.kept is not None:
            history.note_kept(done.kept, rel, None)
        try:
            said = json.loads(done.memo)
            who = (str(said["source"]), str(said["operation"]))
            lines = (int(said.get("added", 0)), int(said.get("removed", 0)))
        except (ValueError, KeyError, TypeError):
            who, lines = ("external", "written by a kbtui write cut short"), (0, 0)
        newest = history.newest(rel)
        if not done.new_hash:  # a move (a delete to the trash): did it reach its target?
            if not os.path.lexists(done.note) and newest is not None and newest.hash:
                history.record(rel, None, *who, *lines)
            return
        try:
            data = done.note.read_bytes()
        except OSError:
            return
        if hashlib.sha256(data).hexdigest() != done.new_hash:
            return  # the replacement did not land
        if newest is None or newest.hash != done.new_hash:  # else recorded before the kill
            history.record(rel, data, *who, *lines)

    try:
        return recover(keep_dir(index_dir), settle)
    finally:
        for own in opened:
            own.close()
