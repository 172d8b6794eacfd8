"""The MCP front end: the shared service layer served to AI assistants over stdio or HTTP.

`server` maps MCP requests onto a `VaultHandle` (tool calls and notes); `app` runs it over
stdio on a `SharedVault` (this process's runtime, or the owner's over its socket); `process`
is what a server process sets up before the SDK is imported. Nothing is imported here: the
SDK's import (~0.5 s) runs while the vault opens (kbtui/cli/mcp.py).
"""
