"""The one response envelope every tool uses, and the errors that fill it.

The specs disagree on errors (`{ok:false, error:{type,message,retryable}}` in 000/001,
`{error:true, error_type, message}` in 003, `{success:false, <field>: null, message}` in 004).
kbtui answers every tool with one shape that carries all of those fields:

    success: {"ok": true, "success": true, ...the spec's response fields...}
    failure: {"ok": false, "success": false,
              "error": {"type": "VALIDATION|PERMANENT|TRANSIENT|INTERNAL",
                        "message": str, "retryable": bool, "field": str | None},
              "error_type": "ValidationError|NotFoundError|ConflictError|UnavailableError|...",
              "message": str,
              ...the tool's result fields as null or []}

`error` is an object rather than 003's `true`; it is truthy wherever `error: true` was tested.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

log = logging.getLogger("kbtui.tools")

ErrorClass = Literal["VALIDATION", "PERMANENT", "TRANSIENT", "INTERNAL"]


NOT_INITIALIZED = "KB not initialized: no notes are indexed yet; run `kbtui index`"


class ToolError(Exception):
    """A failure a caller can act on; becomes the error envelope, never a traceback."""

    error_type = "ToolError"
    kind: ErrorClass = "PERMANENT"
    retryable = False

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra: dict[str, Any] = {}  # fields the failure answer carries besides the error


class ValidationError(ToolError):
    """The arguments break the tool's contract; fix them, do not retry as is."""

    error_type = "ValidationError"
    kind: ErrorClass = "VALIDATION"


class NotFoundError(ToolError):
    """The id does not exist (spec 000: PERMANENT, not retryable)."""

    error_type = "NotFoundError"


class ConflictError(ToolError):
    """The request is valid but clashes with the vault's state."""

    error_type = "ConflictError"


class UnsupportedError(ToolError):
    """The vault holds what kbtui does not run (a DataviewJS block): named, so the caller
    never takes an empty answer for the block's result."""

    error_type = "UnsupportedError"


class UnavailableError(ToolError):
    """The index cannot be reached right now (spec 000/001: TRANSIENT, retryable)."""

    error_type = "UnavailableError"
    kind: ErrorClass = "TRANSIENT"
    retryable = True


def ok(**fields: Any) -> dict[str, Any]:
    return {"ok": True, "success": True, **fields}


def failure(exc: ToolError, empty: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "ok": False,
        "success": False,
        **(empty or {}),
        **exc.extra,
        "error": {
            "type": exc.kind,
            "message": exc.message,
            "retryable": exc.retryable,
            "field": exc.field,
        },
        "error_type": exc.error_type,
        "message": exc.message,
    }


def guarded(
    call: Callable[[], dict[str, Any]], name: str, empty: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run one tool call; every exception becomes an envelope (bugs are logged in full)."""
    try:
        return call()
    except ToolError as exc:
        return failure(exc, empty)
    except Exception as exc:  # a bug: the caller still gets a structured answer
        log.exception("tool %s failed", name)
        internal = ToolError(f"internal error in {name}: {type(exc).__name__}: {exc}")
        internal.error_type = "InternalError"
        internal.kind = "INTERNAL"
        return failure(internal, empty)
