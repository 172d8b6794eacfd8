"""The MCP front end: the shared service layer served to AI assistants over stdio.

`server` maps MCP requests onto a `VaultHandle` (tool calls and notes); `app` runs it over
stdio with the vault's runtime (background indexer and watcher).
"""

from kbtui.mcp.server import build_server

__all__ = ["build_server"]
