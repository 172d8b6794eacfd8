"""Round-trip latency of kb_get and kb_search through the real MCP client, and the server's memory.

    python bench/mcp_latency.py                 # a fresh copy of vault_example
    python bench/mcp_latency.py --calls 500 --vault ~/notes-copy
    python bench/mcp_latency.py --calls 50 --vault-notes 6600   # obsidian-hub size, a copy
    python bench/mcp_latency.py --spawns 5 --vault <indexed vault> --query "..."  # ready after
    python bench/mcp_latency.py --spawns 5 --vault <indexed vault> --cold-cache  # after a reboot

Starts `kbtui mcp` as a subprocess over stdio (what an assistant does), times start-up and the
first pass (index + embed), then times `--calls` calls of kb_get (cycling over every note) and
of kb_search (hybrid, cycling over a dozen questions; then keyword mode), each a full JSON-RPC
round trip: client serialisation, pipe, server dispatch and thread hop, the query itself and
back. Prints p50/p95 and the server's RSS (from /proc/<pid>/status) after indexing and at the
end. Without --vault the copy of vault_example is made in a temporary folder and deleted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from bench_common import (
    QUERIES,
    VAULT_EXAMPLE,
    WORK,
    copy_vault,
    cpu_times,
    hub_sized_vault,
    machine_note,
    mcp_server,
    memory_fields,
    percentiles,
    server_status,
    working_copy,
)
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from page_cache import cold


async def wait_indexed(session: ClientSession, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = await server_status(session)
        stats = now["stats"]
        if now["index"]["state"] == "idle" and stats["chunks"] == stats["embedded"]:
            return now
        await anyio.sleep(0.2)
    raise SystemExit(f"indexing did not finish within {timeout:.0f}s")


async def timed(session: ClientSession, calls: list[tuple[str, dict[str, Any]]]) -> list[float]:
    out = []
    for name, args in calls:
        start = time.perf_counter()
        result = await session.call_tool(name, args)
        out.append((time.perf_counter() - start) * 1000)
        if result.is_error:
            raise SystemExit(f"{name} {args} failed: {result.structured_content}")
    return out


def server_rss(pid: int) -> str:
    memory = memory_fields(pid)
    return f"{memory['VmRSS']:.0f} MB (peak {memory['VmHWM']:.0f} MB)"


async def bench(vault: Path, n: int, timeout: float) -> None:
    params = mcp_server(vault)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - started
        asked = time.perf_counter()
        answer = await session.call_tool("kb_search", {"query": "battery sensor"})
        content = answer.structured_content or {}
        print(
            f"first kb_search answered {time.perf_counter() - started:.2f}s after the spawn "
            f"(the call took {time.perf_counter() - asked:.2f}s; "
            f"{len(content.get('results') or [])} results, index {content.get('index')})"
        )
        first = await wait_indexed(session, timeout)
        indexed = time.perf_counter() - started
        pid, stats = int(first["pid"]), first["stats"]
        print(f"vault {vault}: {stats['notes']} notes, {stats['chunks']} chunks")
        print(f"initialize answered after {ready:.2f}s; indexed and embedded after {indexed:.2f}s")
        print(f"server RSS after indexing: {server_rss(pid)}")

        listed = await session.list_resources()
        ids = [r.name for r in listed.resources if str(r.uri).startswith("kbtui://note/")]
        warm = [("kb_search", {"query": q}) for q in QUERIES] + [
            ("kb_get", {"id": i}) for i in ids[:10]
        ]
        await timed(session, warm)
        gets = [("kb_get", {"id": ids[i % len(ids)]}) for i in range(n)]
        searches = [("kb_search", {"query": QUERIES[i % len(QUERIES)]}) for i in range(n)]
        keyword = [
            ("kb_search", {"query": QUERIES[i % len(QUERIES)], "mode": "keyword"}) for i in range(n)
        ]
        pings = []
        for _ in range(n):  # the protocol alone: pipe, JSON-RPC, dispatch, no thread hop
            start = time.perf_counter()
            await session.send_ping()
            pings.append((time.perf_counter() - start) * 1000)
        print(f"ping               {percentiles(pings)}")
        print(f"kb_get             {percentiles(await timed(session, gets))}")
        print(f"kb_search hybrid   {percentiles(await timed(session, searches))}")
        print(f"kb_search keyword  {percentiles(await timed(session, keyword))}")
        print(f"server RSS at the end: {server_rss(pid)}")


async def spawned(vault: Path, query: str) -> tuple[float, float, float, int, float]:
    """One spawn of `kbtui mcp` on an indexed vault: seconds to `initialize`, to the first
    kb_search answer, the server's CPU seconds by then, how many results it had, and the
    server's RSS (MB) after it."""
    params = mcp_server(vault)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - started
        answer = await session.call_tool("kb_search", {"query": query})
        first = time.perf_counter() - started
        pid = int((await server_status(session))["pid"])
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        rss = memory_fields(pid)["VmRSS"]
    found = len((answer.structured_content or {}).get("results") or [])
    return ready, first, cpu, found, rss


def spawns(vault: Path, n: int, query: str, cold_cache: bool = False) -> None:
    """Issue 18's "ready after" for a spawned server: spawn -> first kb_search with results;
    `cold_cache`: the index files and the model evicted from the page cache before each."""
    rows = []
    before = cpu_times()
    for _ in range(n):
        if cold_cache:
            print(cold(vault / ".kbtui"))
        rows.append(anyio.run(spawned, vault, query))
        ready, first, cpu, found, rss = rows[-1]
        print(f"initialize {ready:.2f} s, first kb_search {first:.2f} s ({found} results), "
              f"server CPU {cpu:.2f} s, RSS {rss:.0f} MB")  # fmt: skip
    print(
        f"median of {n} spawns: initialize {statistics.median(r[0] for r in rows):.2f} s, "
        f"first kb_search {statistics.median(r[1] for r in rows):.2f} s, server CPU "
        f"{statistics.median(r[2] for r in rows):.2f} s, RSS after it "
        f"{statistics.median(r[4] for r in rows):.0f} MB; {machine_note(before)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, help="Serve this vault (default: vault_example copy)")
    parser.add_argument("--calls", type=int, default=200, help="Calls per tool (default 200)")
    parser.add_argument("--timeout", type=float, default=600, help="Max seconds to index")
    parser.add_argument("--vault-notes", type=int, default=0, help="watch_latency.py's vault")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--spawns", type=int, default=0, help="only time N spawns on --vault")
    parser.add_argument("--query", default="battery sensor", help="the first question")
    parser.add_argument("--cold-cache", action="store_true", help="--spawns: index, model evicted")
    args = parser.parse_args()
    before = cpu_times()
    if args.spawns:
        if args.vault is None:
            parser.error("--spawns needs --vault (an indexed vault)")
        spawns(args.vault.resolve(), args.spawns, args.query, args.cold_cache)
        return
    with tempfile.TemporaryDirectory(prefix="kbtui-mcp-bench-") as work:
        if args.vault_notes:
            from kbtui.embed import FastEmbedder

            cache = hub_sized_vault(args.work, args.vault_notes, FastEmbedder().model_id)
            vault = working_copy(cache, Path(work) / "live")
        elif args.vault is not None:
            vault = args.vault.resolve()
        else:
            vault = copy_vault(VAULT_EXAMPLE, Path(work) / "vault_example")
        anyio.run(bench, vault, args.calls, args.timeout)
    print(machine_note(before))


if __name__ == "__main__":
    main()
