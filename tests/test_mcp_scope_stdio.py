"""`kbtui mcp --tools / --read-only / --write-folders` over stdio: a real server process driven
by the SDK's stdio client. Each server is a client of an owner opened in this process (hash
embedder), as `kbtui mcp` beside a running TUI is: the scope and the client's name travel
with every call to the owner, which refuses there what the scope does not allow."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.shared import SharedVault, open_vault
from kbtui.tools.catalog import PUBLISHED, TOOL_GROUPS
from tests.conftest import REPO
from tests.test_mcp import server_args
from tests.test_mcp_scope import EXTRACTORS, NEW_ENTITY, READ_ONLY, Client, listed_chars


@pytest.fixture
def owner(settings: Settings) -> Iterator[SharedVault]:
    handle = open_vault(settings, HashEmbedder, watch=False)
    assert handle.runtime is not None and handle.runtime.worker.wait_idle(60)
    yield handle
    handle.close()


@asynccontextmanager
async def _session(vault: Path, errlog: Any, extra: tuple[str, ...]) -> AsyncIterator[Any]:
    params = StdioServerParameters(
        command=sys.executable, args=server_args(vault, "--no-watch", *extra), cwd=REPO
    )
    info = types.Implementation(name="stdio-probe", version="1")
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write, client_info=info) as session,
    ):
        await session.initialize()
        yield session


@contextmanager
def stdio(owner: SharedVault, *extra: str) -> Iterator[Client]:
    vault = owner.settings.vault
    with (
        open(vault.parent / "server.log", "a") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_session(vault, errlog, extra)) as session,
    ):
        yield Client(portal, session)
    log = (vault.parent / "server.log").read_text()
    assert "through kbtui process" in log or "using the vault through" in log, log
    assert "Traceback" not in log, log


def notes(vault: Path) -> list[Path]:
    return sorted(p.relative_to(vault) for p in vault.rglob("*.md"))


def test_read_only_over_stdio(owner: SharedVault) -> None:
    vault = owner.settings.vault
    before = notes(vault)
    with stdio(owner, "--read-only") as mcp:
        tools = mcp.tools()
        assert {t.name for t in tools} == READ_ONLY | EXTRACTORS | {"note_history"}
        assert all(t.annotations and t.annotations.open_world_hint is False for t in tools)
        why = mcp.refused("kg_create_entity", NEW_ENTITY, "ForbiddenError")
        assert why == "mcp:stdio-probe is read-only here: kg_create_entity writes; not run"
        mcp.refused("daily_append", {"content": "x"}, "ForbiddenError")
        found = mcp.call("kb_search", {"query": "Zephyr firmware", "mode": "keyword"})
        assert found["ok"] and found["results"]  # the owner's reads are served
    assert notes(vault) == before


def test_tools_read_over_stdio(owner: SharedVault) -> None:
    vault = owner.settings.vault
    before = notes(vault)
    with stdio(owner, "--tools", "read") as mcp:
        tools = mcp.tools()
        assert [t.name for t in tools] == list(TOOL_GROUPS["read"])
        assert listed_chars(tools) < 20_000
        why = mcp.refused("daily_append", {"content": "x"}, "ValidationError")
        assert "not offered here (kbtui mcp --tools read)" in why
    assert notes(vault) == before


def test_write_folders_over_stdio(owner: SharedVault) -> None:
    vault = owner.settings.vault
    before = notes(vault)
    with stdio(owner, "--write-folders", "Inbox,Projects/Drafts", "--tools", "all") as mcp:
        names = {t.name for t in mcp.tools()}
        assert names <= set(PUBLISHED) and "kb_search" in names
        why = mcp.refused("daily_append", {"content": "x"}, "ForbiddenError")
        assert why.startswith("mcp:stdio-probe may write only in Inbox, Projects/Drafts")
    assert notes(vault) == before
