"""Useful before embedding finishes: how soon a fresh vault answers keyword searches.

Writes a synthetic vault (default 10k notes) into a temporary folder, starts the same
VaultRuntime the TUI and the MCP server run (model load, then the background pass), and polls
kb_search in keyword mode and the runtime's status, as the TUI's status bar does, printing the
progress it shows. Reports the seconds from start to the first keyword results, to every note
being searchable by keyword, and to the first vector scores. Stops there (or at --limit s):
embedding the whole vault is bench/index_throughput.py's subject.

    .venv/bin/python bench/first_results.py [--notes N] [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import cpu_times, machine_note
from synth_vault import make_vault

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.runtime import VaultRuntime

QUERY = "battery sensor latency"


def progress_line(status: dict[str, Any]) -> str:
    index, stats = status["index"], status["stats"]
    phase = index.get("phase") or {}
    where = f"{phase.get('name')} {phase.get('done')}/{phase.get('total')}" if phase else "-"
    return (
        f"{index.get('state')}: {where}; {stats.get('notes', 0)} notes, "
        f"{stats.get('embedded', 0)}/{stats.get('chunks', 0)} chunks embedded"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, default=10_000, help="synthetic notes (10000)")
    parser.add_argument("--limit", type=float, default=120.0, help="give up after (s)")
    args = parser.parse_args()
    before = cpu_times()
    with tempfile.TemporaryDirectory(prefix="kbtui-first-") as tmp:
        vault = make_vault(Path(tmp) / "vault", args.notes)
        runtime = VaultRuntime(Settings.for_vault(vault), FastEmbedder(), watch=False)
        started = time.perf_counter()
        marks: dict[str, float] = {}
        shown = -10.0
        try:
            runtime.start(catch_up=True)
            marks["model loaded, pass started"] = time.perf_counter() - started
            while (now := time.perf_counter() - started) < args.limit:
                answer = runtime.call("kb_search", {"query": QUERY, "mode": "keyword"})
                status = runtime.status()
                if answer.get("results") and "first keyword results" not in marks:
                    marks["first keyword results"] = now
                if status["stats"].get("notes", 0) >= args.notes:
                    marks.setdefault("every note searchable by keyword", now)
                if status["stats"].get("embedded", 0) and "first vectors" not in marks:
                    marks["first vectors"] = now
                if now - shown >= 2.0:
                    print(f"{now:6.1f} s  {progress_line(status)}", flush=True)
                    shown = now
                if len(marks) == 4:
                    break
                time.sleep(0.2)
        finally:
            runtime.close()
    print()
    for label, seconds in marks.items():
        print(f"{label:<34} {seconds:6.1f} s")
    print(f"{args.notes} notes; {machine_note(before)}")


if __name__ == "__main__":
    main()
