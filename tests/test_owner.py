"""Sharing one vault, in one process: the owner's socket server and its clients over a real
Unix socket and a real DuckDB file (hash embedder: the model does not matter here)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.interpreter import SWITCH_INTERVAL
from kbtui.runtime.owner import MAX_REQUEST, OwnerServer, OwnerUnavailable, read_record
from kbtui.runtime.remote import RemoteVault
from kbtui.runtime.shared import (
    START_WAIT,
    SharedVault,
    open_vault,
    open_vault_once,
    repeatable,
)
from kbtui.store import Store, StoreLockedError


def normal(value: Any) -> Any:
    """What a value looks like after a trip through the socket."""
    return json.loads(json.dumps(value, default=str))


def wait_until(check: Any, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def opened(settings: Settings, **kwargs: Any) -> SharedVault:
    handle = open_vault(settings, HashEmbedder, watch=False, **kwargs)
    assert handle.runtime is not None and handle.runtime.worker.wait_idle(60)
    return handle


@pytest.fixture
def owner(settings: Settings) -> Iterator[SharedVault]:
    handle = opened(settings)
    yield handle
    handle.close()


def raw_client(owner: SharedVault) -> socket.socket:
    assert owner.server is not None and owner.server.path is not None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(owner.server.path))
    sock.settimeout(10)
    return sock


def exchange(sock: socket.socket, data: bytes) -> dict[str, Any]:
    sock.sendall(data)
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = sock.recv(65536)
        assert chunk, "the owner closed the connection"
        answer += chunk
    return json.loads(answer)  # type: ignore[no-any-return]


CALLS: list[tuple[str, dict[str, Any] | None]] = [
    ("kb_get", {"id": "person:andrei_clodius"}),
    ("kb_get", {"id": "person:nonexistent"}),
    ("kb_get", {"id": "Bad Id"}),
    ("kb_search", {"query": "ab"}),
    ("kb_search", {"query": "Zephyr firmware", "mode": "keyword"}),
    ("kg_get_entity", {"entityId": "person:nobody"}),
    ("kg_find_entity", {"name": "x", "limit": 51}),
    ("kb_teleport", {}),
    ("kb_get", None),
]


def test_an_owner_hands_the_interpreter_lock_over_as_often_as_an_mcp_server(
    settings: Settings,
) -> None:
    """Other processes' calls (a `kbtui mcp` beside the TUI) run in the owner's process
    beside its own work, so it sets the MCP servers' switch interval while it serves, and puts
    back the one it found once the last owner in the process closes."""
    found = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        first = opened(settings)
        remote = RemoteVault.connect(settings)
        assert remote is not None and remote.owner_pid == os.getpid()
        try:
            assert remote.call("kb_get", {"id": "person:andrei_clodius"})["ok"]
            assert sys.getswitchinterval() == SWITCH_INTERVAL
        finally:
            remote.close()
            first.close()
        assert sys.getswitchinterval() == 0.005
    finally:
        sys.setswitchinterval(found)


def test_the_socket_gives_the_same_answers_and_envelopes_as_the_owner(
    owner: SharedVault, settings: Settings
) -> None:
    assert owner.role == "owner" and owner.server is not None
    path = owner.server.path
    assert path == settings.index_dir / "owner.sock"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_record(settings.index_dir) == {
        "pid": os.getpid(), "socket": str(path), "protocol": 1
    }  # fmt: skip
    remote = RemoteVault.connect(settings)
    assert remote is not None and remote.owner_pid == os.getpid()
    try:
        for name, args in CALLS:
            here, there = owner.call(name, args), remote.call(name, args)
            assert there == normal(here), name
        assert not remote.call("kb_get", {"id": "person:nonexistent"})["ok"]
        notes, total = remote.note_page(3, 5)
        assert [notes, total] == normal(owner.note_page(3, 5)) and len(notes) == 5
        assert total == owner.note_page(0, 0)[1] > 50
        status = remote.status()
        assert status["pid"] == os.getpid() and status["stats"]["notes"] > 50
        assert os.getpid() in owner.status()["clients"]
        report = remote.reindex(embed=True)
        assert report.new == report.changed == [] and report.unchanged > 50
        assert {s.path for s in report.skipped} == {"_broken/binary.md"}
    finally:
        remote.close()


def test_a_second_open_in_the_same_process_is_a_client_of_the_first(
    owner: SharedVault, settings: Settings
) -> None:
    with open_vault_once(settings, HashEmbedder) as second:
        assert second.role == "client" and second.owner_pid == os.getpid()
        assert second.call("kb_get", {"id": "person:andrei_clodius"})["ok"]
        assert second.status()["role"] == "client"


def test_malformed_requests_are_answered_and_the_owner_keeps_serving(
    owner: SharedVault, settings: Settings
) -> None:
    sock = raw_client(owner)
    for line, words in [
        (b"this is not json\n", "not JSON"),
        (b"[1, 2]\n", "JSON object"),
        (b'{"id": 1, "method": "teleport"}\n', "unknown method"),
        (b'{"id": 2, "method": "call", "params": {"name": 5}}\n', "tool name"),
        (b'{"id": 3, "method": "call", "params": []}\n', "params must be"),
        (b'{"id": 4, "method": "note_page", "params": {"start": -1, "size": 5}}\n', "start"),
        (b'{"id": 5, "method": "reindex", "params": {"embed": "yes"}}\n', "embed"),
        (b"\xff\xfe\n", "not JSON"),
    ]:
        answer = exchange(sock, line)
        assert answer["error"]["code"] == "bad_request" and words in answer["error"]["message"]
    ok = exchange(sock, b'{"id": 9, "method": "call", "params": {"name": "kb_get", '
                        b'"args": {"id": "person:andrei_clodius"}}}\n')  # fmt: skip
    assert ok["id"] == 9 and ok["result"]["ok"] is True  # the same connection still works

    sock.sendall(b"x" * (MAX_REQUEST + 1))  # no newline within the limit
    answer = json.loads(sock.makefile("rb").readline())
    assert answer["error"]["code"] == "too_large"
    assert sock.recv(1) == b""  # then that connection is closed
    sock.close()

    half = raw_client(owner)  # a client hanging up mid-request: the partial line never runs
    args = {"title": "Half sent", "content": "never imported"}
    request = {"id": 1, "method": "call", "params": {"name": "knowledge_import", "args": args}}
    half.sendall(json.dumps(request).encode())
    half.close()
    time.sleep(0.2)
    assert not (settings.vault / "imports").exists()
    assert owner.call("kb_get", {"id": "person:andrei_clodius"})["ok"]
    with open_vault_once(settings, HashEmbedder) as client:
        assert client.call("kb_search", {"query": "Zephyr", "mode": "keyword"})["ok"]


def test_the_socket_moves_to_a_private_folder_when_the_index_path_is_too_long(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime_dir = Path(tempfile.mkdtemp(prefix="kbrt", dir="/tmp"))
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
        deep = vault.parent / ("a-very-long-folder-name-" * 4) / "index"
        settings = Settings.for_vault(vault, index_dir=deep)
        with opened(settings) as handle:
            assert handle.server is not None and handle.server.path is not None
            path = handle.server.path
            assert path.parent == runtime_dir / "kbtui" and len(str(path)) < 100
            assert stat.S_IMODE((runtime_dir / "kbtui").stat().st_mode) == 0o700
            assert read_record(deep)["socket"] == str(path)
            monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")  # the record still says
            with open_vault_once(settings, HashEmbedder) as client:
                assert client.role == "client"
                assert client.call("kb_get", {"id": "person:andrei_clodius"})["ok"]
        assert not path.exists() and read_record(deep) == {}
    finally:
        shutil.rmtree(runtime_dir, ignore_errors=True)


def test_an_owner_that_stops_at_once_raises_nothing_on_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that fails validation opens the vault and closes it within milliseconds;
    the accept thread must not find its listener already closed (it printed a traceback)."""
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    settings = Settings.for_vault(tmp_path, index_dir=tmp_path / "index")
    settings.index_dir.mkdir()
    runtime: Any = type("Runtime", (), {"settings": settings})()  # only its settings are read
    for _ in range(200):
        server = OwnerServer(runtime)
        assert server.start() == settings.index_dir / "owner.sock"
        server.stop_accepting()
        server.close()
        assert not (settings.index_dir / "owner.sock").exists()
    assert failures == []
    assert read_record(settings.index_dir) == {}


HOLDER = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('held', flush=True); input()"


def test_an_index_held_by_a_process_that_does_not_answer(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clear error after `wait`; and an open that waits gets the index once it is free."""
    refused = threading.Event()  # an open found the file held (and will try again)
    own = SharedVault._own

    def watched_own(vault: SharedVault) -> None:
        try:
            own(vault)
        except StoreLockedError:
            refused.set()
            raise

    monkeypatch.setattr(SharedVault, "_own", watched_own)
    Store(settings.db_path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(settings.db_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(OwnerUnavailable):  # one try: what an open imports is not timed
            open_vault_once(settings, HashEmbedder, wait=0)
        started = time.monotonic()
        with pytest.raises(OwnerUnavailable, match=r"open in another process .* close it"):
            open_vault_once(settings, HashEmbedder, wait=0.5)
        # it waited as asked: at least `wait`, and not the default START_WAIT (15 s)
        assert 0.5 <= time.monotonic() - started < START_WAIT

        got: list[SharedVault] = []
        opener = threading.Thread(
            target=lambda: got.append(open_vault_once(settings, HashEmbedder, wait=60))
        )
        refused.clear()
        opener.start()
        assert refused.wait(60)  # it found the file held ...
        assert not got and opener.is_alive()  # ... and still waits for it
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        opener.join(60)  # a deadline for an open that never comes, not a speed bound
        assert got and got[0].role == "owner"
        got[0].close()
    finally:
        holder.kill()
        holder.wait()


def test_when_the_owner_closes_a_client_takes_over_and_writes_land_once(
    settings: Settings,
) -> None:
    first = opened(settings)
    second = open_vault(settings, HashEmbedder, watch=True)
    try:
        assert second.role == "client"
        made = second.call("knowledge_import", {"title": "Before", "content": "Made via owner."})
        assert made["ok"] and first.call("kb_get", {"id": made["entity_id"]})["ok"]
        first.close()
        assert wait_until(lambda: second.role == "owner"), second.status()
        assert second.runtime is not None and second.runtime.worker.wait_idle(30)
        assert second.call("kb_get", {"id": made["entity_id"]})["ok"]
        after = second.call("knowledge_import", {"title": "After", "content": "Made later."})
        assert after["ok"] and second.status()["role"] == "owner"
        files = sorted(p.name for p in (settings.vault / "imports").iterdir())
        assert files == ["After.md", "Before.md"]
    finally:
        first.close()
        second.close()
    assert not (settings.index_dir / "owner.sock").exists()


def test_only_reads_are_repeated_when_an_owner_dies_mid_call() -> None:
    assert repeatable("kb_search", {}) and repeatable("kg_find_path", {})
    assert repeatable("kg_extract_from_text", {"text": "x"})
    assert not repeatable("kg_extract_from_text", {"text": "x", "persist": True})
    for write in ("knowledge_import", "kg_create_entity", "kg_merge_entities", "kb_teleport"):
        assert not repeatable(write, {})
    assert repeatable("kg_merge_entities", {"dryRun": True})  # it writes nothing


def test_catch_up_reads_only_what_changed_while_nothing_ran(settings: Settings) -> None:
    store = Store(settings.db_path)
    try:
        first = Indexer(settings, store, HashEmbedder()).run()
        vault = settings.vault
        note = vault / "people" / "andrei_clodius.md"
        note.write_text(note.read_text() + "\nA new line.\n")
        (vault / "concepts" / "fresh.md").write_text("# Fresh\nWritten while closed.\n")
        (vault / "people" / "maya_okafor.md").unlink()
        os.utime(vault / "Home.md", ns=(1, 1))  # touched, bytes unchanged
        reads: list[int] = []

        def progress(phase: str, done: int, total: int) -> None:
            if phase == "read":
                reads.append(done)

        report = Indexer(settings, store, HashEmbedder(), progress).run()
    finally:
        store.close()
    # the edited, the new and the touched note, and the binary note (never indexed, so
    # nothing records that it did not change): nothing else of the vault's 60
    assert len(reads) == 3 + len(report.skipped) and len(report.skipped) == 1
    assert report.changed == ["people/andrei_clodius.md"] and report.new == ["concepts/fresh.md"]
    assert report.deleted == ["people/maya_okafor.md"]
    assert report.unchanged == len(first.new) - 2


def dying_owner(settings: Settings) -> list[dict[str, Any]]:
    """A process that answers hello on the vault's socket, then dies in the middle of the
    next request (reads it, closes without answering). Returns what it received."""
    received: list[dict[str, Any]] = []
    path = settings.index_dir / "owner.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        lines = conn.makefile("rb")
        hello = json.loads(lines.readline())
        about = {"protocol": 1, "pid": 1, "vault": str(settings.vault),
                 "index_dir": str(settings.index_dir)}  # fmt: skip
        conn.sendall(json.dumps({"id": hello["id"], "result": about}).encode() + b"\n")
        received.append(json.loads(lines.readline()))
        listener.close()
        path.unlink()
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return received


def test_an_owner_dying_mid_call_repeats_a_read_but_never_a_write(settings: Settings) -> None:
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()

    received = dying_owner(settings)
    with open_vault_once(settings, HashEmbedder) as client:
        assert client.role == "client" and client.owner_pid == 1
        args = {"title": "Maybe twice", "content": "Must not land twice."}
        answer = client.call("knowledge_import", args)
        origin = {"source": "cli", "read_only": False, "write_folders": []}
        assert received[0]["params"] == {"name": "knowledge_import", "args": args, "origin": origin}
        assert answer["ok"] is False and answer["error_type"] == "UnavailableError"
        assert answer["error"]["retryable"] is False
        assert "may have been applied" in answer["message"]
        assert not (settings.vault / "imports").exists()  # not repeated on the next owner
        assert client.call("kb_get", {"id": "person:andrei_clodius"})["ok"]  # then takes over
        assert client.role == "owner"

    received = dying_owner(settings)
    with open_vault_once(settings, HashEmbedder) as client:
        assert client.role == "client"
        note = client.call("kb_get", {"id": "person:andrei_clodius"})
        assert received[0]["params"]["name"] == "kb_get"
        assert note["ok"] and client.role == "owner"  # repeated here, transparently
