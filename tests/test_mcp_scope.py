"""What an MCP server offers and allows (issue 39): tool annotations on every tool, `--tools`
sets, the read-only scope (a flag, or the read-only HTTP token), `--write-folders`, and the
origin `mcp:<clientInfo.name>` each call runs as, also in the owner a call is forwarded to.

Through the SDK's Streamable HTTP client against a real server on 127.0.0.1 over a real
index (hash embedder); the stdio side is in test_mcp_scope_stdio.py."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from click.testing import CliRunner
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

from kbtui import cli
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.mcp.http import HttpServer, load_token, token_path
from kbtui.mcp.scope import McpScope
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.runtime.remote import RemoteVault
from kbtui.runtime.runtime import VaultHandle, VaultRuntime
from kbtui.runtime.shared import SharedVault, open_vault, open_vault_once
from kbtui.store import Store
from kbtui.tools.catalog import PUBLISHED, READS, TOOL_GROUPS, UnknownTools, tool_set
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tools.write.service import ForbiddenError, NoteWriter

LIMIT = 28_000  # characters of tools/list an assistant pays for (docs/mcp.md)
NEW_ENTITY = {"name": "Scope Probe", "type": "person"}
READ_ONLY = {n for n, s in PUBLISHED.items() if s.effects.read_only}
EXTRACTORS = {"kg_extract_from_text", "kg_extract_from_memory"}  # write only with persist


def listed_chars(tools: list[types.Tool]) -> int:
    """The size of tools/list as an assistant gets it: the JSON of the tools received."""
    return len(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools]))


class Client:
    """One SDK client session over HTTP, used from plain test code."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal, self.session = portal, session

    def tools(self) -> list[types.Tool]:
        return self.portal.call(self.session.list_tools).tools

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = self.portal.call(self.session.call_tool, name, args)
        answer = result.structured_content
        assert isinstance(answer, dict) and result.is_error is (not answer["ok"])
        return answer

    def refused(self, name: str, args: dict[str, Any], error_type: str) -> str:
        answer = self.call(name, args)
        assert answer["ok"] is False and answer["error_type"] == error_type, answer
        assert answer["error"]["retryable"] is False
        return str(answer["message"])


@asynccontextmanager
async def _session(url: str, token: str, name: str) -> AsyncIterator[ClientSession]:
    info = types.Implementation(name=name, version="1")
    async with (
        httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, client_info=info) as session,
    ):
        await session.initialize()
        yield session


@contextmanager
def served(
    handle: VaultHandle, scope: McpScope | None = None, read_token: str | None = None
) -> Iterator[HttpServer]:
    index_dir = handle.settings.index_dir  # type: ignore[attr-defined]
    server = HttpServer(
        handle, "127.0.0.1", 0, load_token(index_dir), read_token=read_token, scope=scope
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def client(server: HttpServer, token: str, name: str = "probe") -> Iterator[Client]:
    url = f"http://127.0.0.1:{server.port}/mcp"
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_session(url, token, name)) as session,
    ):
        yield Client(portal, session)


def full_token(handle: VaultHandle) -> str:
    return load_token(handle.settings.index_dir)  # type: ignore[attr-defined]


# -- the contracts -------------------------------------------------------------------------
def test_every_published_tool_says_what_it_does_to_the_vault() -> None:
    for name, spec in PUBLISHED.items():
        hints = spec.effects.annotations()
        assert hints["openWorldHint"] is False, name
        assert hints.get("readOnlyHint", False) is spec.effects.read_only, name
        if not spec.effects.read_only:  # said even though true is the default
            assert hints["destructiveHint"] is spec.effects.destructive, name
        if name in READS:  # what the owner repeats after a crash must be a read
            assert hints == {"readOnlyHint": True, "openWorldHint": False}, name
    writers = {n for n, s in PUBLISHED.items() if not s.effects.read_only}
    assert writers == {
        "knowledge_import", "kg_create_entity", "kg_create_relationship",
        "kg_extract_from_text", "kg_extract_from_memory", "kg_merge_entities",
        "kg_rename_entity", "task_update", "daily_append",
        "note_write", "note_edit", "note_delete", "note_history",
    }  # fmt: skip
    destructive = {
        n for n, s in PUBLISHED.items() if s.effects.annotations().get("destructiveHint")
    }
    assert destructive == {
        "kg_merge_entities", "kg_rename_entity", "note_write", "note_edit", "note_delete",
        "note_history",
    }  # fmt: skip
    # a call that only reads is a read, whatever the tool may do otherwise
    extract = PUBLISHED["kg_extract_from_text"]
    assert extract.reads({"text": "x"}) and not extract.reads({"text": "x", "persist": True})
    rename = PUBLISHED["kg_rename_entity"]
    assert rename.reads({"dryRun": True}) and not rename.reads({}) and not rename.reads(None)
    assert not rename.reads({"dryRun": 1})  # 1 is not true: a wrong type is no read


def test_tool_sets_are_groups_and_names() -> None:
    assert set(TOOL_GROUPS) == {"kb", "graph", "vault", "read", "write", "all"}
    assert tool_set("all") == tuple(PUBLISHED)
    assert set(tool_set("read")) == READ_ONLY and "kg_extract_from_text" not in READ_ONLY
    assert tool_set("vault, kb_search") == ("kb_search", *TOOL_GROUPS["vault"])
    assert set(tool_set("kb,graph,vault")) == set(PUBLISHED)
    for bad in ("reed", "kb_search,app_sql", " , "):
        with pytest.raises(UnknownTools):
            tool_set(bad)


def test_the_command_line_checks_its_scope_options(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    run = CliRunner().invoke
    for args, word in (
        (["--tools", "reed"], "reed"),
        (["--write-folders", "Inbox,../up"], "../up"),
        (["--write-folders", "/etc"], "/etc"),
    ):
        result = run(cli.main, ["mcp", "--vault", str(vault), *args])
        assert result.exit_code == 2 and word in result.output, result.output
    index_dir = Settings.for_vault(vault).index_dir
    full = run(cli.main, ["mcp", "--vault", str(vault), "--show-token"]).output.strip()
    read = run(cli.main, ["mcp", "--vault", str(vault), "--show-token", "--read-only"]).output
    assert full == load_token(index_dir) and read.strip() == load_token(index_dir, True)
    assert full != read.strip() and token_path(index_dir, True).stat().st_mode & 0o777 == 0o600


# -- over HTTP -------------------------------------------------------------------------------
def test_every_tool_is_listed_with_its_annotations_within_the_budget(
    runtime: VaultRuntime,
) -> None:
    """And what each --tools set costs an assistant (printed: docs/mcp.md has the table)."""
    sizes: dict[str, tuple[int, int]] = {}
    with served(runtime) as server, client(server, full_token(runtime)) as mcp:
        listed = mcp.tools()
    assert [t.name for t in listed] == list(PUBLISHED)
    for tool in listed:
        want = PUBLISHED[tool.name].effects.annotations()
        assert tool.annotations is not None, tool.name
        assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == want
    sizes["all"] = (len(listed), listed_chars(listed))
    for group in TOOL_GROUPS:
        scope = McpScope(tool_set(group), label=group)
        with served(runtime, scope) as server, client(server, full_token(runtime)) as mcp:
            tools = mcp.tools()
        assert [t.name for t in tools] == list(tool_set(group))
        sizes[group] = (len(tools), listed_chars(tools))
    print("tools/list per --tools set (tools, characters):", sizes)
    assert sizes["all"][1] < LIMIT
    assert sizes["read"][1] < sizes["all"][1] * 3 // 4


def test_tools_read_lists_only_reads_and_refuses_a_write(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    before = sorted(p.relative_to(vault) for p in vault.rglob("*.md"))
    scope = McpScope(tool_set("read"), label="read")
    with served(runtime, scope) as server, client(server, full_token(runtime)) as mcp:
        names = [t.name for t in mcp.tools()]
        assert names == list(TOOL_GROUPS["read"])
        assert all(PUBLISHED[n].effects.read_only for n in names)
        assert "daily_append" not in names and "kg_create_entity" not in names
        why = mcp.refused("daily_append", {"content": "not here"}, "ValidationError")
        assert why == "daily_append is not offered here (kbtui mcp --tools read)"
        mcp.refused("app_sql", {"query": "select 1"}, "ValidationError")
        assert mcp.call("kb_search", {"query": "watch", "mode": "keyword"})["ok"]
    assert sorted(p.relative_to(vault) for p in vault.rglob("*.md")) == before


def test_read_only_hides_the_writes_and_refuses_them_as_forbidden(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    note = vault / "people" / "andrei_clodius.md"
    before = note.read_bytes()
    scope = McpScope(read_only=True)
    with served(runtime, scope) as server, client(server, full_token(runtime), "Claude") as mcp:
        names = {t.name for t in mcp.tools()}
        assert names == READ_ONLY | EXTRACTORS | {"note_history"}  # their default call reads
        why = mcp.refused("kg_create_entity", NEW_ENTITY, "ForbiddenError")
        assert why == "mcp:Claude is read-only here: kg_create_entity writes; not run"
        merge = {"targetEntityId": "person:andrei_clodius", "sourceEntityIds": ["person:x_y"]}
        mcp.refused("kg_merge_entities", merge, "ForbiddenError")
        persist = {"text": "Ada Quux works at Initech.", "persist": True}
        assert "read-only" in mcp.refused("kg_extract_from_text", persist, "ForbiddenError")
        rename = {"entityId": "person:andrei_clodius", "newName": "Andrei C"}
        mcp.refused("kg_rename_entity", rename, "ForbiddenError")
        preview = mcp.call("kg_rename_entity", {**rename, "dryRun": True})  # reads: allowed
        assert preview["ok"] and preview["filesChanged"], preview
        assert mcp.call("kg_extract_from_text", {"text": persist["text"]})["ok"]
        assert mcp.call("kb_search", {"query": "watch", "mode": "keyword"})["ok"]
    assert note.read_bytes() == before and not list(vault.rglob("Scope Probe*"))


def test_the_read_only_token_searches_and_cannot_write(settings: Settings) -> None:
    """Through the vault's owner (a second handle on it, as a `kbtui mcp --http` beside the
    TUI): the owner runs the call as the client and refuses it there."""
    owner = open_vault(settings, HashEmbedder, watch=False)
    assert owner.runtime is not None and owner.runtime.worker.wait_idle(60)
    try:
        with open_vault_once(settings, HashEmbedder) as forwarder:
            assert forwarder.role == "client"
            read_token = load_token(settings.index_dir, read_only=True)
            with served(forwarder, read_token=read_token) as server:
                with client(server, read_token, "reader") as mcp:
                    names = {t.name for t in mcp.tools()}
                    assert names == READ_ONLY | EXTRACTORS | {"note_history"}
                    found = mcp.call("kb_search", {"query": "watch", "mode": "keyword"})
                    assert found["ok"] and found["results"]
                    why = mcp.refused("kg_create_entity", NEW_ENTITY, "ForbiddenError")
                    assert why.startswith("mcp:reader is read-only here")
                with client(server, full_token(forwarder), "writer") as mcp:
                    assert {t.name for t in mcp.tools()} == set(PUBLISHED)
                    made = mcp.call("kg_create_entity", NEW_ENTITY)
                    assert made["ok"], made
    finally:
        owner.close()
    assert len(list(settings.vault.rglob("Scope Probe.md"))) == 1


def test_write_folders_refuse_writes_elsewhere(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    before = sorted(p.relative_to(vault) for p in vault.rglob("*.md"))
    scope = McpScope(write_folders=("Inbox",))
    with served(runtime, scope) as server, client(server, full_token(runtime), "bot") as mcp:
        names = {t.name for t in mcp.tools()}
        # a write that does not check each note against the folders is neither offered nor run
        assert names == {n for n, s in PUBLISHED.items() if s.reads() or s.effects.scoped}
        why = mcp.refused("daily_append", {"content": "log line"}, "ForbiddenError")
        assert why.startswith("mcp:bot may write only in Inbox: ")
        assert "Inbox" in mcp.refused("kg_create_entity", NEW_ENTITY, "ForbiddenError")
        assert mcp.call("tasks_list", {})["ok"]
    assert sorted(p.relative_to(vault) for p in vault.rglob("*.md")) == before


def test_each_session_is_named_after_its_client(runtime: VaultRuntime) -> None:
    scope = McpScope(read_only=True)
    with served(runtime, scope) as server:
        token = full_token(runtime)
        with client(server, token, "first") as one, client(server, token, "sec ond\n") as two:
            assert one.refused("daily_append", {"content": "x"}, "ForbiddenError").startswith(
                "mcp:first "
            )
            assert two.refused("daily_append", {"content": "x"}, "ForbiddenError").startswith(
                "mcp:sec_ond_ "
            )


# -- nothing leaves the vault ----------------------------------------------------------------
def test_writes_through_mcp_never_leave_the_vault(runtime: VaultRuntime, tmp_path: Path) -> None:
    vault = runtime.settings.vault
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "target.md"
    target.write_text("- [ ] secret task\n")
    (vault / "outdir").symlink_to(outside, target_is_directory=True)
    (vault / "link.md").symlink_to(target)
    runtime.reindex()
    with served(runtime) as server, client(server, full_token(runtime)) as mcp:
        for file in ("../outside/target.md", str(target), "outdir/target.md", "link.md"):
            answer = mcp.call("task_update", {"file": file, "line": 1, "status": "done"})
            assert target.read_text() == "- [ ] secret task\n", (file, answer)
        for name in ("../escaped", str(outside / "abs"), "outdir/moved"):
            args = {"entityId": "person:andrei_clodius", "newName": name}
            assert "leave the vault" in mcp.refused("kg_rename_entity", args, "ValidationError")
        made = mcp.call("kg_create_entity", {"name": "../../evil", "type": "person"})
        assert made["ok"] and ".." not in made["entity"]["source"]
        imported = mcp.call("knowledge_import", {"title": "../../../pwn", "content": "x"})
        assert imported["ok"] and (vault / imported["file_path"]).resolve().is_relative_to(vault)
    assert sorted(p.name for p in outside.iterdir()) == ["target.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "vault"]


# -- the owner runs a forwarded call as its caller -------------------------------------------
def test_the_owner_runs_a_forwarded_call_as_the_caller(settings: Settings) -> None:
    owner = open_vault(settings, HashEmbedder, watch=False)
    assert owner.runtime is not None and owner.runtime.worker.wait_idle(60)
    remote = RemoteVault.connect(settings)
    assert remote is not None
    try:
        with acting_as(Origin("mcp:far", read_only=True)):
            refused = remote.call("kg_create_entity", NEW_ENTITY)
            read = remote.call("kb_get", {"id": "person:andrei_clodius"})
        assert refused["error_type"] == "ForbiddenError"
        assert refused["message"].startswith("mcp:far is read-only here")
        assert read["ok"]  # its reads are served
        with acting_as(Origin("mcp:far", write_folders=("Inbox",))):
            held = remote.call("daily_append", {"content": "x"})
        assert held["message"].startswith("mcp:far may write only in Inbox")
        # a request without an origin (the field is optional) runs as the default origin
        old = {"name": "kg_create_entity", "args": {**NEW_ENTITY, "name": "Old"}}
        assert _raw_call(owner, {"id": 1, "method": "call", "params": old})["result"]["ok"]
    finally:
        remote.close()
        owner.close()


def _raw_call(owner: SharedVault, request: dict[str, Any]) -> dict[str, Any]:
    assert owner.server is not None and owner.server.path is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(owner.server.path))
        sock.settimeout(30)
        sock.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            assert chunk
            data += chunk
    return json.loads(data)  # type: ignore[no-any-return]


def test_a_write_through_mcp_is_in_the_history_under_the_clients_name(
    runtime: VaultRuntime,
) -> None:
    if "note_write" not in PUBLISHED:
        pytest.skip("no MCP tool writes through NoteWriter yet (note_write: branch notes)")
    with served(runtime) as server, client(server, full_token(runtime), "historian") as mcp:
        made = mcp.call("note_write", {"path": "Inbox/probe.md", "content": "# Probe\n"})
        assert made["ok"], made
    history = runtime.kb.tools.parts.history
    assert history is not None
    assert [v.source for v in history.versions("Inbox/probe.md")] == ["mcp:historian"]


def test_folders_hold_by_where_a_path_leads(tmp_path: Path) -> None:
    """`Inbox/../people/x.md` and a link `Inbox/people -> ../people` are not in Inbox."""
    vault = tmp_path / "vault"
    (vault / "people").mkdir(parents=True)
    (vault / "Inbox").mkdir()
    (vault / "Inbox" / "people").symlink_to(vault / "people", target_is_directory=True)
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    try:
        writer = NoteWriter(base.tools.parts)
        with acting_as(Origin("mcp:x", write_folders=("Inbox",))):
            for path in ("Inbox/people/new.md", "Inbox/../people/new.md", "people/new.md"):
                with pytest.raises(ForbiddenError, match="mcp:x may write only in Inbox"):
                    writer.create(path, "# New\n")
            writer.create("Inbox/new.md", "# New\n")
        assert not (vault / "people" / "new.md").exists()
        history = base.tools.parts.history
        assert history is not None
        assert [v.source for v in history.versions("Inbox/new.md")] == ["mcp:x"]
    finally:
        base.close()


def test_the_tui_calls_as_the_tui() -> None:
    """The TUI's one dispatch point names it, on whatever thread it runs."""
    from kbtui.tools.write.origin import current
    from kbtui.tui.app import KbApp

    class WhoAsks:  # a VaultHandle's call, answering with the origin it runs under
        def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
            return {"ok": True, "origin": current().as_dict()}

    app = KbApp(WhoAsks())  # type: ignore[arg-type]
    assert app.tool("kb_search", {"query": "x"})["origin"]["source"] == "tui"
    assert current().source == "cli"  # and only inside the call
