"""The graph map: a neighbourhood laid out and drawn, on a character canvas or as SVG.

Pure (no store, no Textual): the tools layer builds a Neighbourhood, this package places and
draws it, the TUI, the CLI and the MCP tool show the result.
"""
