"""What one MCP server offers and to whom: the `--tools` set, and the scope each call runs
under (`--read-only`, `--write-folders`, `--review`, or a request that came with the
read-only HTTP token), named after the client (`mcp:<clientInfo.name>` from its `initialize`).

The scope decides what `tools/list` shows; the calls themselves are checked again in the
dispatch of the process that owns the vault (kbtui.tools.write.scope), so a write hidden
here is refused there too, with a `ForbiddenError` naming the scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp import types

from kbtui.tools.catalog import PUBLISHED
from kbtui.tools.contracts.kb import ToolSpec
from kbtui.tools.write.origin import Origin
from kbtui.tools.write.scope import offered

CLIENT_NAME_MAX = 64
# set in an HTTP request's ASGI scope by the guard: the request came with the read-only token
READ_ONLY_KEY = "kbtui.read_only"


@dataclass(frozen=True)
class McpScope:
    """A server's choice of tools (`label` as given to --tools) and its write scope."""

    tools: tuple[str, ...] = tuple(PUBLISHED)
    read_only: bool = False
    write_folders: tuple[str, ...] = ()
    label: str = "all"
    review: bool = False  # writes held as proposals for a person (kbtui.tools.review)
    _listed: dict[tuple[bool, bool, bool], list[types.Tool]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def origin(self, client: str | None, read_token: bool = False) -> Origin:
        """The origin of a call from `client` (its clientInfo.name); `read_token`: the
        request came with the read-only HTTP token."""
        return Origin(
            f"mcp:{client_name(client)}",
            self.read_only or read_token,
            self.write_folders,
            self.review,
        )

    def listed(self, origin: Origin) -> list[types.Tool]:
        """`tools/list` for a caller of this origin (made once per kind of caller)."""
        key = (origin.read_only, bool(origin.write_folders), origin.review)
        if key not in self._listed:
            self._listed[key] = [
                published(PUBLISHED[name])
                for name in self.tools
                if offered(PUBLISHED[name], origin)
            ]
        return self._listed[key]


def published(spec: ToolSpec) -> types.Tool:
    """A tool as `tools/list` gives it: name, description, input schema, annotations."""
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema(),
        annotations=types.ToolAnnotations.model_validate(spec.effects.annotations()),
    )


def client_name(raw: str | None) -> str:
    """A client's name fit for the history and a log line: printable, no spaces, short."""
    name = "".join(c if c.isprintable() and not c.isspace() else "_" for c in (raw or ""))
    return name[:CLIENT_NAME_MAX] or "client"
