"""The query layer shared by the TUI, the CLI and the MCP server."""
