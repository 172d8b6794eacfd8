"""App-only operations for the TUI: reads and actions no spec tool offers.

They go through `KnowledgeBase.call` like the tools (validated arguments, the one envelope,
never a traceback), so a TUI reaching the vault through any VaultHandle can use them, but
they are not published over MCP: their names start with `app_` and they live outside
`ALL_TOOLS`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from kbtui.tools.envelope import ValidationError, ok
from kbtui.tools.kb_contracts import ENTITY_ID_PATTERN, ToolSpec
from kbtui.tools.params import Param
from kbtui.tools.parts import VaultParts

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
    )
}


def app_handlers(parts: VaultParts) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """The handler of each app tool, bound to one knowledge base."""
    return {
        "app_facets": lambda args: facets(parts, args),
        "app_list_entities": lambda args: list_entities(parts, args),
        "app_entity_labels": lambda args: entity_labels(parts, args),
        "app_reindex": lambda args: reindex(parts, args),
    }


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
    return ok(
        report={
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
    )
