"""A first index of a big documentation vault: time to keyword search, to vectors for the
most recent notes, to vectors for everything; what is not embedded and why; an interrupted
pass resumed.

Issue 18's yardstick is redis's documentation (5,985 notes, 72 MB, 140,518 chunks; goals:
vectors for everything <= 30 min, for the 1,000 most recent notes <= 3 min). It is not on this
machine; real documentation that is (Node.js's API docs and npm's, ~15 MB of markdown with
long code blocks and tables) stands in, and the figures are projected to redis's size at the
rate measured here. A real vault's notes have varied modification times; a package's files
all have one, so each copy gets a seeded spread over a year (recent-first order needs one).

    python bench/cold_index.py                               # Node.js + npm docs
    python bench/cold_index.py --vault ~/notes --recent 200
    python bench/cold_index.py --interrupt-after 60          # Ctrl-C mid-pass, then resume

Works on a copy (the source is never touched); prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import cpu_times, machine_note

from kbtui.config import INDEX_DIRNAME, Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store

DOCS = [Path("/usr/share/doc/nodejs"), Path("/usr/lib/node_modules/npm/docs")]
REDIS_CHUNKS, REDIS_NOTES = 140_518, 5_985
YEAR = 365 * 24 * 3600


def copy_docs(sources: list[Path], target: Path, seed: int) -> int:
    """Every .md under `sources` into `target` (folders kept), mtimes spread over a year."""
    rng = random.Random(seed)
    now = time.time()
    count = 0
    for source in sources:
        for path in sorted(source.rglob("*.md")):
            dest = target / source.name / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            stamp = now - rng.random() * YEAR
            os.utime(dest, (stamp, stamp))
            count += 1
    return count


def recent_chunk_marks(settings: Settings, recent: int) -> tuple[int, int]:
    """(embeddable chunks of the `recent` most recently modified notes, of all notes)."""
    store = Store(settings.db_path, read_only=True)
    try:
        rows = store.con.execute(
            "SELECT n.mtime_ns, count(*) FILTER (WHERE c.not_embedded IS NULL) "
            "FROM notes n JOIN chunks c USING (entity_id) GROUP BY n.entity_id, n.mtime_ns "
            "ORDER BY n.mtime_ns DESC"
        ).fetchall()
    finally:
        store.close()
    return sum(int(r[1]) for r in rows[:recent]), sum(int(r[1]) for r in rows)


def not_embedded(settings: Settings) -> dict[str, int]:
    store = Store(settings.db_path, read_only=True)
    try:
        rows = store.con.execute(
            "SELECT coalesce(not_embedded, 'embedded'), count(*) FROM chunks GROUP BY 1"
        ).fetchall()
    finally:
        store.close()
    return {str(k): int(v) for k, v in rows}


def first_index(vault: Path, recent: int) -> None:
    """One cold pass in this process, as `kbtui index` runs it, timing each mark."""
    settings = Settings.for_vault(vault)
    marks: list[tuple[float, str, int, int]] = []
    started = time.perf_counter()

    def progress(phase: str, done: int, total: int) -> None:
        marks.append((time.perf_counter() - started, phase, done, total))

    embedder = FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
    before = cpu_times()
    store = Store(settings.db_path)
    try:
        report = Indexer(settings, store, embedder, progress=progress).run()
    finally:
        store.close()
    wall = time.perf_counter() - started
    machine = machine_note(before)
    recent_chunks, all_chunks = recent_chunk_marks(settings, recent)
    text_done = max((t for t, phase, *_ in marks if phase != "embed"), default=0.0)
    embed_marks = [(t, done) for t, phase, done, _ in marks if phase == "embed"]
    recent_at = next((t for t, done in embed_marks if done >= recent_chunks), wall)
    kinds = not_embedded(settings)
    total = sum(kinds.values())
    embed_s = wall - text_done
    per_s = report.chunks_embedded / embed_s if embed_s > 0 else float("nan")
    print(f"notes {len(report.new)}, chunks {total}: {machine}")
    print(f"keyword-searchable after {text_done:.1f} s (read, parse, chunk, write)")
    print(f"vectors for the {recent} most recent notes ({recent_chunks} chunks) after "
          f"{recent_at:.1f} s")  # fmt: skip
    print(f"vectors for everything ({all_chunks} chunks) after {wall:.1f} s "
          f"({per_s:.0f} chunks/s embedding)")  # fmt: skip
    skipped = {k: v for k, v in kinds.items() if k != "embedded"}
    share = sum(skipped.values()) / total if total else 0.0
    print(f"not embedded: {share:.1%} of chunks {skipped} (still keyword-searchable)")
    if per_s == per_s and per_s > 0:
        projected = REDIS_CHUNKS * (1 - share) / per_s + text_done * REDIS_CHUNKS / total
        first_k = 1000 * (REDIS_CHUNKS / REDIS_NOTES) * (1 - share) / per_s
        print(f"projected to redis's docs ({REDIS_CHUNKS:,} chunks, this corpus's skip "
              f"share): everything {projected / 60:.1f} min, the 1,000 most recent notes "
              f"{(first_k + text_done * REDIS_CHUNKS / total) / 60:.1f} min "
              "(the text pass comes first)")  # fmt: skip


def interrupted(vault: Path, after: float) -> None:
    """`kbtui index` stopped by SIGINT after `after` seconds, then run again: the second pass
    must embed only what the first did not commit."""
    kbtui = [sys.executable, "-m", "kbtui.cli", "--vault", str(vault)]
    first = subprocess.Popen([*kbtui, "index"], stderr=subprocess.DEVNULL)
    time.sleep(after)
    first.send_signal(signal.SIGINT)
    code = first.wait(timeout=120)
    stats = json.loads(subprocess.check_output([*kbtui, "stats", "--json"]))
    done, chunks = int(stats["embedded"]), int(stats["chunks"])
    waiting = chunks - done - int(stats.get("not_embedded", 0))
    started = time.perf_counter()
    out = subprocess.check_output([*kbtui, "index", "--json"], stderr=subprocess.DEVNULL)
    report = json.loads(out)
    print(f"SIGINT after {after:.0f} s (exit {code}): {done} of {chunks} chunks had vectors, "
          f"{waiting} waiting; the next `kbtui index` embedded {report['chunks_embedded']} in "
          f"{time.perf_counter() - started:.1f} s (new notes {len(report['new'])}, changed "
          f"{len(report['changed'])})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, help="a vault to copy (default: Node.js + npm docs)")
    parser.add_argument("--recent", type=int, default=0, help="N most recent notes (10%%)")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--interrupt-after", type=float, help="seconds before SIGINT")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kbtui-cold-") as tmp:
        vault = Path(tmp) / "vault"
        if args.vault is not None:
            shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(INDEX_DIRNAME))
            notes = sum(1 for _ in vault.rglob("*.md"))
        else:
            notes = copy_docs([d for d in DOCS if d.is_dir()], vault, args.seed)
        recent = args.recent or max(1, notes // 10)
        size = sum(p.stat().st_size for p in vault.rglob("*.md")) / 1e6
        print(f"vault: {notes} notes, {size:.1f} MB of markdown, copied to {vault}")
        if args.interrupt_after is not None:
            interrupted(vault, args.interrupt_after)
        else:
            first_index(vault, recent)


if __name__ == "__main__":
    main()
