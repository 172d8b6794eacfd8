"""vault_query: the one published tool for a vault's dashboards, whatever their language.

A query given as text runs in its language (a base's YAML, DQL, a Tasks query); `file` +
`block` runs a note's Nth query block (```base, ```dataview, ```tasks; ```dataviewjs is named
as not run), the language read from its fence; a base file runs as base_query runs it; a note
alone lists its query blocks, and no arguments list the vault's. Each language is answered by
its own tool (base_query, app_dataview, app_tasks_query: what the TUI calls), so MCP, the CLI
(`kbtui blocks`, `kbtui block:run`) and the TUI share one evaluation.
"""

from __future__ import annotations

from typing import Any

from kbtui.bases.syntax import base_blocks
from kbtui.tools.bases import BaseTools
from kbtui.tools.contracts.query import QUERY_TOOLS, VAULT_QUERY
from kbtui.tools.dataview import DataviewTools
from kbtui.tools.envelope import (
    NOT_INITIALIZED,
    NotFoundError,
    ToolError,
    UnsupportedError,
    ValidationError,
    ok,
)
from kbtui.tools.obsidian.links import resolve_note
from kbtui.tools.obsidian.tasks_query import tasks_query
from kbtui.tools.parts import VaultParts
from kbtui.vault.obsidian.query_blocks import LANGUAGES, QueryBlock, query_blocks

__all__ = ["QUERY_TOOLS", "VAULT_QUERY", "QueryTools"]
DATAVIEWJS = "DataviewJS is not run: kbtui runs Dataview's query language (DQL), not JavaScript"


class QueryTools:
    def __init__(self, parts: VaultParts, bases: BaseTools, dataview: DataviewTools) -> None:
        self.parts = parts
        self.bases = bases
        self.dataview = dataview

    def vault_query(self, args: dict[str, Any]) -> dict[str, Any]:
        language, query, file = args.get("language"), args.get("query"), args.get("file")
        if args.get("block") is not None:
            if query is not None:
                raise ValidationError("give query, or file and block, not both", field="query")
            if not file:
                raise ValidationError("block needs file: the note holding it", field="file")
            return self._block(resolve_note(self.parts, file, "file"), args)
        if query is not None:
            if language is None:
                raise ValidationError(
                    "language is required with query: base, dataview or tasks", field="language"
                )
            return self._run(language, query, self._note(file) if file else None, args)
        if file:
            if language == "base" or (language is None and _names_base(file)):
                return self._run("base", None, None, args)
            try:
                path = resolve_note(self.parts, file, "file")
            except NotFoundError:  # a base named without .base (Books), as base_query takes
                if language is not None:
                    raise
                return self._run("base", None, None, args)
            return self._listed(self._blocks_of(path, language), args)
        return self._listed(self._vault_blocks(language), args)

    # -- running ------------------------------------------------------------------------
    def _run(
        self, language: str, query: str | None, this: str | None, args: dict[str, Any]
    ) -> dict[str, Any]:
        limit = args["limit"]
        if language != "base" and args.get("view"):
            raise ValidationError("view is for a base", field="view")
        if language == "base":
            given = {"file": args.get("file")} if query is None else {"yaml": query}
            try:
                answer = self.bases.base_query(
                    {**given, "this": this, "view": args.get("view"), "limit": limit}
                )
            except ToolError as exc:  # the base's YAML is this tool's query
                exc.field = "query" if exc.field == "yaml" else exc.field
                raise
        elif language == "dataview":
            answer = self.dataview.app_dataview({"query": query, "this": this, "markdown": True})
            _cut(answer, "rows", limit, answer["count"])
        else:
            answer = tasks_query(
                self.parts,
                {"query": query, "this": this, "today": args.get("today"), "markdown": True},
            )
            answer["rows"] = answer.pop("results")
            _cut(answer, "rows", limit, answer["total"])
        return {"language": language, **answer}

    def _block(self, path: str, args: dict[str, Any]) -> dict[str, Any]:
        number: int = args["block"]
        text = self._text(path)
        blocks = query_blocks(text)
        if number > len(blocks):
            raise ValidationError(
                f"{path} has {len(blocks)} query block(s), not {number} "
                "(vault_query with file alone lists them)",
                field="block",
            )
        block = blocks[number - 1]
        where = {"file": path, "block": number, "line": block.line}
        wanted = args.get("language")
        try:
            if wanted is not None and wanted != block.language:
                raise ValidationError(
                    f"block {number} of {path} is ```{block.language}, not {wanted}",
                    field="language",
                )
            if block.language == "dataviewjs":
                raise UnsupportedError(f"{DATAVIEWJS} (block {number} of {path}, line "
                                       f"{block.line})", field="block")  # fmt: skip
            if block.language == "base":
                answer = self._base_block(path, text, block, args)
            else:
                answer = self._run(block.language, block.source, path, args)
        except ToolError as exc:  # which block failed, for a list of a vault's dashboards
            exc.extra.update({**where, "language": block.language})
            raise
        return {**answer, **where}

    def _base_block(
        self, path: str, text: str, block: QueryBlock, args: dict[str, Any]
    ) -> dict[str, Any]:
        """A ```base block by the name base_query gives it (Note.md#K, K counting base
        blocks) when the base reader finds it; one in a callout runs from its YAML."""
        lines = [line for line, _ in base_blocks(text)]
        if block.line in lines:
            file = f"{path}#{lines.index(block.line) + 1}"
            return self._run("base", None, None, {**args, "file": file})
        return self._run("base", block.source, path, args)

    # -- listing ------------------------------------------------------------------------
    def _blocks_of(self, path: str, language: str | None) -> list[dict[str, Any]]:
        return [
            {"file": path, "block": n, "line": b.line, "language": b.language}
            for n, b in enumerate(query_blocks(self._text(path)), 1)
            if language is None or b.language == language
        ]

    def _vault_blocks(self, language: str | None) -> list[dict[str, Any]]:
        """Every .base file (with its views) and every note's query blocks, by path."""
        found: list[dict[str, Any]] = []
        if language in (None, "base"):
            for base in self.bases.service.list_bases():
                if not base.get("block"):
                    found.append({"file": base["path"], "language": "base", **_views(base)})
        wanted = LANGUAGES if language is None else (language,)
        for path in self.parts.store.paths_with_code_blocks(wanted):
            try:
                found += self._blocks_of(path, language)
            except NotFoundError:
                continue  # gone since it was indexed: the watcher drops it
        return found

    def _listed(self, blocks: list[dict[str, Any]], args: dict[str, Any]) -> dict[str, Any]:
        answer = ok(blocks=blocks[: args["limit"]], count=min(len(blocks), args["limit"]))
        if len(blocks) > args["limit"]:
            answer["total"] = len(blocks)
        if not blocks and self.parts.store.note_count() == 0:
            answer["message"] = NOT_INITIALIZED
        return answer

    # -- notes ----------------------------------------------------------------------------
    def _note(self, name: str) -> str:
        return resolve_note(self.parts, name, "file")

    def _text(self, path: str) -> str:
        try:
            return (self.parts.settings.vault / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise NotFoundError(f"cannot read {path}: {exc}", field="file") from None


def _names_base(file: str) -> bool:
    """A .base file, or a note's Nth ```base block as base_query names it (Note.md#N)."""
    name, _, number = file.rpartition("#")
    return file.lower().endswith(".base") or bool(name and number.isdigit())


def _views(base: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"views": base["views"]}
    if base.get("error"):
        out["error"] = base["error"]
    return out


def _cut(answer: dict[str, Any], key: str, limit: int, total: int) -> None:
    """At most `limit` rows; a cut answer says how many there were and drops its Markdown
    (drawn from every row, it would disagree with the rows given)."""
    if len(answer[key]) <= limit:
        return
    answer[key] = answer[key][:limit]
    if "paths" in answer:
        answer["paths"] = answer["paths"][:limit]
    answer.pop("markdown", None)
    answer["count"], answer["total"], answer["truncated"] = limit, total, True
    answer["message"] = f"{limit} of {total} rows (raise limit, or LIMIT the query)"
