"""Issue 33's faults over HTTP, with real processes: SDK clients (each its own process) import
notes through a real `kbtui mcp --http` server; in every round one client is killed (kill -9)
mid-request, then the server itself is killed under that load and started again. Counted:
- acknowledged writes lost (a note whose import was answered ok, missing or partial in the
  vault or unknown to the restarted server's index): must be 0;
- partial notes (any imported note not ending with its end marker): must be 0;
- the server not answering the others after a client's death: must be 0;
- at the end (the server stopped): the index against a fresh build of the vault: 0 differences.

    .venv/bin/python bench/http_faults.py --rounds 10
    (child mode, used by the rounds: http_faults.py client URL TOKEN PREFIX COUNT)
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from bench_common import REPO, VAULT_EXAMPLE, cpu_times, machine_note
from http_kit import Served, call, index_differences, server_fault, session, settle

END = "END-OF-NOTE"
WORDS = ["battery", "sensor", "firmware", "roadmap", "release", "gesture", "dial", "sync"]


@dataclass
class Counts:
    rounds: int = 0
    client_kills: int = 0
    server_kills: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)
    unserved: list[str] = field(default_factory=list)


async def client(url: str, token: str, prefix: str, count: int) -> None:
    """A child: imports `count` notes, printing `ACK <entity id> <path>` after each ok answer."""
    rng = random.Random(prefix)
    async with session(url, token) as mcp:
        for i in range(count):
            words = " ".join(rng.choice(WORDS) for _ in range(300))
            args = {"title": f"{prefix} {i}", "content": f"{words}\n\n{END}\n"}
            answer = await call(mcp, "knowledge_import", args)
            if answer.get("ok"):
                print("ACK", answer["entity_id"], answer["file_path"], flush=True)
            await call(mcp, "kb_search", {"query": rng.choice(WORDS), "top_k": 3})


class Child:
    """A client process and the acknowledgements it printed so far (read on a thread)."""

    def __init__(self, served: Served, prefix: str, count: int = 200) -> None:
        script = str(Path(__file__).resolve())
        self.proc = subprocess.Popen(
            [sys.executable, script, "client", served.url, served.token, prefix, str(count)],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self.acks: list[tuple[str, str]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and parts[0] == "ACK":
                self.acks.append((parts[1], parts[2]))

    def finish(self, grace: float = 5.0) -> list[tuple[str, str]]:
        """Wait a little for it to notice a dead server, then kill it; all it acknowledged."""
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(30)
        self._reader.join(10)
        return self.acks


def wait_acks(children: list[Child], total: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while sum(len(c.acks) for c in children) < total and time.monotonic() < deadline:
        time.sleep(0.05)


async def still_serves(served: Served) -> bool:
    async with session(served.url, served.token, timeout=60) as mcp:
        answer = await call(mcp, "kb_search", {"query": "battery", "top_k": 3})
        return bool(answer.get("ok")) and not server_fault(answer)


async def settled(served: Served) -> None:
    async with session(served.url, served.token) as mcp:
        await settle(mcp)


async def known(served: Served, ids: list[str]) -> list[str]:
    """Of `ids`, those the server cannot find."""
    missing = []
    async with session(served.url, served.token) as mcp:
        for entity_id in ids:
            answer = await call(mcp, "kb_get", {"id": entity_id})
            if not answer.get("ok") or END not in str(answer.get("content", "")):
                missing.append(entity_id)
    return missing


def fault_round(served: Served, vault: Path, rng: random.Random, no: int, counts: Counts) -> Served:
    """Clients at work; one killed mid-request; then the server killed and started again.
    Returns the restarted server."""
    children = [Child(served, f"R{no} C{k}") for k in range(3)]
    wait_acks(children, 3)  # all at work
    time.sleep(rng.uniform(0.0, 1.0))
    children[0].proc.kill()  # almost surely inside a call: each is busy back to back
    counts.client_kills += 1
    if not anyio.run(still_serves, served):
        counts.unserved.append(f"round {no}: no answer after a client died")
    wait_acks(children, sum(len(c.acks) for c in children) + 2)
    time.sleep(rng.uniform(0.0, 1.5))
    served.kill()
    counts.server_kills += 1
    acknowledged = [ack for child in children for ack in child.finish()]
    counts.acknowledged += len(acknowledged)
    restarted = Served(vault)
    anyio.run(settled, restarted)
    for entity_id, rel in acknowledged:
        path = vault / rel
        if not path.is_file() or END not in path.read_text(encoding="utf-8"):
            counts.lost.append(f"{entity_id} ({rel})")
    ids = [entity_id for entity_id, _ in acknowledged]
    counts.lost += [f"{i} (not in the index)" for i in anyio.run(known, restarted, ids)]
    for note in (vault / "imports").glob("*.md") if (vault / "imports").exists() else ():
        if not note.read_text(encoding="utf-8").rstrip().endswith(END):
            counts.partial.append(note.name)
    counts.rounds += 1
    return restarted


def run_rounds(vault: Path, rounds: int, seed: int, scratch: Path) -> tuple[Counts, list[str]]:
    """`rounds` fault rounds on `vault` (written to); the counts and the index differences."""
    rng = random.Random(seed)
    counts = Counts()
    served = Served(vault)
    try:
        anyio.run(settled, served)
        for no in range(rounds):
            served = fault_round(served, vault, rng, no, counts)
        code = served.stop()
    except BaseException:
        served.kill()
        raise
    if code != 0:
        counts.unserved.append(f"the last server exited {code}")
    return counts, index_differences(vault, scratch)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["client"]:
        url, token, prefix, count = argv[1:5]
        anyio.run(client, url, token, prefix, int(count))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", default=str(VAULT_EXAMPLE), help="copied, never written")
    parser.add_argument("--work", default="/tmp/kbtui-bench/http-faults")
    args = parser.parse_args(argv)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    vault = work / "vault"
    shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".kbtui"))
    before = cpu_times()
    started = time.monotonic()
    counts, diffs = run_rounds(vault, args.rounds, args.seed, work / "fresh")
    print(f"{counts.rounds} rounds in {time.monotonic() - started:.0f} s; {machine_note(before)}")
    print(f"  clients killed mid-request: {counts.client_kills}")
    print(f"  server killed (kill -9) under load and restarted: {counts.server_kills}")
    print(
        f"  writes acknowledged: {counts.acknowledged}; lost: {len(counts.lost)}", *counts.lost[:5]
    )
    print(f"  partial notes: {len(counts.partial)}", *counts.partial[:5])
    print(f"  no answer after a client's death: {len(counts.unserved)}", *counts.unserved[:5])
    print(f"  index against a fresh build: {len(diffs)} differences", *diffs[:5], sep="\n    ")
    ok = not (counts.lost or counts.partial or counts.unserved or diffs)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
