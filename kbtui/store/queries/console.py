"""A read-only SQL query typed by the person at the keyboard (`kbtui sql "SELECT ..."`).

Writes are refused twice, by DuckDB itself rather than by patterns over the text: its parser
must see exactly one statement of type SELECT (which covers WITH ..., FROM ..., SHOW,
DESCRIBE, SUMMARIZE, PRAGMA reads), and the statement then runs on a separate cursor inside
`BEGIN TRANSACTION READ ONLY`, where DuckDB rejects any write (nextval, a checkpoint, ...),
and the transaction is rolled back either way. Never offered over MCP: DuckDB's readers can
open any file the process can (read_csv('/etc/...')), which is for the owner of the
machine only.
"""

from __future__ import annotations

from typing import Any

import duckdb


class QueryRefused(ValueError):
    """The text is not one read-only SELECT; the message says why."""


def read_only_query(
    con: duckdb.DuckDBPyConnection, sql: str, max_rows: int
) -> tuple[list[str], list[tuple[Any, ...]], bool]:
    """(column names, at most `max_rows` rows, whether more rows were left out)."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryRefused(str(exc)) from exc
    if len(statements) != 1:
        raise QueryRefused(f"one statement at a time, not {len(statements)}")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise QueryRefused(f"only SELECT queries run here, not {kind.name}")
    cursor = con.cursor()
    try:
        cursor.execute("BEGIN TRANSACTION READ ONLY")
        try:
            result = cursor.execute(sql)
            columns = [d[0] for d in result.description or []]
            rows = result.fetchmany(max_rows + 1)
        finally:
            cursor.execute("ROLLBACK")
    finally:
        cursor.close()
    return columns, [tuple(r) for r in rows[:max_rows]], len(rows) > max_rows
