"""App-only operations for the TUI: reads and actions no spec tool offers.

They go through `KnowledgeBase.call` like the tools (validated arguments, the one envelope,
never a traceback), so a TUI reaching the vault through any VaultHandle can use them, but
they are not published over MCP: their names start with `app_` and they live outside
`ALL_TOOLS`.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from kbtui.models import IndexReport
from kbtui.store import DatabaseError, QueryRefused
from kbtui.tokenize import searchable
from kbtui.tools.contracts.kb import ENTITY_ID_PATTERN, KB_SEARCH, Effects, ToolSpec
from kbtui.tools.envelope import ValidationError, ok
from kbtui.tools.params import Param
from kbtui.tools.parts import VaultParts
from kbtui.tools.write.editor import hand_over, took_in
from kbtui.tools.write.service import NoteWriter, vault_path

EMBED_NOW_LIMIT = 256  # past this many waiting chunks, vectors are the background indexer's job

APP_TOOLS = {
    t.name: t
    for t in (
        ToolSpec(
            "app_facets",
            "What search can be filtered by: note types, tags and folders with note counts.",
            {
                "tag_limit": Param("integer", "Most tags.", default=200, minimum=1, maximum=5000),
                "folder_limit": Param(
                    "integer", "Most folders.", default=500, minimum=1, maximum=5000
                ),
            },
            {"types": [], "tags": [], "folders": []},
        ),
        ToolSpec(
            "app_list_entities",
            "A page of entities by title, of one type or all, with relationship counts.",
            {
                "type": Param("string", "Entity type.", pattern=r"^[a-z_]+$", max_length=50),
                "offset": Param("integer", "First row.", default=0, minimum=0),
                "limit": Param("integer", "Rows.", default=200, minimum=1, maximum=1000),
            },
            {"entities": [], "total": 0},
        ),
        ToolSpec(
            "app_entity_labels",
            "Titles and types of entities, for display (usage statistics are not touched).",
            {
                "ids": Param(
                    "array",
                    "Entity ids.",
                    True,
                    items=Param("string", "Entity id.", max_length=100, pattern=ENTITY_ID_PATTERN),
                    max_items=500,
                ),
            },
            {"entities": []},
        ),
        ToolSpec(
            "app_search",
            "kb_search for the TUI: the same answer, but a query of two ideographs (退款, "
            "refund: a whole word) is searched; kb_search keeps the spec's 3-character minimum.",
            {
                **KB_SEARCH.params,
                "query": replace(
                    KB_SEARCH.params["query"],
                    description="What to look for: 3-500 characters, or 2 ideographs.",
                    min_length=1,
                ),
            },
            KB_SEARCH.empty,
        ),
        ToolSpec(
            "app_reindex",
            "Index these vault-relative paths now (e.g. a note just edited), or the whole vault "
            "(incremental); the report lists notes that could not be indexed and why.",
            {
                "paths": Param(
                    "array",
                    "Vault-relative paths; omit for the whole vault.",
                    items=Param("string", "A path.", min_length=1, max_length=1000),
                    max_items=1000,
                    nullable=True,
                ),
            },
            {"report": None},
        ),
        ToolSpec(
            "app_editor",
            "A note handed to $EDITOR and back: `open` keeps its bytes in the history; `closed` "
            "records the edit as the caller's and indexes it (the report as app_reindex's).",
            {
                "path": Param("string", "A vault path.", True, min_length=1, max_length=1000),
                "action": Param("string", "open or closed.", True, enum=("open", "closed")),
                "hash": Param(
                    "string", "What `open` answered.", pattern=r"^[0-9a-f]{64}$", nullable=True
                ),
            },
            {"report": None},
            effects=Effects(destructive=False, scoped=True),  # the history, not the note
        ),
        ToolSpec(
            "app_sql",
            "One read-only SELECT over the index, for the person at the keyboard (`kbtui "
            "sql`); statements that write are refused.",
            {
                "query": Param(
                    "string", "A SELECT statement.", True, min_length=1, max_length=100_000
                ),
                "max_rows": Param(
                    "integer", "Most rows.", default=1000, minimum=1, maximum=100_000
                ),
            },
            {"columns": [], "rows": [], "truncated": False},
        ),
    )
}


def search_query(args: dict[str, Any]) -> dict[str, Any]:
    """app_search's arguments, once its query is long enough to search (then: kb_search)."""
    if not searchable(args["query"]):
        raise ValidationError(
            "query is too short (min 3 characters, or 2 ideographs)", field="query"
        )
    return args


def facets(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    def named(rows: list[tuple[str, int]]) -> list[dict[str, Any]]:
        return [{"name": name, "count": count} for name, count in rows]

    return ok(
        types=named(parts.store.type_counts()),
        tags=named(parts.store.tag_counts(args["tag_limit"])),
        folders=named(parts.store.folder_counts(args["folder_limit"])),
    )


def list_entities(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    rows, total = parts.store.entity_page(args["type"], args["offset"], args["limit"])
    return ok(entities=rows, total=total, type=args["type"], offset=args["offset"])


def entity_labels(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    ids = list(dict.fromkeys(args["ids"]))
    labels = parts.store.entity_labels(ids)
    return ok(
        entities=[
            {"id": i, "title": labels[i][0], "type": labels[i][1]} for i in ids if i in labels
        ]
    )


def reindex(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """Text, keywords and links at once; vectors too when only a few chunks wait for them
    (an edited note), else the background indexer embeds them without holding up readers."""
    paths = args["paths"]
    if paths is not None:
        for i, path in enumerate(paths):
            pure = PurePosixPath(path)
            if pure.is_absolute() or ".." in pure.parts:
                raise ValidationError(
                    f"paths[{i}] must be relative to the vault, without '..'", field=f"paths[{i}]"
                )
    report = parts.indexer.run(embed=False, paths=paths)
    if parts.embedder is not None and 0 < parts.store.count_pending() <= EMBED_NOW_LIMIT:
        parts.indexer.embed_pending(report)
    return ok(report=_report(report))


def _report(report: IndexReport) -> dict[str, Any]:
    return {
        "new": report.new,
        "changed": report.changed,
        "deleted": report.deleted,
        "renamed": [list(pair) for pair in report.renamed],
        "unchanged": report.unchanged,
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
        "warnings": [{"path": w.path, "reason": w.reason} for w in report.warnings],
        "chunks_embedded": report.chunks_embedded,
        "seconds": round(report.seconds, 3),
    }


def editor(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """The TUI's `e`: the note's bytes to the history before $EDITOR has it, and after it,
    the edit recorded as the caller's (kbtui.tools.write.editor) and indexed."""
    path = vault_path(args["path"])
    writer = NoteWriter(parts)
    if args["action"] == "open":
        return ok(path=path, hash=hand_over(writer, path))
    before = None
    if args.get("hash"):
        with contextlib.suppress(KeyError):
            before = writer.history.data(args["hash"])
    result = took_in(writer, path, before)
    report = _report(writer.last_report) if writer.last_report is not None else None
    return ok(report=report, **result.answer())


def sql(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """Rows as JSON values (dates, decimals and the like as text): the answer may cross the
    owner's socket."""
    try:
        columns, rows, truncated = parts.store.read_only_query(args["query"], args["max_rows"])
    except QueryRefused as exc:
        raise ValidationError(f"refused: {exc}", field="query") from exc
    except DatabaseError as exc:
        raise ValidationError(str(exc), field="query") from exc
    return ok(columns=columns, rows=[[_plain(v) for v in r] for r in rows], truncated=truncated)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)
