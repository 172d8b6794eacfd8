"""The MCP server: the published tools (or the `--tools` chosen), each a pass-through to the
vault's one dispatch run as the client (`mcp:<clientInfo.name>`, with the server's scope:
kbtui.mcp.scope), and the vault's notes as resources addressed by entity id.

The SDK's low-level `Server` on purpose: the published input schemas are the ToolSpecs' own
(the spec's defaults and ranges, verbatim), and arguments reach `kb.call` untouched, so a bad
call gets the envelope's structured error rather than the SDK's generic one. Nothing here
raises for a tool call: the envelope comes back with `isError` set when `ok` is false.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import anyio.to_thread
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from kbtui.mcp.bounded import CallTimeout
from kbtui.mcp.scope import READ_ONLY_KEY, McpScope
from kbtui.runtime.runtime import VaultHandle
from kbtui.runtime.shared import repeatable
from kbtui.tools.envelope import UnavailableError, ValidationError, failure
from kbtui.tools.registry import PUBLISHED
from kbtui.tools.write.origin import Origin, acting_as

log = logging.getLogger("kbtui.mcp")

NOTE_URI_PREFIX = "kbtui://note/"
NOTE_URI_TEMPLATE = NOTE_URI_PREFIX + "{id}"
STATUS_URI = "kbtui://status"
PAGE_SIZE = 500
INSTRUCTIONS = (
    "kbtui serves the user's own markdown vault (people, projects, meetings, notes) and the "
    "knowledge graph drawn from it. Start with kb_search for a question; kb_get fetches a "
    "whole note by the id a result gives; get_chunk gives one passage with related passages. "
    "kg_find_entity turns a name into an entity id for the kg_* graph tools. Every answer "
    "has ok/success; on failure error.type says VALIDATION (fix the arguments), PERMANENT, "
    "TRANSIENT (retry) or INTERNAL. Notes are also resources: kbtui://note/<entity id>."
)


Offload = Callable[..., Awaitable[Any]]
T = TypeVar("T")


def build_server(
    host: VaultHandle, offload: Offload | None = None, scope: McpScope | None = None
) -> Server[Any]:
    """The low-level server with tools and resources wired to `host`. `offload(fn, *args)`
    runs blocking work off the event loop (HTTP: `BoundedCalls.run`, bounded in threads and
    time, raising CallTimeout); stdio's one client uses anyio's threads. `scope`: the tools
    offered and the scope calls run under (kbtui.mcp.scope; default every tool, any write)."""
    run: Offload = offload or anyio.to_thread.run_sync
    scope = scope or McpScope()
    chosen = set(scope.tools)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=scope.listed(_origin(ctx, scope)))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, args = params.name, params.arguments
        if name in chosen:  # the dispatch checks the scope (ForbiddenError), as the owner's
            try:
                envelope = await run(_acting(_origin(ctx, scope), host.call), name, args)
            except CallTimeout as late:
                envelope = failure(_late(late, name, args))
        elif name in PUBLISHED:
            why = f"{name} is not offered here (kbtui mcp --tools {scope.label})"
            envelope = failure(ValidationError(why), PUBLISHED[name].empty)
        else:  # the app_* operations of the query layer serve the TUI only
            envelope = failure(ValidationError(f"unknown tool {name!r}"))
        return tool_result(envelope, name)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        start = _cursor(params.cursor if params is not None else None)
        notes, total = await _resource(run, host.note_page, start, PAGE_SIZE)
        resources = [note_resource(n) for n in notes]
        if start == 0:
            resources.insert(0, STATUS_RESOURCE)
        end = start + PAGE_SIZE
        return types.ListResourcesResult(
            resources=resources, next_cursor=str(end) if end < total else None
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[NOTE_TEMPLATE])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == STATUS_URI:
            status = await _resource(run, host.status)
            text = json.dumps(status, ensure_ascii=False, default=str)
            contents = types.TextResourceContents(uri=uri, mime_type="application/json", text=text)
            return types.ReadResourceResult(contents=[contents])
        if not uri.startswith(NOTE_URI_PREFIX):
            raise MCPError(
                types.INVALID_PARAMS, f"unknown resource {uri!r}; use {NOTE_URI_TEMPLATE}"
            )
        entity_id = unquote(uri[len(NOTE_URI_PREFIX) :])
        get = _acting(_origin(ctx, scope), host.call)
        note = await _resource(run, get, "kb_get", {"id": entity_id})
        if not note.get("ok"):
            raise MCPError(types.INVALID_PARAMS, f"resource {uri!r}: {note.get('message')}")
        contents = types.TextResourceContents(
            uri=uri, mime_type="text/markdown", text=str(note["content"])
        )
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "kbtui",
        version=_version(),
        title="kbtui knowledge base",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _origin(ctx: ServerRequestContext[Any], scope: McpScope) -> Origin:
    """Who makes this request: the session's client, with the read-only HTTP token or not."""
    client_params = getattr(getattr(ctx, "session", None), "client_params", None)
    client = client_params.client_info.name if client_params is not None else None
    request = getattr(ctx, "request", None)  # HTTP's (stdio: None); the guard marked its token
    read_token = bool(getattr(request, "scope", {}).get(READ_ONLY_KEY))
    return scope.origin(client, read_token)


def _acting(origin: Origin, fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` run as `origin` on whatever thread runs it."""

    def run(*args: Any) -> T:
        with acting_as(origin):
            return fn(*args)

    return run


def _late(late: CallTimeout, name: str, args: dict[str, Any] | None) -> UnavailableError:
    """The answer to a call past the time bound: retry, or look first when it may write."""
    if not late.started:
        return UnavailableError(f"{name}: the server is busy, {late}; retry")
    if repeatable(name, args):
        return UnavailableError(f"{name}: {late}; retry later")
    error = UnavailableError(
        f"{name}: {late}; its change will be complete: look before repeating it"
    )
    error.retryable = False
    return error


async def _resource(run: Offload, fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return await run(fn, *args)
    except CallTimeout as late:
        raise MCPError(types.INTERNAL_ERROR, f"the server is busy: {late}; retry") from None


def tool_result(envelope: dict[str, Any], name: str) -> types.CallToolResult:
    """The envelope as structured content plus the same JSON as text; never raises."""
    try:
        text = json.dumps(envelope, ensure_ascii=False, default=str)
        structured = json.loads(text)
    except (TypeError, ValueError) as exc:  # a bug in a tool's answer: still a clean error
        log.exception("tool %s returned an answer that is not JSON", name)
        message = f"internal error in {name}: the answer is not JSON ({exc})"
        structured = {
            "ok": False,
            "success": False,
            "error": {"type": "INTERNAL", "message": message, "retryable": False, "field": None},
            "error_type": "InternalError",
            "message": message,
        }
        text = json.dumps(structured)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=structured,
        is_error=not structured.get("ok", False),
    )


def note_uri(entity_id: str) -> str:
    return NOTE_URI_PREFIX + quote(entity_id, safe=":")


def note_resource(note: dict[str, Any]) -> types.Resource:
    return types.Resource(
        uri=note_uri(note["id"]),
        name=note["id"],
        title=note["name"],
        description=f"{note['type']} note {note['path']}",
        mime_type="text/markdown",
    )


NOTE_TEMPLATE = types.ResourceTemplate(
    name="note",
    title="A note by entity id",
    uri_template=NOTE_URI_TEMPLATE,
    description="A note's markdown (its body, frontmatter left out) by entity id (type:name, "
    "e.g. kbtui://note/person:andrei_clodius), as kb_get returns it.",
    mime_type="text/markdown",
)
STATUS_RESOURCE = types.Resource(
    uri=STATUS_URI,
    name="status",
    title="Index status",
    description="What the background indexer is doing (indexing / embedding / idle) and what "
    "the index holds (notes, chunks, embedded chunks).",
    mime_type="application/json",
)


def _cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return max(0, int(cursor))
    except ValueError:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor!r}") from None


def _version() -> str:
    try:
        return version("kbtui")
    except PackageNotFoundError:
        return "0"
