"""The Tasks plugin's settings as it reads them from `.obsidian/plugins/obsidian-tasks-plugin/
data.json`, with the plugin's defaults for anything unset: the statuses (symbol, name, next
symbol, type), the global filter and global query, presets, and what a status change writes
(done, cancelled and created dates, where the next recurrence goes)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

PLUGIN_DIR = Path(".obsidian/plugins/obsidian-tasks-plugin")
TYPES = ("TODO", "DONE", "IN_PROGRESS", "ON_HOLD", "CANCELLED", "NON_TASK")
DONE_TYPES = frozenset({"DONE", "CANCELLED", "NON_TASK"})  # the plugin's `done` filter
# Sort and group order of `status.type` (the plugin's typeGroupText prefixes).
TYPE_ORDER = {"IN_PROGRESS": 1, "TODO": 2, "ON_HOLD": 3, "DONE": 4, "CANCELLED": 5, "NON_TASK": 6}


@dataclass(frozen=True)
class Status:
    symbol: str
    name: str
    next_symbol: str
    type: str  # one of TYPES
    available_as_command: bool = True

    @property
    def is_done(self) -> bool:
        return self.type in DONE_TYPES


DEFAULT_STATUSES = (
    Status(" ", "Todo", "x", "TODO"),
    Status("x", "Done", " ", "DONE"),
    Status("/", "In Progress", "x", "IN_PROGRESS"),
    Status("-", "Cancelled", " ", "CANCELLED"),
)


def unknown_status(symbol: str) -> Status:
    """A symbol the settings do not name: the plugin reads it as `Unknown`, type TODO."""
    return Status(symbol, "Unknown", "x", "TODO", False)


@dataclass(frozen=True)
class TasksSettings:
    """What kbtui reads of the plugin's settings; `installed` says whether the vault has the
    plugin at all (without it, a toggle writes only the status character, as Obsidian does)."""

    installed: bool = False
    statuses: tuple[Status, ...] = DEFAULT_STATUSES
    global_filter: str = ""
    remove_global_filter: bool = False
    global_query: str = ""
    presets: dict[str, str] = field(default_factory=dict)
    task_format: str = "tasksPluginEmoji"
    set_created_date: bool = False
    set_done_date: bool = True
    set_cancelled_date: bool = True
    recurrence_on_next_line: bool = False
    remove_scheduled_date_on_recurrence: bool = False
    filename_as_scheduled: bool = False
    filename_date_format: str = ""
    filename_date_folders: tuple[str, ...] = ()

    def status(self, symbol: str) -> Status:
        """The plugin's bySymbolOrCreate."""
        for s in self.statuses:
            if s.symbol == symbol:
                return s
        return unknown_status(symbol)

    def known(self, symbol: str) -> Status | None:
        return next((s for s in self.statuses if s.symbol == symbol), None)

    def next_status(self, status: Status) -> Status:
        """The plugin's getNextStatusOrCreate."""
        found = self.known(status.next_symbol) if status.next_symbol else None
        return found or unknown_status(status.next_symbol)

    def next_recurrence_status(self, new: Status) -> Status:
        """The status a new recurrence gets: the first TODO, then IN_PROGRESS, in the chain
        after `new`; a space when the chain has neither."""
        for wanted in ("TODO", "IN_PROGRESS"):
            current = self.next_status(new)
            for _ in range(max(len(self.statuses), 1)):
                if current.type == wanted:
                    return current
                current = self.next_status(current)
        return self.status(" ")

    def symbols_of(self, types: frozenset[str]) -> tuple[list[str], bool]:
        """(symbols, negate): the status characters whose type is in `types`, as a list to
        match, or (when unknown symbols belong, i.e. TODO is wanted) a list to exclude."""
        if "TODO" in types:
            return [s.symbol for s in self.statuses if s.type not in types], True
        return [s.symbol for s in self.statuses if s.type in types], False


def _bool(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    return value if isinstance(value, bool) else default


def _statuses(data: dict[str, Any]) -> tuple[Status, ...]:
    raw = data.get("statusSettings")
    if not isinstance(raw, dict):
        return DEFAULT_STATUSES
    found: list[Status] = []
    for group in ("coreStatuses", "customStatuses"):
        for item in raw.get(group) or []:
            if not isinstance(item, dict):
                continue
            symbol = item.get("symbol")
            symbol = " " if symbol is None else str(symbol)
            if any(s.symbol == symbol for s in found):
                continue  # the plugin's registry keeps the first of a symbol
            kind = str(item.get("type") or "TODO")
            next_symbol = item.get("nextStatusSymbol")
            found.append(
                Status(
                    symbol,
                    str(item.get("name") or ""),
                    "x" if next_symbol is None else str(next_symbol),
                    kind if kind in TYPES else "TODO",
                    bool(item.get("availableAsCommand", True)),
                )
            )
    return tuple(found) or DEFAULT_STATUSES


def settings_from(data: dict[str, Any], installed: bool = True) -> TasksSettings:
    presets = data.get("presets")
    folders = data.get("filenameAsDateFolders")
    return TasksSettings(
        installed=installed,
        statuses=_statuses(data),
        global_filter=str(data.get("globalFilter") or ""),
        remove_global_filter=_bool(data, "removeGlobalFilter", False),
        global_query=str(data.get("globalQuery") or ""),
        presets={str(k): str(v) for k, v in presets.items()} if isinstance(presets, dict) else {},
        task_format=str(data.get("taskFormat") or "tasksPluginEmoji"),
        set_created_date=_bool(data, "setCreatedDate", False),
        set_done_date=_bool(data, "setDoneDate", True),
        set_cancelled_date=_bool(data, "setCancelledDate", True),
        recurrence_on_next_line=_bool(data, "recurrenceOnNextLine", False),
        remove_scheduled_date_on_recurrence=_bool(data, "removeScheduledDateOnRecurrence", False),
        filename_as_scheduled=_bool(data, "useFilenameAsScheduledDate", False),
        filename_date_format=str(data.get("filenameAsScheduledDateFormat") or ""),
        filename_date_folders=tuple(str(f) for f in folders) if isinstance(folders, list) else (),
    )


def load_settings(vault: Path) -> TasksSettings:
    """The vault's Tasks settings (re-read when data.json changes)."""
    folder = vault / PLUGIN_DIR
    data_file = folder / "data.json"
    try:
        stamp = data_file.stat().st_mtime_ns
    except OSError:
        stamp = -1
    return _load(str(folder), stamp)


@lru_cache(maxsize=8)
def _load(folder: str, stamp: int) -> TasksSettings:
    path = Path(folder)
    if not path.is_dir():
        return TasksSettings()
    try:
        data = json.loads((path / "data.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    return settings_from(data if isinstance(data, dict) else {})
