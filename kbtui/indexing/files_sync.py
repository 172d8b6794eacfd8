"""Keep the index's list of vault files (kbtui.store vault_files) in line with the vault:
all of it after a whole-vault pass, the given paths after a watcher batch. A .base file that
cannot be read is reported in the pass's summary like a broken note."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from kbtui.config import Settings
from kbtui.models import IndexReport, Skipped
from kbtui.store import Store
from kbtui.vault.files import is_vault_file, scan_files, stat_files
from kbtui.vault.scan import is_ignored


def sync_files(
    settings: Settings,
    store: Store,
    lock: AbstractContextManager[Any],
    report: IndexReport,
    paths: list[str] | None,
) -> None:
    if paths is None:
        rows = scan_files(settings.vault, settings.index_dir)
    else:
        rows = stat_files(settings.vault, paths)
        report.other_files.extend(p for p in paths if is_ignored(p) and is_vault_file(p))
    with lock:
        store.replace_vault_files(rows, paths or ())
    report.skipped.extend(Skipped(row[0], f"base: {row[4]}") for row in rows if row[4])
