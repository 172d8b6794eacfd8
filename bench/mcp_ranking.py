"""kb_search through a real `kbtui mcp` server, as an assistant gets it (bench/retrieval.py
--via-mcp).

The server is started as a subprocess over stdio with the official SDK's client (as
bench/mcp_latency.py does), on a vault retrieval.py has already indexed in-process with its
cached embedder: the server opens that DuckDB index, its catch-up pass finds nothing to do and
it embeds only the queries, with the real model. The first question goes out right after
`initialize`, as a judge's script would send it, so the first answers show the cold start;
the first few questions are asked again at the end, warm, to tell a slow start from a
degraded one.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from bench_common import (
    MODES,
    SCIFACT,
    commit,
    cpu_times,
    doc_of,
    load_scifact,
    machine_note,
    mcp_server,
    metrics,
    server_status,
    subset,
    write_vault,
)
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from kbtui.search.service import Mode

SHOWN = 3  # first answers always listed by cold_start
Rankings = dict[Mode, dict[str, list[str]]]  # mode -> query id -> note ids, best first


@dataclass
class Answer:
    """One kb_search answer: the notes (file stems) in order and what the answer said."""

    qid: str
    text: str
    mode: Mode
    ranked: list[str]
    scores: list[float]
    index: dict[str, Any] | None  # the answer's `index` status field, if it has one
    message: str | None
    at: float  # seconds from spawning the server to receiving this answer
    ms: float  # the round trip


@dataclass
class ServerRun:
    initialized: float  # seconds from spawn to the answer to `initialize`
    answers: list[Answer] = field(default_factory=list)
    repeats: list[Answer] = field(default_factory=list)  # first questions again, at the end
    status: dict[str, Any] = field(default_factory=dict)  # kbtui://status after the last one

    def rankings(self, qids: set[str] | None = None) -> Rankings:
        out: Rankings = {}
        for a in self.answers:
            if qids is None or a.qid in qids:
                out.setdefault(a.mode, {})[a.qid] = a.ranked
        return out


async def ask(session: ClientSession, qid: str, text: str, mode: Mode, t0: float) -> Answer:
    start = time.perf_counter()
    result = await session.call_tool("kb_search", {"query": text, "top_k": 10, "mode": mode})
    now = time.perf_counter()
    answer = result.structured_content
    if result.is_error or not isinstance(answer, dict) or "results" not in answer:
        raise SystemExit(f"kb_search over MCP failed on query {qid} ({mode}): {answer}")
    return Answer(
        qid=qid,
        text=text,
        mode=mode,
        ranked=[doc_of(r) for r in answer["results"]],
        scores=[float(r["score"]) for r in answer["results"]],
        index=answer.get("index"),
        message=answer.get("message"),
        at=now - t0,
        ms=(now - start) * 1000,
    )


async def serve_queries(
    vault: Path, plan: list[tuple[Mode, dict[str, str]]], repeat: int, errlog: Path
) -> ServerRun:
    """Start `kbtui mcp --vault vault`, send every (mode, {qid: text}) of `plan` in order
    from the moment `initialize` is answered, then the first `repeat` questions again."""
    async with served(vault, errlog) as (session, run, t0):
        for mode, queries in plan:
            for qid, text in queries.items():
                run.answers.append(await ask(session, qid, text, mode, t0))
        for first in run.answers[:repeat]:
            run.repeats.append(await ask(session, first.qid, first.text, first.mode, t0))
    return run


@asynccontextmanager
async def served(
    vault: Path, errlog: Path
) -> AsyncIterator[tuple[ClientSession, ServerRun, float]]:
    """A session on a fresh `kbtui mcp --vault vault`, `initialize` answered: the run to fill
    and the spawn's clock; the server's kbtui://status goes into the run at the end."""
    t0 = time.perf_counter()
    with errlog.open("w") as err:
        async with (
            stdio_client(mcp_server(vault), errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            run = ServerRun(initialized=time.perf_counter() - t0)
            yield session, run, t0
            run.status = await server_status(session)


def run_server(
    vault: Path, plan: list[tuple[Mode, dict[str, str]]], repeat: int, errlog: Path
) -> ServerRun:
    return anyio.run(serve_queries, vault, plan, repeat, errlog)


def differing(inproc: Rankings, served: Rankings) -> dict[Mode, tuple[int, int, int]]:
    """{mode: (answers, ids or order differ, same ids in another order)} against in-process."""
    out: dict[Mode, tuple[int, int, int]] = {}
    for mode, ranked in served.items():
        pairs = [(inproc[mode][q], r) for q, r in ranked.items() if q in inproc.get(mode, {})]
        diff = sum(a != b for a, b in pairs)
        reordered = sum(a != b and sorted(a) == sorted(b) for a, b in pairs)
        out[mode] = (len(pairs), diff, reordered)
    return out


def cold_start(inproc: Rankings, run: ServerRun) -> list[str]:
    """Lines on the first answers: when they came, what their `index` said, and whether they
    rank like the in-process ranking and like the same question asked again at the end."""
    lines = [f"initialize answered {run.initialized:.2f} s after spawning the server"]
    again = {(a.mode, a.qid): a.ranked for a in run.repeats}
    for i, a in enumerate(run.answers[: len(run.repeats)]):
        same_in = a.ranked == inproc.get(a.mode, {}).get(a.qid)
        same_warm = a.ranked == again.get((a.mode, a.qid))
        if i >= SHOWN and same_in and same_warm:
            continue  # the first few always, then only the answers that differ
        state = "-" if a.index is None else a.index.get("state")
        embedded = (
            ""
            if a.index is None
            else (f" {a.index.get('chunks_embedded')}/{a.index.get('chunks_total')} embedded")
        )
        lines.append(
            f"  #{i + 1:<3} {a.mode:<8} at {a.at:6.2f} s ({a.ms:7.1f} ms)  index {state}{embedded}"
            f"  = in-process {'yes' if same_in else 'NO'}  = warm repeat "
            f"{'yes' if same_warm else 'NO'}" + (f"  message: {a.message}" if a.message else "")
        )
    bad = [
        i
        for i, a in enumerate(run.answers[: len(run.repeats)])
        if a.ranked != again.get((a.mode, a.qid))
    ]
    if bad:
        lines.append(
            f"{len(bad)} of the first {len(run.repeats)} answers differ from the warm repeat; "
            f"the last of them is #{bad[-1] + 1}"
        )
    else:
        lines.append(f"all of the first {len(run.repeats)} answers equal the warm repeat")
    return lines


def index_fields(run: ServerRun) -> str:
    """How many answers carried `index`, by state, and how many carried a `message`."""
    states: dict[str, int] = {}
    for a in run.answers:
        key = "absent" if a.index is None else str(a.index.get("state"))
        states[key] = states.get(key, 0) + 1
    told = sum(a.message is not None for a in run.answers)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(states.items()))
    return f"answers' index.state: {shown}; answers with a message: {told}"


def server_pass(run: ServerRun) -> str:
    """What the server's own indexing did: it must have embedded nothing but queries."""
    index = run.status.get("index", {})
    stats = run.status.get("stats", {})
    return (
        f"server: {index.get('passes')} pass(es), last {index.get('last_pass')}; index holds "
        f"{stats.get('chunks')} chunks, {stats.get('embedded')} embedded, model "
        f"{stats.get('embed_model')}"
    )


# -- a vault the judge did not index first ----------------------------------------------------
async def follow_unindexed(
    vault: Path, queries: dict[str, str], mode: Mode, errlog: Path, timeout: float
) -> ServerRun:
    """Start the server on a vault with no index and cycle through the questions from the
    moment `initialize` is answered until the index is ready with every chunk embedded;
    then ask every question once more (`repeats`): the answers a ready server gives."""
    items = list(queries.items())
    async with served(vault, errlog) as (session, run, t0):
        while time.perf_counter() - t0 < timeout:
            qid, text = items[len(run.answers) % len(items)]
            answer = await ask(session, qid, text, mode, t0)
            run.answers.append(answer)
            index = answer.index or {}
            if index.get("state") == "ready" and index.get("chunks_embedded") == (
                index.get("chunks_total", 0) - index.get("chunks_not_embedded", 0)
            ):
                break
        for qid, text in items:
            run.repeats.append(await ask(session, qid, text, mode, t0))
    return run


def timeline(run: ServerRun, grade: Callable[[Answer], float]) -> list[str]:
    """The answers before the index was complete, grouped by what their `index` said."""
    warm = {a.qid: a for a in run.repeats}
    groups: dict[str, list[Answer]] = {}
    for a in run.answers:
        index = a.index or {}
        total = max(int(index.get("chunks_total") or 0), 1)
        share = int(10 * int(index.get("chunks_embedded") or 0) / total) * 10
        key = f"{index.get('state', '-'):<9} embedded {share:3d}%+"
        groups.setdefault(key, []).append(a)
    lines = [
        f"{'index said':<27} {'answers':>7} {'from s':>7} {'to s':>7} {'nDCG@10':>8} "
        f"{'= ready':>8} {'message':>8}"
    ]
    for key, group in groups.items():
        same = sum(a.ranked == warm[a.qid].ranked for a in group)
        told = sum(a.message is not None for a in group)
        ndcg = sum(map(grade, group)) / len(group)
        lines.append(
            f"{key:<27} {len(group):7d} {group[0].at:7.1f} {group[-1].at:7.1f} {ndcg:8.3f} "
            f"{same:8d} {told:8d}"
        )
    ready = sum(map(grade, run.repeats)) / max(len(run.repeats), 1)
    lines.append(
        f"{'ready (every question again)':<27} {len(run.repeats):7d} {'':>7} "
        f"{run.repeats[-1].at if run.repeats else 0:7.1f} {ready:8.3f}"
    )
    return lines


def main() -> None:
    """A judge who skips `kbtui index`: the SciFact vault served from scratch."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--data", type=Path, default=SCIFACT)
    parser.add_argument("--queries", type=int, default=300, help="training questions cycled")
    parser.add_argument("--docs", type=int, help="a smaller corpus (see retrieval.py)")
    parser.add_argument("--mode", default="hybrid", choices=MODES)
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    corpus, queries, qrels = load_scifact(args.data, args.queries)
    if args.docs is not None:
        corpus = subset(corpus, queries, qrels, args.docs)
    before = cpu_times()
    print(
        f"commit {commit()}; {len(corpus)} notes, {len(queries)} questions, "
        f"mode {args.mode}, no index before the server starts",
        flush=True,
    )

    def grade(a: Answer) -> float:
        return metrics(a.ranked, a.ranked, qrels[a.qid])[0]

    with tempfile.TemporaryDirectory(prefix="kbtui-cold-") as tmp:
        vault = Path(tmp) / "vault"
        write_vault(corpus, vault)
        run = anyio.run(
            follow_unindexed, vault, queries, args.mode, Path(tmp) / "server.log", args.timeout
        )
    print(f"initialize answered {run.initialized:.2f} s after spawning the server")
    print("\n".join(timeline(run, grade)))
    print(server_pass(run))
    print(machine_note(before))


if __name__ == "__main__":
    main()
