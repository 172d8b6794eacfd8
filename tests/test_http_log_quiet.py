"""The server's stderr carries a traceback only for a fault of the server's: a message that
reaches a session as it ends (the client's DELETE racing its own notification) is one line."""

from __future__ import annotations

import logging

import anyio
import pytest

import kbtui.mcp.http  # noqa: F401  (installs the filter on the SDK's logger)

SDK_LOG = logging.getLogger("mcp.server.streamable_http")


def _log_from(exc_source: type[BaseException] | None) -> None:
    """Log as the SDK does in its POST handler, with a real exception of the given kind."""
    try:
        if exc_source is None:
            send, receive = anyio.create_memory_object_stream[int](1)
            receive.close()
            send.close()
            send.send_nowait(1)  # ClosedResourceError, as writer.send on an ended session
        raise exc_source("boom") if exc_source else AssertionError
    except Exception:
        SDK_LOG.exception("Error handling POST request")


def test_message_to_an_ended_session_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="mcp.server.streamable_http"):
        _log_from(None)
    (record,) = caplog.records
    assert record.levelname == "WARNING"
    assert "session ended" in record.getMessage()
    assert "Traceback" not in caplog.text


def test_a_real_fault_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="mcp.server.streamable_http"):
        _log_from(RuntimeError)
    (record,) = caplog.records
    assert record.levelname == "ERROR"
    assert "Traceback" in caplog.text and "RuntimeError: boom" in caplog.text
