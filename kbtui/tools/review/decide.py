"""The person's side of review mode (the TUI's app_* operations, not published): the
proposals and their diffs, the vault's review setting, and the decisions.

- accept: the held call run as proposed, with the hash of the note it was proposed against
  (expected_hash), as the assistant that asked (the history names it); a note changed since
  is refused as stale and the proposal stays pending, so the person sees the conflict. With
  `hash` (the note as the person saw it in the conflict): the call applied to the note as it
  is now (an edit re-finds its section; the text it replaces goes to the history).
- reject: nothing written.
- copy: the proposed text saved as a new note beside the original (`Name (proposal N).md`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbtui.textdiff import content_hash
from kbtui.tools.contracts.kb import READ, ToolSpec
from kbtui.tools.envelope import ConflictError, NotFoundError, ValidationError, ok
from kbtui.tools.params import Param
from kbtui.tools.parts import VaultParts
from kbtui.tools.review.hold import proposals
from kbtui.tools.write.dry import dry_runs
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.vault.edit.codec import EncodingError, decode_for_edit

Call = Callable[[str, dict[str, Any]], dict[str, Any]]
_ID = Param("integer", "A proposal's id.", minimum=1)
DECIDED_SHOWN = 50  # decided proposals listed after the pending ones

APP_PROPOSALS = ToolSpec(
    "app_proposals",
    "Writes held for review: `count` (pending, and whether review is on), `list` (pending "
    "first, then the latest decided), `get` one with its texts (before, proposed, now).",
    {
        "action": Param(
            "string", "count, list or get.", default="count", enum=("count", "list", "get")
        ),
        "id": _ID,
    },
    {"pending": 0, "review": False},
    effects=READ,
)
APP_REVIEW = ToolSpec(
    "app_review",
    "Decide a held write: accept (as proposed; with `hash`: applied to the note as it is now), "
    "reject, copy (the proposed text as a new note); `mode` turns the vault's review on or off.",
    {
        "action": Param("string", "", True, enum=("accept", "reject", "copy", "mode")),
        "id": _ID,
        "hash": Param("string", "The note's hash as the person saw it.", pattern=r"^[0-9a-f]{64}$"),
        "on": Param("boolean", "Review on (mode)."),
    },
    {"proposal": None},
)
REVIEW_TOOLS = {t.name: t for t in (APP_PROPOSALS, APP_REVIEW)}


def app_proposals(parts: VaultParts, call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`call` runs a tool without holding it for review (Toolset.call_unheld): `get` dry-runs
    the proposal on the note as it is now (what accept with the current hash would write)."""
    store = proposals(parts)
    counts = {"pending": store.pending_count(), "review": store.review_on()}
    if args["action"] == "count":
        return ok(**counts)
    if args["action"] == "list":
        pending = store.listed("pending", limit=1000)
        latest = store.listed(limit=DECIDED_SHOWN + len(pending))
        decided = [p for p in latest if p.state != "pending"]
        shown = [p.as_dict() for p in [*pending, *decided[:DECIDED_SHOWN]]]
        return ok(**counts, proposals=shown, count=len(shown))
    number = _required(args)
    proposal = store.get(number)
    if proposal is None:
        raise NotFoundError(f"no proposal {number}")
    before, after = store.texts(number)
    file = parts.settings.vault / proposal.path
    now = file.read_bytes() if file.is_file() else None
    current = None if now is None else content_hash(now)
    applied: dict[str, Any] = {"applies": now == before, "applied_text": _text(after)}
    if now != before and now is not None and before is not None and proposal.state == "pending":
        applied = _applied(call, proposal.tool, {**proposal.args, "expected_hash": current})
    return ok(
        **counts,
        proposal=proposal.as_dict(),
        base_text=_text(before),
        proposed_text=_text(after),
        current_text=_text(now),
        current_hash=current,
        **applied,
    )


def _applied(call: Call, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """What the held call would write to the note as it is now (its dry run), or why not."""
    with dry_runs() as seen:
        answer = call(tool, {**args, "dry_run": True})
    if not answer.get("ok") or not seen:
        return {"applies": False, "applied_text": None, "apply_error": answer.get("message")}
    return {"applies": True, "applied_text": _text(seen[-1][2])}


def app_review(parts: VaultParts, call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """`call` runs a tool without holding it for review (Toolset.call_unheld)."""
    store = proposals(parts)
    action = args["action"]
    if action == "mode":
        on = bool(args["on"])
        store.set_review(on)
        state = "on: assistants' writes wait for review" if on else "off"
        return ok(review=on, proposal=None, message=f"review {state}")
    number = _required(args)
    proposal = store.get(number)
    if proposal is None:
        raise NotFoundError(f"no proposal {number}")
    if proposal.state != "pending":
        raise ConflictError(f"proposal {number} was {proposal.state} already")
    where = f"proposal {number} ({proposal.tool} on {proposal.path})"
    if action == "reject":
        _decide(store.decide(number, "rejected", "rejected; nothing written"), number)
        return ok(proposal=number, message=f"{where} rejected; nothing written")
    if action == "copy":
        return _copy(parts, call, number, where)
    run = dict(proposal.args)
    expected = args.get("hash") or proposal.base_hash
    if proposal.base_hash is None and args.get("hash"):
        raise ValidationError(
            f"{where} makes a new note, and a file is there now: save it as a copy", "hash"
        )
    if expected is not None:
        run["expected_hash"] = expected
    with acting_as(Origin(proposal.source)):  # the history names the assistant that asked
        answer = call(proposal.tool, run)
    if not answer.get("ok"):
        return answer  # stale: still pending, for the person to see the conflict
    outcome = str(answer.get("message") or "accepted")
    _decide(store.decide(number, "accepted", outcome, answer.get("hash")), number)
    return ok(**{k: v for k, v in answer.items() if k not in ("ok", "success", "message")},
              proposal=number, message=f"{where} accepted: {outcome}")  # fmt: skip


def _copy(parts: VaultParts, call: Call, number: int, where: str) -> dict[str, Any]:
    store = proposals(parts)
    proposal = store.get(number)
    assert proposal is not None
    _, after = store.texts(number)
    if after is None:
        raise ValidationError(f"{where} deletes the note: there is no text to copy", "action")
    folder, _, name = proposal.path.rpartition("/")
    stem = name[:-3] if name.lower().endswith(".md") else name
    target = f"{folder}/{stem} (proposal {number})" if folder else f"/{stem} (proposal {number})"
    args = {"path": target, "content": _text(after), "mode": "create"}
    with acting_as(Origin(proposal.source)):
        answer = call("note_write", args)
    if not answer.get("ok"):
        return answer
    copied = str(answer["path"])
    _decide(store.decide(number, "copied", f"saved as {copied}", answer.get("hash")), number)
    return ok(proposal=number, path=copied, hash=answer.get("hash"),
              message=f"{where} saved as {copied}; {proposal.path} unchanged")  # fmt: skip


def _decide(done: bool, number: int) -> None:
    if not done:
        raise ConflictError(f"proposal {number} was decided meanwhile (another kbtui?)")


def _required(args: dict[str, Any]) -> int:
    if args.get("id") is None:
        raise ValidationError("id is required", field="id")
    return int(args["id"])


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return decode_for_edit(data).text
    except EncodingError:
        return data.decode("utf-8", errors="replace")
