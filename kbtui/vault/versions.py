"""Version folders in a vault's paths (`docs/7.22/...`): which copy of a page is newest.

Versioned docs keep one tree per release beside the current one (redis: `operate/rs/` and
`operate/rs/7.4/`, `7.8/`, `7.22/`, `8.0/`). The copy outside version folders is the current
page, else the highest version: it gets the page's plain id (indexing/order.py) and is the
copy search shows (search/copies.py).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$|^v\d+$")


def _parts(path: str) -> tuple[str, ...] | list[str]:
    """PurePosixPath(path).parts; a plain vault path (no empty or `.` part) split directly:
    search folds copies among 60 results a query (search/copies.py), ~1 ms through pathlib."""
    parts = path.split("/")
    return PurePosixPath(path).parts if "" in parts or "." in parts else parts


def is_version(folder: str) -> bool:
    return bool(_VERSION.match(folder))


def version_of(path: str) -> tuple[int, ...] | None:
    """The version a path's folders name (`7.22` -> (7, 22)); None outside version folders."""
    for part in _parts(path)[:-1]:
        if is_version(part):
            return tuple(int(n) for n in re.findall(r"\d+", part))
    return None


def preference(path: str) -> tuple[int, tuple[int, ...], str]:
    """Sort key: outside version folders first, then the newest version, then the path."""
    version = version_of(path)
    if version is None:
        return (0, (), path)
    return (1, tuple(-n for n in version), path)


def label(path: str, shown: str) -> str:
    """How a copy is named beside the shown one: its version folder, else its folder."""
    for part in PurePosixPath(path).parts[:-1]:
        if is_version(part):
            return part
    here, there = PurePosixPath(shown).parts[:-1], PurePosixPath(path).parts[:-1]
    for i, part in enumerate(there):
        if i >= len(here) or here[i] != part:
            return part
    return str(PurePosixPath(path).parent) or "."


def unversioned(path: str) -> str:
    """The path without its version folders: one page's versions share it."""
    parts = _parts(path)
    return "/".join(p for p in parts[:-1] if not is_version(p)) + "/" + parts[-1]
