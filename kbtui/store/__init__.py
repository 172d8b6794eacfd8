"""The only package that speaks SQL."""

import importlib.util
import sys

# DuckDB's Python client tries `import pandas` while binding query parameters. Without
# pandas that import fails every time (a failed import is not cached), ~90 times for one
# kg_get_neighbors call (15-20% of its time), 84 of 151 s of a keyword-only index pass.
# Recording pandas as absent makes each attempt an immediate ImportError; nothing changes
# for a process that has pandas.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None  # type: ignore[assignment]

from kbtui.store.console import QueryRefused
from kbtui.store.db import DatabaseError, Store
from kbtui.store.recover import StoreDamagedError, StoreError, StoreLockedError

__all__ = [
    "DatabaseError",
    "QueryRefused",
    "Store",
    "StoreDamagedError",
    "StoreError",
    "StoreLockedError",
]
