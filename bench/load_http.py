"""Many assistants at once (issue 33): N clients of `kbtui mcp --http` through the MCP SDK's
Streamable HTTP client, while a writer saves a note every 0.5 s and vault-wide mention scans
(kg_suggest_links) run back to back on a client of their own.

Each client is a mix: kb_search 70%, kb_get, kg_get_neighbors, kg_find_path 10% each; at an
assistant's pace (a call every 0.25-0.75 s) or saturated (back to back). Prints per run:
throughput, p50/p95/p99 per tool, errors, the scans completed, the server's RSS, the load.

    .venv/bin/python bench/load_http.py                       # N = 1 4 16 64, both modes
    .venv/bin/python bench/load_http.py --clients 16 --mode pace --seconds 30
    .venv/bin/python bench/load_http.py --clients 16 --mode saturated --cpu   # + CPU by tool
    .venv/bin/python bench/load_http.py --server-repo /tmp/old-checkout ...    # an older server

`--cpu` adds one saturated run per tool (that tool only, no writer, no scans), then one of the
mix, and prints the server's CPU milliseconds per call (/proc/<pid>/stat before and after),
split into the event loop (HTTP, the SDK, JSON) and the tool-call threads, with "transport"
as a call the server answers without running a tool (an unknown tool name: HTTP, the SDK's
session and JSON-RPC, the envelope): what every call costs before its tool's own work.

The vault: vault_example + 1,500 synth_vault.py notes, indexed once with the hash embedder
(vectors labelled as the real model's) under /tmp/kbtui-bench; each run serves a fresh copy
with the real model (queries are embedded as an assistant's would be).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from bench_common import (
    QUERIES,
    REPO,
    VAULT_EXAMPLE,
    WORK,
    copy_vault,
    cpu_times,
    indexed_vault,
    machine_note,
    memory_fields,
    quantile,
    wait_until,
    working_copy,
)
from server_cpu import cpu_by_thread, wait_quiet

MIX = (("kb_search", 70), ("kb_get", 10), ("kg_get_neighbors", 10), ("kg_find_path", 10))
TOOLS = [name for name, _ in MIX]
TRANSPORT = "transport"  # an unknown tool: answered without running one (its error expected)
GENERATED = 1500


@dataclass
class Tally:
    """What every client of one run saw."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    scans: list[float] = field(default_factory=list)
    saves: int = 0
    ready: int = 0  # sessions initialized; the clock starts once all are
    go: anyio.Event = field(default_factory=anyio.Event)
    until: float = 0.0
    server: int = 0  # the server's pid: its CPU is counted from the start of the clock
    cpu_at_start: dict[str, float] = field(default_factory=dict)
    cpu_at_end: dict[str, float] = field(default_factory=dict)  # when the clock stops

    def cpu(self, part: str = "all") -> float:
        """The server's CPU seconds over the run (cpu_by_thread's parts)."""
        return self.cpu_at_end.get(part, 0.0) - self.cpu_at_start.get(part, 0.0)


def build_vault(work: Path) -> Path:
    """vault_example + GENERATED generated notes, indexed once (kept under `work`)."""
    from synth_vault import make_vault

    from kbtui.config import Settings
    from kbtui.embed import FastEmbedder

    source = work / f"load_source_{GENERATED}"
    if not Settings.for_vault(source).db_path.exists() and not source.exists():
        copy_vault(VAULT_EXAMPLE, source)
        make_vault(source / "generated", GENERATED, 0)
    return indexed_vault(source, work / f"load_cache_{GENERATED}", FastEmbedder().model_id)


def entity_ids(vault: Path) -> list[str]:
    from kbtui.config import Settings
    from kbtui.store import Store

    store = Store(Settings.for_vault(vault).db_path)
    try:
        return sorted(eid for eid, *_ in store.note_states().values())
    finally:
        store.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(vault: Path, port: int, repo: Path = REPO) -> tuple[subprocess.Popen[bytes], str]:
    """`kbtui mcp --http` on `vault`, its code from `repo` (another checkout: an older server)."""
    from kbtui.config import Settings
    from kbtui.mcp.http import load_token

    token = load_token(Settings.for_vault(vault).index_dir)
    command = [sys.executable, "-m", "kbtui.cli", "mcp", "--vault", str(vault)]
    command += ["--http", f"127.0.0.1:{port}", "--log-level", "warning"]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.Popen(command, cwd=repo, stdin=subprocess.DEVNULL, env=env)

    def listening() -> bool:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    wait_until(listening, 120)
    return proc, token


def call_args(name: str, rng: random.Random, ids: list[str]) -> tuple[str, dict[str, Any]]:
    """The tool to call and its arguments (`transport`: a name no server publishes)."""
    return (name if name != TRANSPORT else "no_such_tool"), _args(name, rng, ids)


def _args(name: str, rng: random.Random, ids: list[str]) -> dict[str, Any]:
    if name == TRANSPORT:
        return {"id": rng.choice(ids)}
    if name == "kb_search":
        return {"query": rng.choice(QUERIES), "top_k": 5}
    if name == "kb_get":
        return {"id": rng.choice(ids)}
    if name == "kg_get_neighbors":
        return {"entityId": rng.choice(ids)}
    return {"fromEntityId": rng.choice(ids), "toEntityId": rng.choice(ids), "maxHops": 4}


async def _session(url: str, token: str, body: Any, tally: Tally) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tally.ready += 1
        await tally.go.wait()
        await body(session)


async def _call(session: Any, name: str, args: dict[str, Any]) -> str | None:
    """None when the call answered ok, else what went wrong."""
    try:
        result = await session.call_tool(name, args)
    except Exception as exc:  # a transport error is an error of the run, not of the bench
        return f"{name}: {type(exc).__name__}: {exc}"
    answer = result.structured_content or {}
    if result.is_error or not answer.get("ok", False):
        return f"{name}: {answer.get('message') or result.content}"
    return None


async def client(
    url: str,
    token: str,
    seed: int,
    ids: list[str],
    pace: bool,
    tally: Tally,
    mix: tuple[tuple[str, int], ...] = MIX,
) -> None:
    rng = random.Random(seed)
    names, weights = [n for n, _ in mix], [w for _, w in mix]

    async def body(session: Any) -> None:
        while time.monotonic() < tally.until:
            if pace:
                await anyio.sleep(rng.uniform(0.25, 0.75))
            name = rng.choices(names, weights)[0]
            tool, args = call_args(name, rng, ids)
            start = time.perf_counter()
            error = await _call(session, tool, args)
            if time.monotonic() > tally.until:
                return  # answered after the clock stopped: not counted
            tally.ms[name].append((time.perf_counter() - start) * 1000)
            if error and name != TRANSPORT:
                tally.errors.append(error)

    await _session(url, token, body, tally)


async def scanner(url: str, token: str, tally: Tally) -> None:
    """Vault-wide unlinked-mention scans, back to back."""

    async def body(session: Any) -> None:
        while time.monotonic() < tally.until:
            start = time.perf_counter()
            error = await _call(session, "kg_suggest_links", {"limit": 20})
            tally.scans.append(time.perf_counter() - start)
            if error:
                tally.errors.append(error)

    await _session(url, token, body, tally)


def writer(vault: Path, stop: threading.Event, tally: Tally) -> None:
    """Save a generated note every 0.5 s, as an editor does (written aside, renamed over)."""
    notes = sorted((vault / "generated").rglob("*.md"))
    rng = random.Random(7)
    while not stop.wait(0.5):
        path = rng.choice(notes)
        text = path.read_text(encoding="utf-8")
        aside = path.with_suffix(".md.tmp")
        aside.write_text(text + f"\nEdited at {time.time():.3f}: battery sensor review.\n")
        aside.replace(path)
        tally.saves += 1


async def one_run(
    url: str,
    token: str,
    ids: list[str],
    clients: int,
    pace: bool,
    seconds: float,
    vault: Path,
    server: int = 0,
    mix: tuple[tuple[str, int], ...] = MIX,
    background: bool = True,
) -> Tally:
    """Every session initialized first, then `seconds` of calls, saves and scans (only the
    calls of `mix` without `background`)."""
    tally = Tally(server=server)
    stop = threading.Event()
    saves = threading.Thread(target=writer, args=(vault, stop, tally), daemon=True)
    try:
        async with anyio.create_task_group() as tg:
            if background:
                tg.start_soon(scanner, url, token, tally)
            for i in range(clients):
                tg.start_soon(client, url, token, 1000 * clients + i, ids, pace, tally, mix)
            while tally.ready < clients + background:
                await anyio.sleep(0.05)
            tally.until = time.monotonic() + seconds
            if tally.server:
                tally.cpu_at_start = cpu_by_thread(tally.server)
            if background:
                saves.start()
            tally.go.set()
            await anyio.sleep(max(0.0, tally.until - time.monotonic()))
            if tally.server:
                tally.cpu_at_end = cpu_by_thread(tally.server)
    finally:
        stop.set()
        if saves.is_alive():
            saves.join()
    return tally


def report(
    tally: Tally, clients: int, mode: str, seconds: float, pid: int, cpu: float, machine: str
) -> None:
    """`cpu`: the server's CPU seconds over the run (scans, saves and calls together)."""
    calls = sum(len(v) for v in tally.ms.values())
    rss = memory_fields(pid)
    scans = tally.scans
    print(
        f"\n== {clients} client(s), {mode}: {calls / seconds:.1f} calls/s over {seconds:.0f} s, "
        f"{len(tally.errors)} error(s), {tally.saves} saves, {len(scans)} mention scans"
        + (f" (median {sorted(scans)[len(scans) // 2]:.2f} s)" if scans else "")
    )
    print(f"   {'tool':<18}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for name in TOOLS:
        ms = tally.ms.get(name) or []
        if ms:
            p = [quantile(ms, q) for q in (0.5, 0.95, 0.99)]
            print(f"   {name:<18}{len(ms):>6}{p[0]:>9.1f}{p[1]:>9.1f}{p[2]:>9.1f}")
    print(
        f"   server CPU {100 * cpu / seconds:.0f}% of a core ({1000 * cpu / max(calls, 1):.1f} ms "
        f"a call, scans and saves included), RSS {rss['VmRSS']:.0f} MB (peak "
        f"{rss['VmHWM']:.0f}); {machine}" + "".join(f"\n   error: {e}" for e in tally.errors[:5])
    )


def cpu_by_tool(
    url: str, token: str, ids: list[str], clients: int, seconds: float, vault: Path, pid: int
) -> None:
    """One saturated run per tool, then the mix (no writer, no scans): the server's CPU ms
    per call, in all, on the event loop and on the other threads (cpu_by_thread)."""
    print(f"\n== CPU per call, server side: {clients} clients back to back, one tool a run")
    print(
        f"   {'tool':<18}{'calls/s':>9}{'CPU ms':>8}{'loop':>7}{'threads':>9}"
        f"{'p50 ms':>9}{'p95 ms':>9}  load"
    )
    runs: list[tuple[str, tuple[tuple[str, int], ...]]] = [
        (name, ((name, 1),)) for name in [TRANSPORT, *TOOLS]
    ]
    for label, mix in [*runs, ("mix", MIX)]:
        wait_quiet(pid)
        before = cpu_times()
        tally = anyio.run(one_run, url, token, ids, clients, False, seconds, vault, pid, mix, False)
        ms = [m for name, _ in mix for m in tally.ms.get(name, [])] or [0.0]
        calls = max(sum(len(tally.ms.get(name, [])) for name, _ in mix), 1)
        part = {k: 1000 * tally.cpu(k) / calls for k in ("all", "loop")}
        print(
            f"   {label:<18}{calls / seconds:>9.1f}{part['all']:>8.1f}{part['loop']:>7.1f}"
            f"{part['all'] - part['loop']:>9.1f}{quantile(ms, 0.5):>9.1f}"
            f"{quantile(ms, 0.95):>9.1f}  {machine_note(before)}"
            + "".join(f"\n   error: {e}" for e in tally.errors[:3])
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--mode", choices=["pace", "saturated", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=15.0, help="s of calls before the runs")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--cpu", action="store_true", help="CPU ms per call by tool, after")
    parser.add_argument("--cpu-seconds", type=float, default=10.0, help="s per tool with --cpu")
    parser.add_argument(
        "--server-repo", type=Path, default=REPO, help="serve this checkout's kbtui (old = main)"
    )
    args = parser.parse_args()
    modes = ["pace", "saturated"] if args.mode == "both" else [args.mode]

    cache = build_vault(args.work)
    vault = args.work / f"load_run_{os.getpid()}"  # several benches may run at once
    shutil.rmtree(vault, ignore_errors=True)
    working_copy(cache, vault)
    ids = entity_ids(vault)
    port = free_port()
    server, token = start_server(vault, port, args.server_repo.resolve())
    url = f"http://127.0.0.1:{port}/mcp"
    print(f"{len(ids)} notes; server pid {server.pid} at {url}")
    try:
        anyio.run(one_run, url, token, ids, 1, False, args.warmup, vault)  # model, side files
        for clients in args.clients:
            for mode in modes:
                before = cpu_times()
                tally = anyio.run(
                    one_run, url, token, ids, clients, mode == "pace", args.seconds, vault,
                    server.pid,
                )  # fmt: skip
                spent = tally.cpu()
                report(tally, clients, mode, args.seconds, server.pid, spent, machine_note(before))
        if args.cpu:
            cpu_by_tool(url, token, ids, args.clients[0], args.cpu_seconds, vault, server.pid)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(vault, ignore_errors=True)


if __name__ == "__main__":
    main()
