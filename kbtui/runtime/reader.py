"""One read for a one-shot command that needs only the index: `kbtui dataview` and
`kbtui tasks:query` (issue 41: a fresh CLI answers within 1 s on 10k notes).

Opened the usual way (kbtui.runtime.shared), such a command built the whole knowledge base
for one call: the search service, the indexer, the history, every tool, the worker thread,
and imported them all (markdown parsing, PDF, the graph tools: ~0.3 s of the start-up). Here
the index is opened alone and the one tool runs on it, with the dispatch's checks (arguments
validated, one envelope, never a traceback) and the `index` the runtime adds, as a one-shot
owner states it (nothing being indexed). When another process holds the index (an owner
serving it, a command finishing), or the file cannot be opened here, the caller takes the
shared path, which reaches the owner or says why not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbtui.config import Settings

if TYPE_CHECKING:
    from kbtui.tools.parts import VaultParts

Run = Callable[["VaultParts", dict[str, Any]], dict[str, Any]]


def _dataview(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    from kbtui.tools.dataview import DataviewTools

    return DataviewTools(parts).app_dataview(args)


def _tasks_query(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    from kbtui.tools.obsidian.tasks_query import tasks_query

    return tasks_query(parts, args)


# The tools a one-shot read may run on the store alone, as the tool table runs them.
READERS: dict[str, Run] = {"app_dataview": _dataview, "app_tasks_query": _tasks_query}


def read_once(settings: Settings, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """Tool `name`'s answer from the index opened here, or None when this process cannot
    open it (held by another process, damaged, ...): the caller then takes the shared path."""
    from kbtui.indexing.recovery import recover_writes
    from kbtui.runtime.index_state import annotate, index_state
    from kbtui.runtime.remote import RemoteVault
    from kbtui.store import DatabaseError, Store, StoreError
    from kbtui.tools.contracts.dataview import APP_DATAVIEW
    from kbtui.tools.contracts.obsidian import APP_VAULT_TOOLS
    from kbtui.tools.envelope import UnavailableError, guarded
    from kbtui.tools.params import validate
    from kbtui.tools.parts import VaultParts
    from kbtui.tools.write.scope import check_call

    run = READERS[name]
    spec = APP_DATAVIEW if name == "app_dataview" else APP_VAULT_TOOLS[name]
    if not settings.db_path.exists():
        return None  # a new index is made (and said so) by the shared path
    owner = RemoteVault.connect(settings)
    if owner is not None:  # it answers from what it holds, without loading DuckDB here
        owner.close()
        return None
    try:
        store = Store(settings.db_path)
    except StoreError:
        return None
    try:
        recover_writes(settings.vault, settings.index_dir, None)  # as every open does
        parts = VaultParts.store_only(settings, store)

        def call() -> dict[str, Any]:
            check_call(spec, args)
            try:
                return run(parts, validate(spec.params, args))
            except (StoreError, DatabaseError) as exc:
                raise UnavailableError(f"the index is unavailable: {exc}") from exc

        worker = {"state": "idle", "notes_known": None, "last_change": None}  # a one-shot's
        return annotate(guarded(call, name, spec.empty), index_state(worker, store.stats()))
    finally:
        store.close()
