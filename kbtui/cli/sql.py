"""`kbtui sql "SELECT ..."`: the person at the keyboard queries the index read-only.

The query goes through the process that owns the vault (the TUI or an MCP server may hold
the file) as the app-only `app_sql` operation, which MCP never publishes."""

from __future__ import annotations

import click

from kbtui.cli.common import emit, json_option, opened_vault, out, vault_option


@click.command()
@vault_option
@click.argument("query")
@click.option("--max-rows", default=1000, show_default=True, type=int, help="1-100000.")
@json_option
def sql(vault: str | None, query: str, max_rows: int, as_json: bool) -> None:
    """Run one read-only SELECT over the index (tables: notes, chunks, relationships,
    graph_nodes, graph_edges, ...); statements that write are refused."""
    from rich.table import Table  # loaded when a table is drawn, not by every command
    from rich.text import Text

    with opened_vault(vault, need_model=False) as kb:
        response = kb.call("app_sql", {"query": query, "max_rows": max_rows})
    if not emit(response, as_json):
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in response["columns"]:
        table.add_column(column, overflow="fold")
    for row in response["rows"]:
        table.add_row(*(Text("NULL" if v is None else str(v)) for v in row))
    out().print(table)
    count = len(response["rows"])
    more = f" (first {count}; --max-rows for more)" if response["truncated"] else ""
    out().print(f"[dim]{count} row{'s' if count != 1 else ''}{more}[/]")


SQL_COMMANDS = (sql,)
