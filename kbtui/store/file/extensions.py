"""Where the DuckDB extensions come from: pip packages, never `INSTALL` (it needs the network).

The binaries are tied to the exact DuckDB version, so a mismatch is reported with the fix.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from kbtui.store.file.recover import StoreError


def extension_path(name: str) -> Path:
    import importlib

    try:
        package = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError as exc:
        raise StoreError(
            f"DuckDB extension package missing: pip install duckdb-extension-{name}"
        ) from exc
    base = Path(package.__file__ or "").parent / "extensions" / f"v{duckdb.__version__}"
    path = base / f"{name}.duckdb_extension"
    if not path.is_file():
        raise StoreError(
            f"{name} extension for DuckDB {duckdb.__version__} not found at {path}; "
            f"install duckdb-extension-{name}=={duckdb.__version__}"
        )
    return path
