"""What an answer says about the index behind it: the `index` object of kb_search,
knowledge_query and the kg_* reads, so an assistant can tell "nothing matches" from "not read
yet" (an MCP client starts the server, and sends its first question, before a new vault has
been indexed)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kbtui.tools.catalog import GRAPH_READS

FIRST_READ_WAIT = 5.0  # seconds an early question waits for the first pass to read the vault
WITH_INDEX_STATE = frozenset(
    {
        "kb_search",
        "app_search",
        "knowledge_query",
        *GRAPH_READS,
        "kg_find_duplicates",
        "base_query",
        "vault_query",
        "app_dataview",
        "vault_links",
        "tasks_list",
        "app_tasks_query",
    }
)
_RESULT_KEYS = ("results", "entities", "path", "duplicates")


def index_state(worker: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    """ready / indexing / embedding, with counts: notes indexed of the note files the last
    scan found (a file that cannot be read stays counted there and is reported by the pass),
    chunks embedded of all chunks (`chunks_not_embedded`: code and data chunks that are only
    keyword-searched, done without a vector), and when a change was last taken in (UTC)."""
    notes, chunks, embedded = stats.get("notes", 0), stats.get("chunks", 0), stats["embedded"]
    not_embedded = stats.get("not_embedded", 0)
    known = worker.get("notes_known")
    known = notes if known is None else known
    busy = worker["state"]
    if busy in ("starting", "indexing", "queued"):
        state = "indexing"
    elif busy == "embedding":
        state = "embedding"
    else:
        state = "ready"
    changed = worker.get("last_change")
    return {
        "state": state,
        "notes_indexed": notes,
        "notes_known": max(known, notes),
        "chunks_embedded": embedded,
        "chunks_total": chunks,
        "chunks_not_embedded": not_embedded,
        "last_change": None
        if changed is None
        else dt.datetime.fromtimestamp(changed, dt.UTC).replace(microsecond=0).isoformat(),
    }


def annotate(answer: dict[str, Any], index: dict[str, Any]) -> dict[str, Any]:
    """Add `index`; an empty answer from an incomplete index says so in `message`."""
    answer["index"] = index
    waiting = index["chunks_total"] - index["chunks_embedded"] - index.get("chunks_not_embedded", 0)
    incomplete = index["state"] != "ready" or waiting > 0
    empty = any(k in answer and not answer[k] for k in _RESULT_KEYS)
    if answer.get("success") and incomplete and empty:
        note = (
            f"The index is still being built ({index['state']}: "
            f"{index['notes_indexed']} of {index['notes_known']} notes read, "
            f"{index['chunks_embedded']} of {index['chunks_embedded'] + waiting} passages "
            "embedded); "
            "this answer may be incomplete - ask again shortly."
        )
        answer["message"] = f"{answer['message']} {note}" if answer.get("message") else note
    return answer
