"""`kbtui sql`: a person's read-only query over the index, through the owner of the vault,
refused when it would write, never offered over MCP. Real DuckDB files, a real owner."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.shared import open_vault
from kbtui.store import QueryRefused, Store
from kbtui.tools.registry import PUBLISHED

WRITES = [
    "DELETE FROM notes",
    "INSERT INTO meta VALUES ('x', 'y')",
    "UPDATE notes SET title = 'x'",
    "DROP TABLE notes",
    "CREATE TABLE x AS SELECT 1",
    "COPY notes TO '/tmp/kbtui-sql-test.csv'",
    "CALL checkpoint()",
    "SET threads = 1",
    "ATTACH '/tmp/kbtui-sql-test.duckdb' AS other",
    "SELECT 1; DELETE FROM notes",
    "SELECT count(*) FROM notes; SELECT 2",
]


def counts(store: Store) -> tuple[int, int, int]:
    row = store.con.execute(
        "SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM relationships),"
        " (SELECT count(*) FROM meta)"
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


@pytest.fixture
def indexed(settings: Settings, store: Store) -> Store:
    Indexer(settings, store, HashEmbedder()).run(embed=False)
    return store


def test_a_select_answers_with_columns_rows_and_truncation(indexed: Store) -> None:
    columns, rows, more = indexed.read_only_query(
        "SELECT entity_id, title FROM notes ORDER BY entity_id", 3
    )
    assert columns == ["entity_id", "title"] and len(rows) == 3 and more
    everything = indexed.read_only_query("FROM notes", 10_000)
    assert len(everything[1]) == counts(indexed)[0] and not everything[2]


@pytest.mark.parametrize("sql", WRITES)
def test_statements_that_write_are_refused_and_change_nothing(indexed: Store, sql: str) -> None:
    before = counts(indexed)
    with pytest.raises(QueryRefused):
        indexed.read_only_query(sql, 10)
    assert counts(indexed) == before


def test_a_select_that_would_write_is_stopped_by_the_read_only_transaction(
    indexed: Store,
) -> None:
    indexed.con.execute("CREATE SEQUENCE probe")
    with pytest.raises(Exception, match="read-only"):
        indexed.read_only_query("SELECT nextval('probe')", 10)
    assert indexed.con.execute("SELECT nextval('probe')").fetchone() == (1,)
    # the store's own connection is left outside any transaction
    indexed.con.execute("BEGIN TRANSACTION")
    indexed.con.execute("ROLLBACK")


def test_never_published_over_mcp() -> None:
    assert "app_sql" not in PUBLISHED and not any("sql" in name for name in PUBLISHED)


def test_the_cli_queries_through_the_owner_holding_the_file(settings: Settings) -> None:
    owner = open_vault(settings, HashEmbedder, watch=False)  # as the TUI holds it
    try:
        assert owner.runtime is not None and owner.runtime.worker.wait_idle(60)

        def kbtui(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "kbtui.cli", "sql", "--vault", str(settings.vault), *args],
                capture_output=True,
                text=True,
                env=dict(os.environ),
                timeout=120,
            )

        table = kbtui("SELECT count(*) AS notes FROM notes")
        assert table.returncode == 0, table.stderr
        assert "notes" in table.stdout and "1 row" in table.stdout
        answer = kbtui("--json", "SELECT entity_id, indexed_at FROM notes ORDER BY 1 LIMIT 2")
        body = json.loads(answer.stdout)
        assert body["columns"] == ["entity_id", "indexed_at"] and len(body["rows"]) == 2
        assert isinstance(body["rows"][0][1], str)  # a timestamp, as text
        refused = kbtui("DELETE FROM notes")
        assert refused.returncode == 1 and "only SELECT" in refused.stderr
        broken = kbtui("SELECT nope FROM notes")
        assert broken.returncode == 1 and "nope" in broken.stderr
        assert owner.call("app_sql", {"query": "SELECT count(*) FROM notes"})["rows"][0][0] > 0
    finally:
        owner.close()
