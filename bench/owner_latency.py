"""kb_get and kb_search through the owner's socket against in-process, and the takeover time.

    python bench/owner_latency.py                 # a fresh copy of vault_example
    python bench/owner_latency.py --calls 500 --vault ~/notes-copy

1. This process owns the vault (`open_vault`) and times `--calls` kb_get (cycling over every
   note) and kb_search (hybrid, a dozen questions) in-process.
2. It closes the vault, starts `kbtui mcp` as the owner in another process and opens the vault
   again, now as its client: the same calls, each a round trip over the Unix socket (JSON
   both ways, the owner's thread, the query, back). Prints p50/p95 and the ratio.
3. Takeover: the owner is killed (SIGKILL), then a fresh one stopped (SIGTERM); timed from the
   signal until this process, now the owner, has answered a kb_get.

`--busy ROUNDS` (alone with `--busy-only`): kb_search from another process through an owner
that runs Python beside it, as the TUI does while it indexes: this process owns the vault and
a thread of its own parses every note back to back (the indexer's Python, `parse_note`)
while a client process times `--calls` searches; at Python's 5 ms switch interval and at
the 0.5 ms an owner sets (kbtui/interpreter.py), alternated ROUNDS times. Prints the
client's p50/p95, and the parse thread's notes/s and CPU in the same run (the cost).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_common import (
    QUERIES,
    VAULT_EXAMPLE,
    copy_vault,
    cpu_times,
    machine_note,
    percentiles,
    start_owner,
    timed_calls,
)

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.interpreter import SWITCH_INTERVAL
from kbtui.runtime.shared import SharedVault, open_vault
from kbtui.vault.parse import parse_note


def run_calls(handle: SharedVault, n: int) -> dict[str, list[float]]:
    notes, _ = handle.note_page(0, 10_000)
    ids = [note["id"] for note in notes]
    timed_calls(handle.call, [("kb_search", {"query": q}) for q in QUERIES])  # warm: model, matrix
    timed_calls(handle.call, [("kb_get", {"id": i}) for i in ids[:10]])
    gets = [("kb_get", {"id": ids[i % len(ids)]}) for i in range(n)]
    searches = [("kb_search", {"query": QUERIES[i % len(QUERIES)]}) for i in range(n)]
    return {
        "kb_get": timed_calls(handle.call, gets),
        "kb_search": timed_calls(handle.call, searches),
    }


def takeover(settings: Settings, sig: signal.Signals) -> tuple[float, float]:
    """Seconds from `sig` to the owner's role here, and to the first kb_get answered."""
    owner = start_owner(settings.vault)
    with open_vault(settings, FastEmbedder) as handle:
        assert handle.role == "client" and handle.owner_pid == owner.pid
        handle.call("kb_get", {"id": handle.note_page(0, 1)[0][0]["id"]})
        started = time.perf_counter()
        os.kill(owner.pid, sig)
        answer = handle.call("kb_get", {"id": handle.note_page(0, 1)[0][0]["id"]})
        answered = time.perf_counter() - started
        while handle.role != "owner":
            time.sleep(0.001)
        owned = time.perf_counter() - started
        assert answer["ok"], answer
    owner.wait(30)
    return owned, answered


def bench(vault: Path, n: int, rounds: int) -> None:
    settings = Settings.for_vault(vault)
    with open_vault(settings, FastEmbedder) as local:
        assert local.runtime is not None
        if not local.runtime.worker.wait_idle(600):
            raise SystemExit("indexing did not finish within 600 s")
        stats = local.status()["stats"]
        print(f"vault {vault}: {stats['notes']} notes, {stats['chunks']} chunks")
        here = run_calls(local, n)
    owner = start_owner(settings.vault)
    try:
        with open_vault(settings, FastEmbedder) as remote:
            assert remote.role == "client"
            there = run_calls(remote, n)
    finally:
        owner.terminate()
        owner.wait(30)
    for name in ("kb_get", "kb_search"):
        ratio = statistics.median(there[name]) / statistics.median(here[name])
        print(f"{name:9} in-process   {percentiles(here[name])}")
        print(f"{name:9} over socket  {percentiles(there[name])}  (p50 x{ratio:.2f})")
    for sig in (signal.SIGKILL, signal.SIGTERM):
        times = [takeover(settings, sig) for _ in range(rounds)]
        owned = ", ".join(f"{o:.2f}" for o, _ in times)
        answered = ", ".join(f"{a:.2f}" for _, a in times)
        print(f"takeover after {sig.name}: owner after {owned} s; kb_get answered {answered} s")


def client(vault: Path, n: int) -> None:
    """The client process of `--busy`: JSON list of kb_search milliseconds on stdout."""
    with open_vault(Settings.for_vault(vault), FastEmbedder) as handle:
        assert handle.role == "client"
        timed_calls(handle.call, [("kb_search", {"query": q}) for q in QUERIES])  # warm
        searches = [("kb_search", {"query": QUERIES[i % len(QUERIES)]}) for i in range(n)]
        print(json.dumps(timed_calls(handle.call, searches)))


def parse_all(notes: list[tuple[str, str]], stop: threading.Event, tally: dict[str, float]) -> None:
    """Every note parsed, back to back, until `stop`: the owner's own Python work."""
    start = time.thread_time()
    while not stop.is_set():
        for path, text in notes:
            parse_note(path, text)
        tally["notes"] += len(notes)
    tally["cpu"] = time.thread_time() - start


def busy(vault: Path, n: int, rounds: int) -> None:
    settings = Settings.for_vault(vault)
    notes = [
        (str(p.relative_to(vault)), p.read_text(errors="replace"))
        for p in sorted(vault.rglob("*.md"))
    ]
    with open_vault(settings, FastEmbedder) as owner:
        assert owner.role == "owner" and owner.runtime is not None
        if not owner.runtime.worker.wait_idle(600):
            raise SystemExit("indexing did not finish within 600 s")
        for _ in range(rounds):
            for interval in (0.005, SWITCH_INTERVAL):
                sys.setswitchinterval(interval)
                stop, tally = threading.Event(), {"notes": 0.0, "cpu": 0.0}
                args = (notes, stop, tally)
                thread = threading.Thread(target=parse_all, args=args, name="busy-parse")
                started, cpu = time.perf_counter(), time.process_time()
                thread.start()
                command = [sys.executable, __file__, "--client", "--vault", str(vault)]
                out = subprocess.run(
                    [*command, "--calls", str(n)], capture_output=True, text=True, check=True
                ).stdout
                stop.set()
                thread.join()
                wall, cpu = time.perf_counter() - started, time.process_time() - cpu
                print(
                    f"switch {interval * 1000:3.1f} ms: kb_search via owner "
                    f"{percentiles(json.loads(out))}; owner's parse thread "
                    f"{tally['notes'] / wall:5.0f} notes/s, {tally['cpu'] / wall:4.0%} of a core "
                    f"({tally['notes'] / max(tally['cpu'], 1e-9):4.0f} notes per CPU s); "
                    f"owner process {cpu / wall:4.0%} of a core over {wall:.1f} s"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--vault", type=Path, help="Use this vault (default: vault_example copy)")
    parser.add_argument("--calls", type=int, default=300, help="Calls per tool (default 300)")
    parser.add_argument("--rounds", type=int, default=3, help="Takeovers per signal (default 3)")
    parser.add_argument("--busy", type=int, default=0, help="Rounds through a busy owner")
    parser.add_argument("--busy-only", action="store_true", help="Only the --busy rounds")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        return client(args.vault, args.calls)
    before = cpu_times()
    with tempfile.TemporaryDirectory() as tmp:
        vault = (args.vault or copy_vault(VAULT_EXAMPLE, Path(tmp) / "vault")).resolve()
        if not args.busy_only:
            bench(vault, args.calls, args.rounds)
        if args.busy:
            busy(vault, args.calls, args.busy)
    print(machine_note(before))


if __name__ == "__main__":
    main()
