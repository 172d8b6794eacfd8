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
import threading
import time
from pathlib import Path

from bench_common import copy_vault, cpu_times, machine_note

from kbtui.config import Settings
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


def newest(vault: Path, count: int) -> list[str]:
    """Vault-relative paths of the `count` most recently modified notes."""
    notes = sorted(vault.rglob("*.md"), key=lambda p: (-p.stat().st_mtime_ns, str(p)))
    return [p.relative_to(vault).as_posix() for p in notes[:count]]


def waiting_among(store: Store, paths: list[str]) -> tuple[int, int]:
    """(notes of `paths` in the index, their chunks still waiting for a vector)."""
    row = store.con.execute(
        "SELECT count(DISTINCT n.path), count(c.cid) FILTER (WHERE c.embedding IS NULL "
        "AND c.not_embedded IS NULL) FROM notes n LEFT JOIN chunks c USING (entity_id) "
        "WHERE list_contains(?, n.path)",
        [paths],
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def chunk_counts(settings: Settings, paths: list[str]) -> tuple[int, dict[str, int]]:
    """(embeddable chunks of `paths`, chunks by what was done with them)."""
    store = Store(settings.db_path, read_only=True)
    try:
        row = store.con.execute(
            "SELECT count(*) FROM notes n JOIN chunks c USING (entity_id) "
            "WHERE list_contains(?, n.path) AND c.not_embedded IS NULL",
            [paths],
        ).fetchone()
        kinds = store.con.execute(
            "SELECT coalesce(not_embedded, 'embedded'), count(*) FROM chunks GROUP BY 1"
        ).fetchall()
    finally:
        store.close()
    return (int(row[0]) if row else 0), {str(k): int(v) for k, v in kinds}


def two_rates(start: float, text_end: float, beside: float, after: float, chunks: float) -> float:
    """When `chunks` have vectors, embedding from `start` at `beside` chunks/s while the text
    pass runs (until `text_end`), then at `after` chunks/s."""
    if beside > 0 and start < text_end:
        if chunks <= beside * (text_end - start):
            return start + chunks / beside
        return text_end + (chunks - beside * (text_end - start)) / after
    return max(start, text_end) + chunks / after


def first_index(vault: Path, recent: int) -> None:
    """One cold pass in this process, as `kbtui index` runs it, timing each mark; the time to
    the newest notes' vectors is asked of the index as the pass goes."""
    settings = Settings.for_vault(vault)
    recent_paths = newest(vault, recent)
    marks: list[tuple[float, str, int, int]] = []
    lock = threading.RLock()
    recent_at: list[float] = []
    started = time.perf_counter()
    store = Store(settings.db_path)

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter() - started
        marks.append((now, phase, done, total))
        if phase == "embed" and done and not recent_at:
            with lock:
                written, waiting = waiting_among(store, recent_paths)
            if written == len(recent_paths) and not waiting:
                recent_at.append(time.perf_counter() - started)

    embedder = FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
    before = cpu_times()
    try:
        report = Indexer(settings, store, embedder, progress=progress, lock=lock).run()
    finally:
        store.close()
    wall = time.perf_counter() - started
    machine = machine_note(before)
    recent_chunks, kinds = chunk_counts(settings, recent_paths)
    total = sum(kinds.values())
    embeddable = kinds.get("embedded", 0)
    text_done = max((t for t, phase, *_ in marks if phase != "embed"), default=0.0)
    embed_marks = [(t, done) for t, phase, done, _ in marks if phase == "embed"]
    embed_start = embed_marks[0][0] if embed_marks else wall  # embedding began
    first_vector = next((t for t, done in embed_marks if done), wall)
    beside_done = max((d for t, d in embed_marks if t <= text_done), default=0)
    beside_s = text_done - embed_start
    beside = beside_done / beside_s if beside_done and beside_s > 0 else 0.0
    after_s = wall - max(text_done, embed_start)
    after = (report.chunks_embedded - beside_done) / after_s if after_s > 0 else float("nan")
    print(f"notes {len(report.new)}, chunks {total}: {machine}")
    print(f"keyword-searchable after {text_done:.1f} s (read, parse, chunk, write every note)")
    print(f"embedding began after {embed_start:.1f} s, first vectors committed after "
          f"{first_vector:.1f} s")  # fmt: skip
    recent_s = recent_at[0] if recent_at else wall
    print(f"vectors for the {recent} most recent notes ({recent_chunks} chunks) after "
          f"{recent_s:.1f} s (asked of the index as it went)")  # fmt: skip
    print(f"vectors for everything ({embeddable} chunks) after {wall:.1f} s")
    print(f"embedding rate: {beside:.0f} chunks/s beside the text pass ({beside_done} chunks), "
          f"{after:.0f} chunks/s after it")  # fmt: skip
    skipped = {k: v for k, v in kinds.items() if k != "embedded"}
    share = sum(skipped.values()) / total if total else 0.0
    print(f"not embedded: {share:.1%} of chunks {skipped} (still keyword-searchable)")
    if after == after and after > 0:
        scale = REDIS_CHUNKS / total
        text_r = text_done * scale
        start_r = embed_start if embed_start < text_done else text_r
        first_k = 1000 * (REDIS_CHUNKS / REDIS_NOTES) * (1 - share)
        everything = REDIS_CHUNKS * (1 - share)
        print(f"projected to redis's docs ({REDIS_CHUNKS:,} chunks, this corpus's skip share, "
              f"the rates above): text pass {text_r:.0f} s, first vector at {start_r:.0f} s, "
              f"the 1,000 most recent notes ({first_k:,.0f} chunks) "
              f"{two_rates(start_r, text_r, beside, after, first_k) / 60:.1f} min, "
              f"everything ({everything:,.0f} chunks) "
              f"{two_rates(start_r, text_r, beside, after, everything) / 60:.1f} min")  # fmt: skip


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
            copy_vault(args.vault, vault)
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
