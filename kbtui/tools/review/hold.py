"""Holding an assistant's write for review instead of writing it.

Under review (`kbtui mcp --review`, or the vault's review setting the TUI turns on), a call
from an assistant (an `mcp:` origin) that would write is not run: its dry run is, through the
same handler and write path (scope, targets, encoding and hash checks all apply), and what it
would write is stored as a proposal (kbtui.store.history.proposals) with the hash of the note
it was proposed against. The tool answers that the change awaits review, with the proposal's
id; `note_history {action: proposal}` tells its state later. Only the note tools can be held
(`Effects.reviewable`: a dry run shows their change and they take expected_hash); the other
writing tools are refused while held, naming the ones that can.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbtui.store.history import History, Proposals
from kbtui.textdiff import content_hash
from kbtui.tools.contracts.kb import ToolSpec
from kbtui.tools.envelope import ok
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.dry import dry_runs
from kbtui.tools.write.origin import current
from kbtui.tools.write.service import ForbiddenError, NoteWriter

ASSISTANT = "mcp:"  # the origins whose writes review mode holds
NOTE_WRITERS = "note_write, note_edit or note_delete"
Run = Callable[[dict[str, Any]], dict[str, Any]]


def proposals(parts: VaultParts) -> Proposals:
    history: History = parts.history if parts.history is not None else NoteWriter(parts).history
    return history.proposals


def held(parts: VaultParts, spec: ToolSpec, args: dict[str, Any]) -> bool:
    """True when this call is to be held as a proposal rather than run; ForbiddenError when
    it would write, is to be held and cannot be."""
    origin = current()
    if not origin.source.startswith(ASSISTANT) or spec.reads(args):
        return False
    if not (origin.review or proposals(parts).review_on()):
        return False
    if not spec.effects.reviewable:
        raise ForbiddenError(
            f"{origin.source}'s writes are held for review here and {spec.name} cannot be; "
            f"not run. Change notes with {NOTE_WRITERS}: the person reviews those"
        )
    return True


def propose(parts: VaultParts, spec: ToolSpec, args: dict[str, Any], run: Run) -> dict[str, Any]:
    """The call's dry run kept as a proposal; the answer says it awaits review. A call the
    write would refuse (a stale hash, a missing heading) is refused now, as it would be."""
    with dry_runs() as seen:
        answer = run({**args, "dry_run": True})
    if not answer.get("ok") or not seen:
        return answer
    path, before, after = seen[-1]
    base_hash = None if before is None else content_hash(before)
    answer = {k: v for k, v in answer.items() if k not in ("dry_run", "ok", "success", "message")}
    if before == after:
        return ok(**{**answer, "hash": base_hash, "changed": False},
                  message=f"{spec.name} {path}: no change, nothing to review")  # fmt: skip
    kept = {k: v for k, v in args.items() if k != "dry_run" and v is not None}
    proposal = proposals(parts).add(
        current().source,
        spec.name,
        kept,
        path,
        before,
        base_hash,
        after,
        None if after is None else content_hash(after),
        int(answer.get("added") or 0),
        int(answer.get("removed") or 0),
        str(answer.get("diff") or ""),
    )
    number = proposal.id
    message = (
        f"held for review as proposal {number}: {spec.name} on {path} is written only when "
        f"the person accepts it (note_history action proposal, version {number}: its state)"
    )
    return ok(
        **{**answer, "hash": base_hash, "changed": False},
        pending=True,
        proposal=number,
        message=message,
    )
