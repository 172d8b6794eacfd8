"""Embedder throughput and peak memory: the wheel's model as shipped against kbtui's build.

Each measurement runs in a fresh child process (so its peak RSS is its own) on the same
500-character chunks, and the configurations take turns round after round, so load from
other work on the machine falls on all of them alike. Prints per configuration the median
wall-clock chunks/s, the CPU-seconds per chunk (steadier than wall time on a busy machine),
the peak RSS of the child, and the speed-up over the first configuration. With `--pool`,
kbtui's build also runs one text a call on the pool of one-thread sessions a bulk run uses
(kbtui.indexing.pool: one per core, at most 4), against the single session at batch 1.

    .venv/bin/python bench/embed_speed.py [--chunks N] [--rounds R] [--batch B ...] [--pool]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from bench_common import SCIFACT, VAULT_EXAMPLE, cpu_times, machine_note, memory_fields

CHUNK_CHARS = 500


def chunk_texts(n: int) -> list[str]:
    """n 500-character slices of real prose (SciFact abstracts, else the example vault)."""
    corpus = SCIFACT / "corpus.jsonl"
    if corpus.is_file():
        docs = [json.loads(line)["text"] for line in corpus.open(encoding="utf-8")]
    else:
        docs = [p.read_text(encoding="utf-8") for p in sorted(VAULT_EXAMPLE.rglob("*.md"))]
    text = " ".join(" ".join(d.split()) for d in docs)
    step = CHUNK_CHARS - 50
    out = [text[i : i + CHUNK_CHARS] for i in range(0, len(text) - CHUNK_CHARS, step)]
    return (out * (n // max(len(out), 1) + 1))[:n]


def child(optimise: bool, batch: int, n: int) -> None:
    """Load the model, embed n chunks once to warm up on a slice, time the rest; print JSON.
    Batch 0: one text a call on the pool of one-thread sessions (sessions loaded first)."""
    from kbtui.embed import FastEmbedder
    from kbtui.indexing.pool import SessionPool

    texts = chunk_texts(n)
    embedder = FastEmbedder(batch_size=max(batch, 1), optimise=optimise)
    embedder.load()
    embedder.embed(texts[: max(batch, 1)])
    pool = None
    if batch == 0:
        sessions = embedder.bulk_sessions()
        pool = SessionPool(embedder.one_thread_session, sessions, sessions, embedder.dim)
        pool.start(texts[: 4 * sessions])
        pool.take(0, 4 * sessions)  # every session made and warm
    cpu, wall = time.process_time(), time.perf_counter()
    if pool is not None:
        pool.start(texts)
        for i in range(0, n, 256):
            pool.take(i, min(i + 256, n))
    else:
        for i in range(0, n, 256):  # the indexer's groups (EMBED_BATCH)
            embedder.embed(texts[i : i + 256])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if pool is not None:
        pool.close()
    peak = memory_fields()["VmHWM"]
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "n": n}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=512, help="chunks per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="turns each configuration gets")
    parser.add_argument("--batch", type=int, nargs="*", default=[32], help="batch sizes to try")
    parser.add_argument("--pool", action="store_true", help="also batch 1 on a session pool")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0] == "1", int(args.child[1]), int(args.child[2]))
        return
    configs = [("as shipped", False, 32)] + [("kbtui build", True, b) for b in args.batch]
    if args.pool:  # batch 0: the pool (one text a call), beside one session at batch 1
        configs += [("kbtui build", True, 1)] * (1 not in args.batch) + [("kbtui pool", True, 0)]
    runs: dict[int, list[dict[str, float]]] = {i: [] for i in range(len(configs))}
    before = cpu_times()
    for _ in range(args.rounds):
        for i, (_, optimise, batch) in enumerate(configs):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(int(optimise)),
                    str(batch),
                    str(args.chunks),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[i].append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = statistics.median(r["n"] / r["wall"] for r in runs[0])
    base_cpu = statistics.median(r["cpu"] / r["n"] for r in runs[0])
    print(
        f"{'model':<12} {'batch':>5} {'chunks/s':>9} {'CPU ms/chunk':>13} {'peak RSS':>9} "
        f"{'speed-up':>9}"
    )
    for i, (label, _, batch) in enumerate(configs):
        rate = statistics.median(r["n"] / r["wall"] for r in runs[i])
        cpu = statistics.median(r["cpu"] / r["n"] for r in runs[i])
        peak = max(r["peak_mb"] for r in runs[i])
        print(
            f"{label:<12} {max(batch, 1):>5} {rate:9.1f} {1000 * cpu:13.1f} {peak:7.0f} MB "
            f"{rate / base:5.2f}x wall {base_cpu / cpu:5.2f}x CPU"
        )
    print(
        f"{args.chunks} chunks of {CHUNK_CHARS} characters x {args.rounds} rounds; "
        f"{machine_note(before)}"
    )


if __name__ == "__main__":
    main()
