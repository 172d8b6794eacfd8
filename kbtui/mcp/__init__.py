"""The MCP front end: the shared service layer served to AI assistants over stdio.

`server` maps MCP requests onto `KnowledgeBase.call` and the notes; `app` runs it with the
background indexer and the vault watcher.
"""

from kbtui.mcp.server import KbHost, build_server

__all__ = ["KbHost", "build_server"]
