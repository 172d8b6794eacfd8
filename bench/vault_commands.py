"""Obsidian's vault commands at scale (issue 29): latency of vault_links, tasks_list and the
properties answers on a synthetic vault, and what reading markdown links, tasks and canvases
adds to a cold index.

    python bench/vault_commands.py --notes 10000          # latency (p50/p95, CPU) per answer
    python bench/vault_commands.py --notes 2000 --cold    # cold keyword index, with/without

Each note of the synthetic vault (bench/synth_vault.py) gets three tasks (Tasks-plugin fields)
and two markdown links, one relative and one percent-encoded, so there is work to find.
The cold comparison indexes the same vault twice without the model (parsing is what changed;
embedding, the real cost of a cold index, is left out, so the share is an upper bound):
once as shipped, once with markdown links, tasks and canvases switched off.
"""

from __future__ import annotations

import argparse
import importlib
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common import cpu_times, machine_note, p50_p95, percentiles
from synth_vault import make_vault

from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def build(root: Path, notes: int, seed: int) -> Path:
    make_vault(root, notes, seed)
    rng = random.Random(seed)
    paths = sorted(p for p in root.rglob("*.md"))
    for p in paths:
        other, far = rng.choice(paths), rng.choice(paths)
        rel = Path(*[".."] * (len(p.relative_to(root).parts) - 1), other.relative_to(root))
        day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        extra = (
            f"\n\n## Tasks\n\n- [ ] follow up {rng.randint(0, 999)} 📅 {day}\n"
            f"- [x] drafted ✅ {day}\n- [ ] review ⏫ [due:: {day}]\n\n"
            f"See [this]({rel.as_posix().replace(' ', '%20')}) and "
            f"[that](</{far.relative_to(root).as_posix()}>) and [gone](missing/{p.stem}.md).\n"
        )
        with p.open("a", encoding="utf-8") as fh:
            fh.write(extra)
    return root


def cold(root: Path, plain: bool) -> tuple[float, float]:
    """Wall and CPU seconds of a cold keyword-only index of `root` (a copy, its own index):
    CPU time is what this process spent, the steadier figure on a loaded shared machine."""
    work = Path(tempfile.mkdtemp()) / "vault"
    shutil.copytree(root, work, ignore=shutil.ignore_patterns(".kbtui"))
    parse: Any = importlib.import_module("kbtui.vault.parse")  # parts swapped out below

    saved = (parse.md_target, parse.find_tasks)
    if plain:  # as before issue 29: no markdown links, no tasks
        parse.md_target = lambda href, path: None
        parse.find_tasks = lambda tokens, lines, first: ()
    try:
        settings = Settings.for_vault(work)
        store = Store(settings.db_path)
        start, cpu = time.perf_counter(), time.process_time()
        Indexer(settings, store, None).run()
        seconds = (time.perf_counter() - start, time.process_time() - cpu)
        store.close()
    finally:
        parse.md_target, parse.find_tasks = saved
        shutil.rmtree(work.parent, ignore_errors=True)
    return seconds


def parse_only(root: Path) -> None:
    """CPU seconds to parse every note, with and without what issue 29 reads (3 rounds)."""
    parse: Any = importlib.import_module("kbtui.vault.parse")  # parts swapped out below

    texts = [(p.relative_to(root).as_posix(), p.read_text()) for p in sorted(root.rglob("*.md"))]
    saved = (parse.md_target, parse.find_tasks)
    for plain in (True, False) * 3:
        if plain:
            parse.md_target = lambda href, path: None
            parse.find_tasks = lambda tokens, lines, first: ()
        cpu = time.process_time()
        for path, text in texts:
            parse.parse_note(path, text)
        label = "without (plain)" if plain else "with links+tasks"
        print(f"parse only {len(texts)} notes {label:18s} cpu {time.process_time() - cpu:6.2f} s")
        parse.md_target, parse.find_tasks = saved


def latency(root: Path, rounds: int) -> None:
    from kbtui.embed import HashEmbedder
    from kbtui.runtime.runtime import VaultRuntime

    rt = VaultRuntime(Settings.for_vault(root), HashEmbedder(), watch=False)
    rt.start()
    rt.worker.wait_idle(3600)
    notes = rt.kb.store.all_note_paths()
    tags = [r["tag"] for r in rt.call("app_tags", {})["results"]] or ["none"]
    rng = random.Random(1)
    calls: dict[str, Callable[[], dict[str, Any]]] = {
        "vault_links backlinks": lambda: {"kind": "backlinks", "note": rng.choice(notes)},
        "vault_links links": lambda: {"kind": "links", "note": rng.choice(notes)},
        "vault_links unresolved": lambda: {"kind": "unresolved"},
        "vault_links orphans": lambda: {"kind": "orphans"},
        "vault_links deadends": lambda: {"kind": "deadends"},
        "tasks_list todo (100)": lambda: {},
        "tasks_list one note": lambda: {"status": "all", "note": rng.choice(notes)},
        "tasks_list due before": lambda: {"status": "all", "dueBefore": "2026-02-01"},
        "app_properties vault": lambda: {},
        "app_properties note": lambda: {"note": rng.choice(notes)},
        "app_tags": lambda: {},
        "app_tags one tag": lambda: {"name": rng.choice(tags)},
        "app_tags one note": lambda: {"note": rng.choice(notes)},
    }
    print(f"{len(notes)} notes, {rt.kb.store.stats().get('links')} links")
    for label, args in calls.items():
        tool = label.split()[0]
        samples, cpu = [], []
        for _ in range(rounds):
            a = args()
            t, c = time.perf_counter(), time.process_time()
            answer = rt.call(tool, a)
            samples.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            assert answer["ok"], answer
        results = len(answer.get("results", []))
        print(f"{label:26s} {percentiles(samples)}  cpu {p50_p95(cpu)} ms  ({results} results)")
    rt.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--cold", action="store_true", help="compare cold index times instead")
    ap.add_argument("--keep", type=Path, help="build the vault here (and keep it)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp()) / "vault"
    before = cpu_times()
    if not (root / ".kbtui").exists():
        build(root, args.notes, args.seed)
    if args.cold:
        parse_only(root)
        for plain in (True, False, True, False):
            label = "without (plain)" if plain else "with links+tasks"
            wall, cpu = cold(root, plain)
            print(f"cold keyword index {label:18s} wall {wall:7.2f} s  cpu {cpu:7.2f} s")
    else:
        latency(root, args.rounds)
    print(machine_note(before))
    if not args.keep:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
