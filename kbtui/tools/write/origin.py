"""Who is writing and what they may write: set by each front end around a call.

The CLI says `cli`, the TUI `tui`, the MCP server `mcp:<client name>` with its scope
(`--read-only`, `--write-folders`, `--review`: its writes are held as proposals). A process
that forwards a call to the vault's owner sends its origin along, so the history names the
real writer and the owner enforces the scope.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any


@dataclass(frozen=True)
class Origin:
    source: str = "cli"
    read_only: bool = False
    write_folders: tuple[str, ...] = ()  # empty: anywhere in the vault
    review: bool = False  # writes held for a person's review (kbtui.tools.review)

    def as_dict(self) -> dict[str, Any]:
        out = {
            "source": self.source,
            "read_only": self.read_only,
            "write_folders": list(self.write_folders),
        }
        return {**out, "review": True} if self.review else out

    @classmethod
    def from_dict(cls, raw: Any) -> Origin:
        if not isinstance(raw, dict):
            return cls()
        folders = raw.get("write_folders") or ()
        return cls(
            str(raw.get("source") or "cli")[:200],
            bool(raw.get("read_only")),
            tuple(str(f) for f in folders if isinstance(f, str)),
            bool(raw.get("review")),
        )

    def allows(self, path: str) -> bool:
        """True when this origin may write the vault path `path` (held to folders: a path
        under one of them, without `..`)."""
        if self.read_only:
            return False
        if not self.write_folders:
            return True
        parts = PurePosixPath(path.replace("\\", "/")).parts
        if not parts or parts[0] == "/" or ".." in parts:
            return False
        for folder in self.write_folders:
            inside = PurePosixPath(folder.replace("\\", "/").strip("/")).parts
            if inside and parts[: len(inside)] == inside:
                return True
        return False


_ORIGIN: ContextVar[Origin | None] = ContextVar("kbtui_write_origin", default=None)
_DEFAULT = Origin()


def current() -> Origin:
    return _ORIGIN.get() or _DEFAULT


@contextlib.contextmanager
def acting_as(origin: Origin) -> Iterator[None]:
    """Run the calls inside as `origin`."""
    token = _ORIGIN.set(origin)
    try:
        yield
    finally:
        _ORIGIN.reset(token)
