"""The command line as people type it: `kbtui --version`, and `kbtui search` with no kbtui
process owning the vault, then through a running owner (`kbtui mcp`), each a fresh process.

    python bench/cli_latency.py                        # obsidian-hub-sized vault (6,600 notes)
    python bench/cli_latency.py --vault ~/notes-copy --runs 10

Without --vault the vault is watch_latency.py's obsidian-hub-sized one (~43.9k chunks, built
once under /tmp/kbtui-bench), searched on a copy. Prints wall time (median, p95) and the
peak RSS of the command's process, and the goal of each row (issue 18).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import (
    REPO,
    WORK,
    cpu_times,
    hub_sized_vault,
    machine_note,
    quantile,
    start_owner,
    working_copy,
)

from kbtui.embed import FastEmbedder

SCRIPT = Path(sys.executable).with_name("kbtui")  # the console script, as people run it
KBTUI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kbtui.cli"]


def run(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS MB) of one command, run to its end. The peak comes from
    /usr/bin/time: a child forked from this process starts with this process's RSS as its
    ru_maxrss, which would hide a small command's own."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as peak:
        started = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", peak.name, *argv],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{argv} failed: {done.stderr[-2000:]}")
        return seconds, int(peak.read().split()[-1]) / 1024


def row(label: str, argv: list[str], runs: int, goal: str) -> None:
    samples = [run(argv) for _ in range(runs)]
    wall = [s for s, _ in samples]
    rss = statistics.median(m for _, m in samples)
    print(
        f"{label:<26} median {statistics.median(wall):.2f} s, p95 {quantile(wall, 0.95):.2f} s, "
        f"peak RSS {rss:.0f} MB (n={runs})   goal {goal}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, help="an indexed vault (default: hub-sized copy)")
    parser.add_argument("--notes", type=int, default=6600, help="hub-sized vault's notes")
    parser.add_argument("--query", default="project planning meeting")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    before = cpu_times()
    with tempfile.TemporaryDirectory(prefix="kbtui-cli-") as tmp:
        if args.vault is None:
            args.work.mkdir(parents=True, exist_ok=True)
            cache = hub_sized_vault(args.work, args.notes, FastEmbedder().model_id)
            vault = working_copy(cache, Path(tmp) / "live")
        else:
            vault = args.vault.resolve()
        search = [*KBTUI, "--vault", str(vault), "search", args.query]
        row("kbtui --version", [*KBTUI, "--version"], args.runs, "<= 0.15 s")
        row("kbtui search, no owner", search, args.runs, "<= 1.5 s")
        owner = start_owner(vault, 120)
        try:
            run(search)  # the owner's first answer loads its model: not the CLI's cost
            row("kbtui search, via owner", search, args.runs, "<= 0.3 s")
        finally:
            owner.terminate()
            owner.wait(30)
    print(machine_note(before))


if __name__ == "__main__":
    main()
