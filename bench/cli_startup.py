"""A fresh `kbtui` process answering a read-only command on its own (no owner process): wall
and CPU time, as people type it, plus the heavy modules it imported (issue 30 item 5).

    python bench/cli_startup.py --vault /tmp/kep-copy            # indexed copy of a vault
    python bench/cli_startup.py --vault /tmp/kep-copy --runs 20 --base Templates/Bases/Books.base

Prints median and p95 of wall and CPU (user+system of the child) per command, and the load.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_common import REPO, cpu_times, machine_note, quantile

SCRIPT = Path(sys.executable).with_name("kbtui")
KBTUI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, str(REPO / "kbtui/cli/__main__.py")]
WATCHED = ("igraph", "watchdog", "onnxruntime", "fastembed", "xml.sax", "urllib.request")


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def loaded(argv: list[str]) -> list[str]:
    """Which of WATCHED the command imported (from `python -X importtime`)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *KBTUI[-1:], *argv[len(KBTUI) :]],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    names = {ln.rsplit("|", 1)[-1].strip() for ln in done.stderr.splitlines() if "|" in ln}
    return [m for m in WATCHED if m in names]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", required=True, help="an indexed vault (a copy: it is opened)")
    ap.add_argument("--base", default="Templates/Bases/Books.base", help="a .base to query")
    ap.add_argument("--query", default="sync", help="the keyword search's query")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    commands = {
        "base:query": [*KBTUI, "base:query", args.base, "--vault", args.vault, "--format", "paths"],
        "search": [*KBTUI, "search", args.query, "--vault", args.vault],
        "search kw": [*KBTUI, "search", args.query, "--vault", args.vault, "--mode", "keyword"],
        "--version": [*KBTUI, "--version"],
    }
    cpu_before = cpu_times()
    print(f"{'command':<12} {'wall p50':>9} {'wall p95':>9} {'cpu p50':>8} {'cpu p95':>8}  heavy")
    for label, argv in commands.items():
        run(argv)  # warm the page cache
        samples = [run(argv) for _ in range(args.runs)]
        wall = [w * 1000 for w, _ in samples]
        cpu = [c * 1000 for _, c in samples]
        print(
            f"{label:<12} {quantile(wall, 0.5):>7.0f}ms {quantile(wall, 0.95):>7.0f}ms "
            f"{quantile(cpu, 0.5):>6.0f}ms {quantile(cpu, 0.95):>6.0f}ms  "
            f"{','.join(loaded(argv)) or '-'}"
        )
    print(f"{args.runs} runs each; {machine_note(cpu_before)}; pid {os.getpid()}")


if __name__ == "__main__":
    main()
