"""Issue 33's soak: a real `kbtui mcp --http` on a copy of a vault for an hour (`--minutes`),
several SDK clients over Streamable HTTP calling tools (searches, reads, graph walks, imports
and renames through the tools) while a "user" saves, adds, renames, deletes notes and moves
folders on disk (past CAP added notes they delete instead, so the vault keeps its size and
RSS can be compared across the hour). At the end:
- errors: transport failures and answers that blame the server (INTERNAL, TRANSIENT): 0;
- the index, once settled and the server stopped, equals a fresh build of the vault;
- the server's RSS and open files stay within 10% of their values after the warm-up (the
  first sixth of the run: 10 min of an hour), threads do not grow past theirs;
- SIGTERM ends the server with status 0 and no child process left.
Prints the figures and PASS/FAIL lines (exit 1 on a FAIL) and draws the RSS curve to a PNG.

    .venv/bin/python bench/http_soak.py                      # 1 h, 4 clients, vault_example
    .venv/bin/python bench/http_soak.py --minutes 5 --png /tmp/soak.png
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from bench_common import REPO, VAULT_EXAMPLE, cpu_times, machine_note, percentiles
from http_kit import (
    Served,
    call,
    index_differences,
    line_chart,
    process_stats,
    server_fault,
    session,
    settle,
)

WORDS = [
    "battery",
    "sensor",
    "firmware",
    "roadmap",
    "release",
    "gesture",
    "dial",
    "sync",
    "offline",
    "vendor",
    "meeting",
]
QUERIES = ["battery life", "who designs the watch", "firmware release", "offline sync", "vendor"]
SESSION_CALLS = 40  # a client opens a new session after this many calls (session churn)
TOLERANCE = 0.10
WINDOWS = 5
CAP = 150  # notes the soak's users may add (imports and soak/): past it they delete


@dataclass
class Tally:
    """What the run did and saw."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    answers: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    user_ops: Counter[str] = field(default_factory=Counter)
    samples: list[tuple[float, dict[str, float]]] = field(default_factory=list)


def pick_call(rng: random.Random, ids: list[str], n: int) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    if roll < 0.5 or not ids:
        return "kb_search", {"query": rng.choice(QUERIES), "top_k": 5}
    if roll < 0.7:
        return "kb_get", {"id": rng.choice(ids)}
    if roll < 0.85:
        return "kg_get_neighbors", {"entityId": rng.choice(ids)}
    if roll < 0.95:
        words = " ".join(rng.choice(WORDS) for _ in range(40))
        return "knowledge_import", {"title": f"Import {n} {rng.randrange(10**6)}", "content": words}
    return "kg_rename_entity", {"entityId": rng.choice(ids), "newName": f"Renamed {n}"}


async def client_loop(
    no: int, served: Served, deadline: float, tally: Tally, seed: int
) -> None:  # fmt: skip
    rng = random.Random(seed * 1000 + no)
    ids: list[str] = []
    n = 0
    while time.monotonic() < deadline:
        try:
            async with session(served.url, served.token) as client:
                for _ in range(SESSION_CALLS):
                    if time.monotonic() >= deadline:
                        return
                    n += 1
                    name, args = pick_call(rng, ids, no * 10**6 + n)
                    started = time.perf_counter()
                    answer = await call(client, name, args)
                    tally.ms[name].append((time.perf_counter() - started) * 1000)
                    kind = "ok" if answer.get("ok") else str(answer["error"]["type"])
                    tally.answers[f"{name} {kind}"] += 1
                    if server_fault(answer):
                        tally.errors.append(f"{name}: {answer['error']['message']}")
                    for hit in answer.get("results", [])[:3]:
                        ids = [*ids[-30:], str(hit["id"])]
                    await anyio.sleep(rng.uniform(0.05, 0.4))
        except Exception as exc:  # a transport failure: the server's fault here
            tally.errors.append(f"client {no}: {type(exc).__name__}: {exc}")
            await anyio.sleep(1)


def user_step(vault: Path, rng: random.Random, step: int, tally: Tally) -> None:
    """One thing a person does to the vault in an editor or a file manager."""
    soak = vault / "soak"
    notes = sorted(p for p in vault.rglob("*.md") if ".kbtui" not in p.parts)
    mine = sorted(soak.rglob("*.md")) if soak.exists() else []
    imported = sorted((vault / "imports").glob("*.md")) if (vault / "imports").exists() else []
    roll = rng.random()
    if len(mine) + len(imported) > CAP:  # the vault keeps its size: RSS can be compared
        rng.choice(mine + imported).unlink()
        tally.user_ops["delete (at the cap)"] += 1
    elif roll < 0.4 and notes:
        note = rng.choice(notes)
        with note.open("a", encoding="utf-8") as fh:
            fh.write(f"\nSaved at step {step}: {rng.choice(WORDS)} {rng.choice(WORDS)}.\n")
        tally.user_ops["save"] += 1
    elif roll < 0.65 or len(mine) < 4:
        folder = soak / rng.choice(["a", "b"])
        folder.mkdir(parents=True, exist_ok=True)
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        (folder / f"Note {step}.md").write_text(f"# Note {step}\n\n{words} [[Home]]\n")
        tally.user_ops["new"] += 1
    elif roll < 0.8:
        note = rng.choice(mine)
        note.rename(note.with_name(f"Moved {step}.md"))
        tally.user_ops["rename"] += 1
    elif roll < 0.92:
        rng.choice(mine).unlink()
        tally.user_ops["delete"] += 1
    else:
        folders = [p for p in soak.iterdir() if p.is_dir()]
        if folders:
            folder = rng.choice(folders)
            folder.rename(soak / f"folder {step}")
            tally.user_ops["folder move"] += 1


async def user_loop(vault: Path, deadline: float, tally: Tally, seed: int, pace: float) -> None:
    rng = random.Random(seed)
    step = 0
    while time.monotonic() < deadline:
        step += 1
        user_step(vault, rng, step, tally)
        await anyio.sleep(rng.uniform(0.5, 1.5) * pace)


async def sampler(pid: int, start: float, deadline: float, every: float, tally: Tally) -> None:
    while time.monotonic() < deadline:
        tally.samples.append(((time.monotonic() - start) / 60, process_stats(pid)))
        await anyio.sleep(every)


async def run(served: Served, args: argparse.Namespace, tally: Tally) -> dict[str, Any]:
    async with session(served.url, served.token) as client:
        await settle(client)
    start = time.monotonic()
    deadline = start + args.minutes * 60
    async with anyio.create_task_group() as tg:
        tg.start_soon(sampler, served.pid, start, deadline, args.sample, tally)
        tg.start_soon(user_loop, served.vault, deadline, tally, args.seed, args.pace)
        for no in range(args.clients):
            tg.start_soon(client_loop, no, served, deadline, tally, args.seed)
    async with session(served.url, served.token) as client:
        status = await settle(client)
    tally.samples.append(((time.monotonic() - start) / 60, process_stats(served.pid)))
    return status


def windows(tally: Tally, warm_min: float, key: str) -> list[float]:
    """Medians of `key` over consecutive windows after the warm-up (WINDOWS of them): a
    single sample taken mid-burst (a rename reading many notes) does not decide flatness,
    a value that keeps growing does."""
    after = [(t, s[key]) for t, s in tally.samples if t >= warm_min] or [
        (tally.samples[-1][0], tally.samples[-1][1][key])
    ]
    start, end = after[0][0], after[-1][0]
    span = max((end - start) / WINDOWS, 1e-9)
    groups: list[list[float]] = [[] for _ in range(WINDOWS)]
    for t, value in after:
        groups[min(WINDOWS - 1, int((t - start) / span))].append(value)
    return [statistics.median(g) for g in groups if g]


def flat(tally: Tally, warm_min: float, key: str) -> tuple[list[float], float, bool]:
    """Window medians after the warm-up, the highest single sample; flat: no window's median
    more than 10% over the first's (threads: the last sample, none left behind)."""
    medians = windows(tally, warm_min, key)
    peak = max(s[key] for t, s in tally.samples if t >= warm_min) if medians else 0.0
    if key == "threads":  # threads come and go with the load; none may be left behind
        return medians, peak, tally.samples[-1][1][key] <= medians[0] * (1 + TOLERANCE)
    slack = 1 if key == "fds" else 0
    return medians, peak, max(medians) <= medians[0] * (1 + TOLERANCE) + slack


def report(args: argparse.Namespace, tally: Tally, served: Served, before: list[int]) -> int:
    checks: list[tuple[str, bool]] = []
    warm_min = args.minutes * args.warmup
    print(f"soak {args.minutes:g} min, {args.clients} clients, seed {args.seed}; "
          f"{machine_note(before)}")  # fmt: skip
    for name, samples in sorted(tally.ms.items()):
        print(f"  {name:18} {len(samples):6} calls  {percentiles(samples)}")
    print("  answers:", dict(sorted(tally.answers.items())))
    print("  user ops:", dict(sorted(tally.user_ops.items())))
    print(f"  errors: {len(tally.errors)}", *tally.errors[:10], sep="\n    ")
    checks.append(("0 errors", not tally.errors))
    for key, unit in (("rss_mb", "MB"), ("fds", "open files"), ("threads", "threads")):
        medians, peak, ok = flat(tally, warm_min, key)
        shown = " ".join(f"{m:.0f}" for m in medians)
        print(
            f"  {key} after the warm-up ({warm_min:.1f} min), medians of {WINDOWS} windows: "
            f"{shown} {unit}; highest sample {peak:.1f}, last {tally.samples[-1][1][key]:.1f}"
        )
        what = "none left behind" if key == "threads" else "within 10% after the warm-up"
        checks.append((f"{key}: {what}", ok))
    kids = [int(s["children"]) for _, s in tally.samples]
    print(f"  child processes of the server: at most {max(kids)}")
    code = served.stop()
    print(f"  SIGTERM: exit {code}")
    log = Path(args.work) / "server-stderr.log"
    log.write_text(served.stderr(), encoding="utf-8")
    traces = served.stderr().count("Traceback")
    if traces:
        at = served.stderr().index("Traceback")
        print(f"  tracebacks in the server's stderr: {traces} (all in {log}); the first:")
        print("    " + served.stderr()[at : at + 3000].replace("\n", "\n    "))
    checks.append(("clean exit", code == 0 and not traces))
    diffs = index_differences(served.vault, Path(args.work) / "fresh")
    print(f"  index against a fresh build: {len(diffs)} differences", *diffs[:10], sep="\n    ")
    checks.append(("index == fresh build", not diffs))
    if args.png and tally.samples:
        rss = [(t, s["rss_mb"]) for t, s in tally.samples]
        at_warm = flat(tally, warm_min, "rss_mb")[0][0]
        title = (
            f"kbtui mcp --http RSS over a {args.minutes:g} min soak ({args.clients} clients); "
            "band: +-10% of the median just after the warm-up (grey line)"
        )
        band = (at_warm * 0.9, at_warm * 1.1)
        line_chart(Path(args.png), rss, title=title, band=band, mark_x=warm_min)
        dump = Path(args.png).with_suffix(".json")
        dump.write_text(json.dumps([{"minute": t, **v} for t, v in tally.samples]))
        print(f"  RSS curve: {args.png} (samples: {dump})")
    for name, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'} {name}")
    return 0 if all(ok for _, ok in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", default=str(VAULT_EXAMPLE), help="copied, never written")
    parser.add_argument("--work", default="/tmp/kbtui-bench/http-soak")
    parser.add_argument("--png", default=str(REPO / "bench" / "http_soak_rss.png"))
    parser.add_argument("--sample", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=1 / 6, help="share of the run")
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between user steps")
    args = parser.parse_args(argv)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    vault = work / "vault"
    shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".kbtui"))
    before = cpu_times()
    served = Served(vault)
    tally = Tally()
    try:
        anyio.run(run, served, args, tally)
    except BaseException:
        served.kill()
        print(served.stderr()[-4000:], file=sys.stderr)
        raise
    return report(args, tally, served, before)


if __name__ == "__main__":
    raise SystemExit(main())
