"""Tasks queries at scale (issue 41, item 6): a synthetic vault (bench/synth_vault.py) of
10,000 notes with 5 tasks each (50,000: Tasks-plugin fields, statuses, tags, recurrence), the
queries of bench QUERIES answered by app_tasks_query in a running process (p50/p95 of
--rounds calls each, after the three calls that pay a process's one-offs, timed apart) and by
a fresh `kbtui tasks:query` process.
Targets: p95 <= 150 ms in process, <= 1 s for a fresh CLI.

    python bench/tasks_query.py --notes 10000 --rounds 20 [--keep DIR]"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common import WORK, cpu_times, kbtui_runs, machine_note, p50_p95, percentiles
from synth_vault import make_vault

from kbtui.config import Settings

QUERIES = {
    "not done, due before next week": "not done\ndue before next week",
    "dashboard: group by filename": (
        "not done\nhappens before tomorrow\ngroup by filename\nlimit 50"
    ),
    "boolean + tags": "(tags include #work) OR (priority is above none)\nnot done",
    "sort by priority, due": "not done\nsort by priority\nsort by due\nlimit 100",
    "path + description": "path includes projects\ndescription includes review",
    "group by tags, limit groups": "group by tags\nlimit groups 5",
    "is recurring": "is recurring\nsort by due reverse",
}
WORDS = ("review", "draft", "call", "ship", "plan", "fix", "write", "check", "order", "book")
TAGS = ("#work", "#home", "#errand", "#someday", "#work/deep")


def build(root: Path, notes: int, seed: int) -> Path:
    make_vault(root, notes, seed)
    rng = random.Random(seed)
    for p in sorted(root.rglob("*.md")):
        lines = ["", "## Tasks", ""]
        for i in range(5):
            day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            status = rng.choice("      x/-")
            fields = rng.choice(["", f" 📅 {day}", f" ⏳ {day}", f" 🛫 {day} 📅 {day}"])
            fields += rng.choice(["", "", " ⏫", " 🔼", " 🔽"])
            if rng.random() < 0.05:
                fields += " 🔁 every week"
            tag = rng.choice(TAGS) if rng.random() < 0.4 else ""
            if status == "x":
                fields += f" ✅ {day}"
            lines.append(
                f"- [{status}] {rng.choice(WORDS)} item {i} {tag}{fields}".replace("  ", " ")
            )
        with p.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return root


def in_process(root: Path, rounds: int, today: str) -> None:
    from kbtui.embed import HashEmbedder
    from kbtui.runtime.runtime import VaultRuntime

    rt = VaultRuntime(Settings.for_vault(root), HashEmbedder(), watch=False)
    rt.start()
    rt.worker.wait_idle(3600)
    listed = rt.call("tasks_list", {"status": "all", "limit": 1})
    print(f"{listed['total']} tasks in {len(rt.kb.store.all_note_paths())} notes")
    once = {  # a process's first three queries each pay a one-off (tools/obsidian/tasks_query.py)
        "first query (reads the tasks it keeps)": "not done",
        "second (reads and keeps every task)": "not done",
        "third (numbers them in the default order)": "not done",
    }
    for label, query in once.items():
        t = time.perf_counter()
        first = rt.call("app_tasks_query", {"query": query, "today": today})
        print(f"{label} {(time.perf_counter() - t) * 1000:.0f} ms")
        assert first["ok"], first
    for label, query in QUERIES.items():
        samples, cpu = [], []
        for _ in range(rounds):
            t, c = time.perf_counter(), time.process_time()
            answer = rt.call("app_tasks_query", {"query": query, "today": today})
            samples.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            assert answer["ok"], answer
        found = f"{answer['count']} of {answer['total']}"
        print(f"{label:34s} {percentiles(samples)}  cpu {p50_p95(cpu)} ms  ({found})")
    rt.close()


def fresh_cli(root: Path, rounds: int, today: str) -> None:
    commands = {
        "baseline: kbtui orphans --total": ["orphans", "--total"],
        **{
            f"tasks:query {label}": ["tasks:query", QUERIES[label], "--today", today]
            for label in ("not done, due before next week", "dashboard: group by filename")
        },
    }
    for label, args in commands.items():
        runs = kbtui_runs([*args, "--vault", str(root)], rounds, WORK)
        walls, cpus = zip(*runs, strict=True)
        print(f"fresh CLI {label:48s} {percentiles(list(walls))}  cpu {p50_p95(list(cpus))} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--today", default="2026-06-15")
    ap.add_argument("--keep", type=Path, help="build the vault here (and keep it)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp()) / "vault"
    before = cpu_times()
    if not (root / ".kbtui").exists():
        build(root, args.notes, args.seed)
        subprocess.run(
            [sys.executable, "-m", "kbtui.cli", "index", "--no-embed", "--vault", str(root)],
            check=True,
            capture_output=True,
        )
    in_process(root, args.rounds, args.today)
    fresh_cli(root, max(args.rounds // 4, 5), args.today)
    print(machine_note(before))
    if not args.keep:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
