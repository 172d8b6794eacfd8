"""The MCP front end: the shared service layer served to AI assistants over stdio.

`server` maps MCP requests onto a `VaultHandle` (tool calls and notes); `app` runs it over
stdio on a `SharedVault` (this process's runtime, or the owner's over its socket).
"""

from kbtui.mcp.server import build_server

__all__ = ["build_server"]
