"""The only package that speaks SQL.

`Store` and `DatabaseError` load DuckDB on first use (PEP 562): a process that only needs the
errors (a command answered by the owner of the vault) never imports it."""

import importlib.util
import sys
from typing import TYPE_CHECKING, Any

# DuckDB's Python client tries `import pandas` while binding query parameters. Without
# pandas that import fails every time (a failed import is not cached), ~90 times for one
# kg_get_neighbors call (15-20% of its time), 84 of 151 s of a keyword-only index pass.
# Recording pandas as absent makes each attempt an immediate ImportError; nothing changes
# for a process that has pandas.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None  # type: ignore[assignment]

from kbtui.store.file.recover import StoreDamagedError, StoreError, StoreLockedError

if TYPE_CHECKING:
    from kbtui.store.db import DatabaseError, Store
    from kbtui.store.queries.console import QueryRefused


def __getattr__(name: str) -> Any:
    """DuckDB loads on first use: a client of a running owner never needs it."""
    if name in ("DatabaseError", "Store"):
        from kbtui.store import db

        return getattr(db, name)
    if name == "QueryRefused":
        from kbtui.store.queries import console

        return console.QueryRefused
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DatabaseError",
    "QueryRefused",
    "Store",
    "StoreDamagedError",
    "StoreError",
    "StoreLockedError",
]
