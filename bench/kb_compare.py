"""kb_search at two commits in one process tree, so a regression shows as a ratio (issue 42).

    python bench/kb_compare.py --compare 7c2441e --chunks 100000   # or bench/kb_latency.py
    python bench/kb_compare.py --compare 7c2441e --pairs 8 --rounds 100 --profile

Figures of one commit taken an hour apart on this shared 2-core VM differ by more than a
regression, so this runs both in turns: for each of --pairs rounds, a child process of the old
commit, then one of this checkout (order swapped every other pair), each opening the same
synthetic vault's text indexed by its own code (the index schema differs between commits),
loading the real model, answering 10 warm-up queries and then --rounds kb_search calls, plain
and filtered by type, as bench/kb_latency.py does, each timed in wall and CPU time (the child's,
its threads included: steadier than wall on a loaded machine). Each child prints its samples;
the parent prints p50/p95 of each commit over all pairs, the ratio this/old, and the load and
CPU steal of each pair. The old commit is checked out once under --work (a detached git
worktree) and run with this venv (PYTHONPATH first); its vault copy (notes hard-linked) is
indexed once, with the hash embedder, by that commit's indexer. --profile: each child also
writes a cProfile of its timed queries (`python -m pstats FILE`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_common import (  # noqa: E402
    CHUNKS_PER_NOTE,
    QUERIES,
    REPO,
    WORK,
    copy_vault,
    cpu_times,
    machine_note,
    p50_p95,
    percentiles,
)

KINDS = ("kb_search", "kb_search person")  # each also timed in CPU ("... cpu")


# -- in a child: kbtui is whichever checkout PYTHONPATH names ------------------------------
def child_build(vault: Path) -> None:
    """Index `vault` with the hash embedder, by the checkout this child runs."""
    from kbtui.config import Settings
    from kbtui.embed import HashEmbedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store

    settings = Settings.for_vault(vault)
    partial = settings.db_path.with_suffix(".building")
    partial.parent.mkdir(parents=True, exist_ok=True)
    store = Store(partial)
    Indexer(settings, store, HashEmbedder()).run()
    store.close()
    partial.rename(settings.db_path)


def child_query(vault: Path, rounds: int, profile: Path | None) -> None:
    """Print {kind: [ms, ...]} for `rounds` kb_search calls of each kind (after 10 warm-up)."""
    import kbtui
    from kbtui.config import Settings
    from kbtui.embed import FastEmbedder
    from kbtui.runtime.knowledge_base import KnowledgeBase

    embedder = FastEmbedder()
    embedder.load()
    kb = KnowledgeBase.open(Settings.for_vault(vault), embedder)
    filters: dict[str, dict[str, str]] = {"kb_search": {}, "kb_search person": {"type": "person"}}
    for i in range(10):
        assert kb.call("kb_search", {"query": QUERIES[i % len(QUERIES)], "top_k": 10})["ok"]
    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    out: dict[str, Any] = {"kbtui": str(Path(kbtui.__file__).parent)}
    for kind, only in filters.items():
        walls, cpus = [], []
        for i in range(rounds):
            ask = {"query": QUERIES[i % len(QUERIES)], "top_k": 10, "filters": only}
            started, cpu = time.perf_counter(), time.process_time()
            kb.call("kb_search", ask)
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
        out[kind], out[f"{kind} cpu"] = walls, cpus
    if profiler is not None and profile is not None:
        profiler.disable()
        profiler.dump_stats(str(profile))
    kb.close()
    print(json.dumps(out))


# -- in the parent ---------------------------------------------------------------------------
def checkout(rev: str, work: Path) -> tuple[str, Path]:
    """(short sha, a detached worktree of `rev` under `work`), made once."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    src = work / "compare" / sha / "src"
    if not src.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(src), sha], cwd=REPO, check=True)
    return sha, src


def spawn(src: Path, *args: str) -> str:
    """This script in a child whose `kbtui` is `src`'s (this venv's packages)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, str(HERE / "kb_compare.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"child {args} at {src} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def prepared(src: Path, vault: Path, text: Path) -> Path:
    """`vault`: `text`'s notes (hard-linked) indexed by `src`'s code, built once."""
    from kbtui.config import Settings

    if not Settings.for_vault(vault).db_path.exists():
        started = time.perf_counter()
        if vault != text and not vault.exists():
            copy_vault(text, vault, link=True)
        spawn(src, "--child-build", str(vault))
        print(f"indexed {vault} with {src}'s code in {time.perf_counter() - started:.0f} s")
    return vault


def compare(rev: str, chunks: int, pairs: int, rounds: int, work: Path, profile: bool) -> None:
    """Old and this checkout in turns; p50/p95 of each over every pair, and the ratio."""
    from synth_vault import make_vault

    notes = int(chunks / CHUNKS_PER_NOTE)
    text = work / f"synth_{notes}"  # bench/kb_latency.py's vault, indexed by this checkout
    if not any(text.glob("*/*.md")):
        make_vault(text, notes, 0)
    sha, old_src = checkout(rev, work)
    sides = {
        sha: (old_src, prepared(old_src, work / "compare" / sha / f"synth_{notes}", text)),
        "this": (REPO, prepared(REPO, text, text)),
    }
    kinds = [*KINDS, *(f"{k} cpu" for k in KINDS)]
    samples: dict[str, dict[str, list[float]]] = {s: {k: [] for k in kinds} for s in sides}
    for pair in range(pairs):
        before = cpu_times()
        order = list(sides) if pair % 2 == 0 else list(reversed(sides))
        line = []
        for side in order:
            src, vault = sides[side]
            args = ["--child-query", str(vault), "--rounds", str(rounds)]
            if profile:
                args += ["--profile-to", str(work / "compare" / f"{side}-{pair}.prof")]
            answer = json.loads(spawn(src, *args).strip().splitlines()[-1])
            for kind in kinds:
                samples[side][kind] += answer[kind]
            line.append(
                f"{side} {p50_p95(answer['kb_search'])} (CPU {p50_p95(answer['kb_search cpu'])})"
            )
        print(f"pair {pair + 1}: kb_search p50/p95 {', '.join(line)} ms; {machine_note(before)}")
    for kind in kinds:  # CPU: this process's (threads included), steadier than wall under load
        for side in sides:
            print(f"{kind:17s} {side:8s} {percentiles(samples[side][kind])}")
        old, new = samples[sha][kind], samples["this"][kind]
        p50 = sorted(new)[len(new) // 2] / sorted(old)[len(old) // 2]
        p95 = sorted(new)[int(0.95 * (len(new) - 1))] / sorted(old)[int(0.95 * (len(old) - 1))]
        print(f"{kind:17s} this/{sha}: p50 x{p50:.2f}, p95 x{p95:.2f}")
    if profile:
        print(f"profiles: {work / 'compare'}/<side>-<pair>.prof")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--compare", metavar="REV", help="the old commit")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--profile", action="store_true", help="cProfile each child's queries")
    parser.add_argument("--child-build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-query", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_build:
        child_build(args.child_build)
    elif args.child_query:
        child_query(args.child_query, args.rounds, args.profile_to)
    elif args.compare:
        compare(args.compare, args.chunks, args.pairs, args.rounds, args.work, args.profile)
    else:
        parser.error("--compare REV is required")


if __name__ == "__main__":
    main()
