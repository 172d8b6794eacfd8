"""Which tools a caller's scope lets it call: a read-only origin runs only calls that read,
one held to folders runs only writing tools that check each note they write
(`Effects.scoped`: they go through `NoteWriter.check_scope`, which names the folders), and
one whose writes are held for review only the tools that can be (`Effects.reviewable`).

Checked in the one dispatch (`Toolset.call`), in the process that owns the vault: a call
forwarded by another process carries that process's origin, so the owner enforces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbtui.tools.contracts.kb import ToolSpec
from kbtui.tools.write.origin import Origin, current
from kbtui.tools.write.service import ForbiddenError


def offered(spec: ToolSpec, origin: Origin) -> bool:
    """True when `origin` may use the tool at all (its default call, or a scoped write):
    what an MCP server lists."""
    if spec.reads():
        return True
    if origin.read_only:
        return False
    if origin.review and not spec.effects.reviewable:
        return False  # a write that cannot be held for review (kbtui.tools.review) is refused
    return not origin.write_folders or spec.effects.scoped


def check_call(spec: ToolSpec, args: Mapping[str, Any] | None) -> None:
    """ForbiddenError, naming the scope, when the current origin may not make this call."""
    if spec.reads(args):
        return
    origin = current()
    if origin.read_only:
        raise ForbiddenError(f"{origin.source} is read-only here: {spec.name} writes; not run")
    if origin.write_folders and not spec.effects.scoped:
        raise ForbiddenError(
            f"{origin.source} may write only in {', '.join(origin.write_folders)}: "
            f"{spec.name} cannot be held to folders; not run"
        )
