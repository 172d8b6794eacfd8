"""One vault, several kbtui processes at once: `kbtui mcp` servers driven by the SDK's stdio
client and CLI commands, all real processes on one real DuckDB file with the real model.

The first server owns the index; the others reach it over its socket. Reads and writes from
all of them at once: no lock error, every import lands once and is searchable everywhere.
Then owners are stopped (SIGTERM) and killed (SIGKILL): a connected server takes over,
keeps answering and indexes what changes afterwards."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal

from kbtui.config import Settings
from tests.conftest import REPO
from tests.test_mcp import Mcp, open_session

LOCK_WORDS = ("Could not set lock", "open in another kbtui process", "Traceback")


def kbtui(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args, "--vault", str(vault)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


class Servers:
    """`kbtui mcp` processes on one vault, each with its own client session and log."""

    def __init__(self, vault: Path, stack: ExitStack) -> None:
        self.vault, self.stack = vault, stack
        self.portal = stack.enter_context(start_blocking_portal())
        self.logs: list[Path] = []

    def start(self) -> Mcp:
        log = self.vault.parent / f"server{len(self.logs)}.log"
        self.logs.append(log)
        errlog = self.stack.enter_context(log.open("w"))
        cm = self.portal.wrap_async_context_manager(open_session(self.vault, errlog))
        return Mcp(self.portal, self.stack.enter_context(cm), self.vault)

    def check_logs(self) -> None:
        for log in self.logs:
            text = log.read_text()
            assert not any(word in text for word in LOCK_WORDS), text[-3000:]


@pytest.fixture
def shared_vault(tmp_path: Path, indexed_example: Settings) -> Path:
    """vault_example with its index (file times kept: nothing to re-read)."""
    return Path(shutil.copytree(indexed_example.vault, tmp_path / "vault", symlinks=True))


@pytest.fixture
def servers(shared_vault: Path) -> Iterator[Servers]:
    with ExitStack() as stack:
        yield Servers(shared_vault, stack)


def role(server: Mcp) -> tuple[str, int, int]:
    """(role, this server's pid, the owner's pid)."""
    status = server.status()
    return status["role"], status["process"], status["pid"]


def keyword_ids(server: Mcp, word: str) -> set[str]:
    hits = server.good("kb_search", {"query": word, "mode": "keyword", "top_k": 10})["results"]
    return {h["id"] for h in hits}


def test_servers_and_commands_read_and_write_one_vault_at_once(servers: Servers) -> None:
    vault = servers.vault
    a = servers.start()
    b = servers.start()
    a_role, a_pid, _ = role(a)
    assert a_role == "owner" and role(b) == ("client", role(b)[1], a_pid)

    def doc(n: int) -> str:
        return f"Imported from a process: the word zqvx{n}plor marks document {n}.\n" * 3

    for n in range(4, 6):
        (vault.parent / f"doc{n}.txt").write_text(doc(n))
    jobs: list[tuple[str, Callable[[], Any]]] = [
        *(
            (f"mcp{n}", lambda s=s, n=n: s.good(
                "knowledge_import", {"title": f"Doc {n}", "content": doc(n)}))
            for n, s in enumerate((a, a, b, b))
        ),
        *(
            (f"cli{n}", lambda n=n: kbtui(
                vault, "import", str(vault.parent / f"doc{n}.txt"), "--title", f"Doc {n}",
                "--json"))
            for n in (4, 5)
        ),
        ("search", lambda: kbtui(vault, "search", "Zephyr firmware", "--json")),
        ("get", lambda: kbtui(vault, "get", "person:andrei_clodius", "--json")),
        ("index", lambda: kbtui(vault, "index", "--json")),
        ("b_search", lambda: b.good("kb_search", {"query": "who worked on the watch"})),
        ("a_get", lambda: a.good("kb_get", {"id": "person:maya_okafor"})),
    ]  # fmt: skip
    with ThreadPoolExecutor(len(jobs)) as pool:
        futures: dict[str, Future[Any]] = {name: pool.submit(job) for name, job in jobs}
        done = {name: f.result(timeout=120) for name, f in futures.items()}

    for name in ("cli4", "cli5", "search", "get", "index"):
        proc = done[name]
        assert proc.returncode == 0, (name, proc.stderr)
        assert not any(word in proc.stderr for word in LOCK_WORDS), proc.stderr
    assert json.loads(done["search"].stdout)["results"]
    assert json.loads(done["get"].stdout)["title"] == "Andrei Clodius"
    assert json.loads(done["index"].stdout)["new"] == []  # imports are indexed as written
    imported = [done[f"mcp{n}"] for n in range(4)] + [
        json.loads(done[f"cli{n}"].stdout) for n in (4, 5)
    ]
    assert sorted(p.name for p in (vault / "imports").iterdir()) == [
        f"Doc {n}.md" for n in range(6)
    ]  # each once: no "Doc 1 2.md"
    ids = {f"zqvx{n}plor": made["entity_id"] for n, made in enumerate(imported)}
    assert len(set(ids.values())) == 6
    for word, entity in ids.items():
        assert keyword_ids(a, word) == {entity} and keyword_ids(b, word) == {entity}
    with ThreadPoolExecutor(6) as pool:
        found = pool.map(lambda w: kbtui(vault, "search", w, "--mode", "keyword", "--json"), ids)
        for (_, entity), proc in zip(ids.items(), found, strict=True):
            assert [r["id"] for r in json.loads(proc.stdout)["results"]] == [entity]
    assert a.status()["stats"]["notes"] == b.status()["stats"]["notes"]
    servers.check_logs()


def test_a_connected_server_takes_over_when_the_owner_stops_or_dies(servers: Servers) -> None:
    vault = servers.vault
    a = servers.start()
    b, c = servers.start(), servers.start()
    _, a_pid, _ = role(a)
    assert role(b)[0] == role(c)[0] == "client"

    os.kill(a_pid, signal.SIGTERM)  # a clean stop: B and C race, one wins the index
    assert b.wait_for(lambda: {role(b)[0], role(c)[0]} == {"owner", "client"}, 20)
    owner, other = (b, c) if role(b)[0] == "owner" else (c, b)
    owner_pid = role(owner)[1]
    assert role(other)[2] == owner_pid  # the loser uses the winner
    assert other.good("kb_get", {"id": "person:andrei_clodius"})["title"] == "Andrei Clodius"
    (vault / "concepts" / "after_stop.md").write_text("# After stop\nThe glimmerwort note.\n")
    assert other.wait_for(lambda: keyword_ids(other, "glimmerwort") == {"concept:after_stop"}, 10)

    os.kill(owner_pid, signal.SIGKILL)  # no goodbye: the socket just goes dead
    (vault / "concepts" / "after_kill.md").write_text("# After kill\nThe snarfblat note.\n")
    assert other.good("kb_get", {"id": "person:maya_okafor"})["ok"]  # took over for this
    assert role(other)[0] == "owner"
    assert other.wait_for(lambda: keyword_ids(other, "snarfblat") == {"concept:after_kill"}, 10)
    made = other.good("knowledge_import", {"title": "After takeover", "content": "Quixotry."})
    assert (vault / made["file_path"]).is_file()
    assert keyword_ids(other, "quixotry") == {made["entity_id"]}
    stopped = servers.logs[0].read_text()
    assert "SIGTERM: shutting down" in stopped and "closed the index" in stopped
    servers.check_logs()
