"""The one table of tools - name -> contract -> handler - and the one dispatch behind it.

The CLI, the TUI and the MCP server all reach a vault's tools through `Toolset.call`. MCP
publishes the contracts in `PUBLISHED`; the TUI's `app_*` operations go through the same
dispatch (validated, one envelope, never a traceback) but are not published.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbtui.store import DatabaseError, StoreError
from kbtui.tools import browse
from kbtui.tools.bases import BaseTools
from kbtui.tools.browse import APP_TOOLS
from kbtui.tools.catalog import GRAPH_READS, READS
from kbtui.tools.catalog import PUBLISHED as CATALOGUE
from kbtui.tools.chunk_view import get_chunk
from kbtui.tools.contracts.bases import BASE_TOOLS
from kbtui.tools.contracts.dataview import APP_DATAVIEW
from kbtui.tools.contracts.graph import KG_TOOLS
from kbtui.tools.contracts.graph_map import APP_GRAPH_MAP, KG_GRAPH_IMAGE
from kbtui.tools.contracts.kb import KB_TOOLS, ToolSpec
from kbtui.tools.contracts.links import LINK_MENTION, LINK_TOOLS, NOTE_MENTIONS
from kbtui.tools.contracts.notes import APP_NOTE_TOOLS, NOTE_TOOLS
from kbtui.tools.contracts.obsidian import APP_VAULT_TOOLS, VAULT_TOOLS
from kbtui.tools.contracts.query import VAULT_QUERY
from kbtui.tools.dataview import DataviewTools
from kbtui.tools.envelope import ToolError, UnavailableError, ValidationError, guarded
from kbtui.tools.graph import context, map_tools
from kbtui.tools.graph.links import LinkTools
from kbtui.tools.graph.read import KnowledgeGraph
from kbtui.tools.graph.rename import Renamer
from kbtui.tools.graph.write import GraphWriter
from kbtui.tools.importer import import_document
from kbtui.tools.kb import KbTools
from kbtui.tools.notes import changes as note_changes
from kbtui.tools.notes import edit as note_edit
from kbtui.tools.notes import files as note_files
from kbtui.tools.notes import history as note_history
from kbtui.tools.obsidian import daily as obsidian_daily
from kbtui.tools.obsidian import links as obsidian_links
from kbtui.tools.obsidian import notes as obsidian_notes
from kbtui.tools.obsidian import tasks as obsidian_tasks
from kbtui.tools.obsidian import tasks_query as obsidian_tasks_query
from kbtui.tools.obsidian.completion import APP_LINK_NAMES, link_names
from kbtui.tools.params import validate
from kbtui.tools.parts import VaultParts
from kbtui.tools.review import decide as review
from kbtui.tools.review.hold import held, propose
from kbtui.tools.vault_query import QueryTools
from kbtui.tools.write.scope import check_call

Handler = Callable[["Toolset", dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    run: Handler
    published: bool = True  # offered over MCP; app_* operations are not


def _kb(name: str) -> Tool:
    return Tool(KB_TOOLS[name], lambda t, a: getattr(t.kb, name)(a))


def _graph(name: str) -> Tool:
    return Tool(KG_TOOLS[name], lambda t, a: getattr(t.graph, name)(a))


def _writer(name: str) -> Tool:
    return Tool(KG_TOOLS[name], lambda t, a: getattr(t.writer, name)(a))


def _extract(t: Toolset, a: dict[str, Any]) -> dict[str, Any]:
    """kg_extract_*: the entity extractor (kbtui.graph.extract, its gazetteer and rules) is
    imported on the first such call, so a read-only command does not pay for it."""
    from kbtui.tools.graph.extract import extract_tool

    return extract_tool(t.writer, a)


def _duplicates(t: Toolset, a: dict[str, Any]) -> dict[str, Any]:
    from kbtui.tools.graph.extract import duplicates_tool

    return duplicates_tool(t.graph, a)


def _app(name: str, run: Callable[[VaultParts, dict[str, Any]], dict[str, Any]]) -> Tool:
    return Tool(APP_TOOLS[name], lambda t, a: run(t.parts, a), published=False)


def _vault_app(run: Callable[[VaultParts, dict[str, Any]], dict[str, Any]]) -> Handler:
    return lambda t, a: run(t.parts, a)


TOOLS: dict[str, Tool] = {
    tool.spec.name: tool
    for tool in (
        _kb("kb_search"),
        _kb("kb_get"),
        Tool(KB_TOOLS["get_chunk"], lambda t, a: get_chunk(t.parts, a)),
        Tool(KB_TOOLS["knowledge_import"], lambda t, a: import_document(t.parts, a)),
        _kb("knowledge_query"),
        _graph("kg_get_entity"),
        _graph("kg_find_entity"),
        _graph("kg_get_neighbors"),
        _graph("kg_find_path"),
        _graph("kg_get_high_utility_entities"),
        _graph("kg_get_context"),
        Tool(
            KG_TOOLS["kg_get_phase_context"],
            lambda t, a: context.kg_get_phase_context(t.graph, a),
        ),
        _writer("kg_create_entity"),
        _writer("kg_create_relationship"),
        _writer("kg_merge_entities"),
        Tool(KG_TOOLS["kg_extract_from_text"], _extract),
        Tool(KG_TOOLS["kg_extract_from_memory"], _extract),
        Tool(KG_TOOLS["kg_find_duplicates"], _duplicates),
        Tool(KG_GRAPH_IMAGE, lambda t, a: map_tools.graph_image(t.parts, a)),
        Tool(LINK_TOOLS["kg_suggest_links"], lambda t, a: t.links.kg_suggest_links(a)),
        Tool(LINK_TOOLS["kg_rename_entity"], lambda t, a: t.renamer.kg_rename_entity(a)),
        Tool(VAULT_QUERY, lambda t, a: t.queries.vault_query(a)),
        # the TUI's and `kbtui base:query`'s; MCP offers bases through vault_query
        Tool(BASE_TOOLS["base_query"], lambda t, a: t.bases.base_query(a), published=False),
        Tool(APP_DATAVIEW, lambda t, a: t.dataview.app_dataview(a), published=False),
        Tool(LINK_MENTION, lambda t, a: t.links.link_mention(a), published=False),
        Tool(NOTE_MENTIONS, lambda t, a: t.links.note_mentions(a), published=False),
        Tool(VAULT_TOOLS["vault_links"], lambda t, a: obsidian_links.vault_links(t.parts, a)),
        Tool(VAULT_TOOLS["tasks_list"], lambda t, a: obsidian_tasks.tasks_list(t.parts, a)),
        Tool(VAULT_TOOLS["task_update"], lambda t, a: obsidian_tasks.task_update(t.parts, a)),
        Tool(VAULT_TOOLS["daily_append"], lambda t, a: obsidian_daily.daily_append(t.parts, a)),
        *(
            Tool(NOTE_TOOLS[name], _vault_app(run))
            for name, run in (
                ("note_read", note_files.note_read),
                ("note_write", note_files.note_write),
                ("note_edit", note_edit.note_edit),
                ("note_delete", note_files.note_delete),
                ("note_history", note_history.note_history),
            )
        ),
        *(
            Tool(APP_NOTE_TOOLS[name], _vault_app(run), published=False)
            for name, run in (
                ("app_new_note", note_changes.app_new_note),
                ("app_changes", note_changes.app_changes),
                ("app_note_ids", note_changes.app_note_ids),
            )
        ),
        *(
            Tool(APP_VAULT_TOOLS[name], _vault_app(run), published=False)
            for name, run in (
                ("app_daily", obsidian_daily.daily),
                ("app_tasks_query", obsidian_tasks_query.tasks_query),
                ("app_outline", obsidian_notes.outline),
                ("app_tags", obsidian_notes.tags),
                ("app_properties", obsidian_notes.properties),
                ("app_property", obsidian_notes.property_edit),
                ("app_search_context", obsidian_notes.search_context),
            )
        ),
        Tool(APP_GRAPH_MAP, lambda t, a: map_tools.map_data(t.parts, a), published=False),
        Tool(APP_LINK_NAMES, _vault_app(link_names), published=False),
        Tool(
            review.APP_PROPOSALS,
            lambda t, a: review.app_proposals(t.parts, t.call_unheld, a),
            published=False,
        ),
        Tool(
            review.APP_REVIEW,
            lambda t, a: review.app_review(t.parts, t.call_unheld, a),
            published=False,
        ),
        _app("app_facets", browse.facets),
        _app("app_list_entities", browse.list_entities),
        _app("app_entity_labels", browse.entity_labels),
        _app("app_reindex", browse.reindex),
        _app("app_editor", browse.editor),
        _app("app_sql", browse.sql),
        Tool(
            APP_TOOLS["app_search"],
            lambda t, a: t.kb.kb_search(browse.search_query(a)),
            published=False,
        ),
    )
}
PUBLISHED: dict[str, ToolSpec] = {n: t.spec for n, t in TOOLS.items() if t.published}
assert PUBLISHED.keys() == CATALOGUE.keys(), "tools/catalog.py must list what is published"
__all__ = ["GRAPH_READS", "PUBLISHED", "READS", "TOOLS", "Tool", "Toolset"]


class Toolset:
    """The tools of one vault, bound to its parts."""

    parts: VaultParts
    graph: KnowledgeGraph
    writer: GraphWriter
    kb: KbTools
    links: LinkTools
    renamer: Renamer
    bases: BaseTools
    dataview: DataviewTools
    queries: QueryTools

    def __init__(self, parts: VaultParts) -> None:
        self.parts = parts
        self.graph = KnowledgeGraph(parts)
        self.writer = GraphWriter(self.graph)
        self.kb = KbTools(parts, self.graph)
        self.links = LinkTools(self.writer)
        self.renamer = Renamer(self.writer)
        self.bases = BaseTools(parts)
        self.dataview = DataviewTools(parts)
        self.queries = QueryTools(parts, self.bases, self.dataview)

    def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run tool `name` with raw arguments; never raises. Under review an assistant's
        write is held as a proposal instead (kbtui.tools.review)."""
        return self._call(name, args, hold=True)

    def call_unheld(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """`call`, never held for review: a proposal the person accepted, run as proposed."""
        return self._call(name, args, hold=False)

    def _call(self, name: str, args: dict[str, Any] | None, hold: bool) -> dict[str, Any]:
        tool = TOOLS.get(name)
        if tool is None:
            return guarded(lambda: _raise(ValidationError(f"unknown tool {name!r}")), name)

        def run() -> dict[str, Any]:
            check_call(tool.spec, args)  # the caller's scope (kbtui mcp --read-only ...)
            checked = validate(tool.spec.params, args)
            if hold and held(self.parts, tool.spec, checked):
                return propose(self.parts, tool.spec, checked, lambda a: self._run(tool, a))
            return self._run(tool, checked)

        return guarded(run, name, tool.spec.empty)

    def _run(self, tool: Tool, checked: dict[str, Any]) -> dict[str, Any]:
        try:
            return tool.run(self, checked)
        except (StoreError, DatabaseError) as exc:
            raise UnavailableError(f"the index is unavailable: {exc}") from exc


def _raise(exc: ToolError) -> dict[str, Any]:
    raise exc
