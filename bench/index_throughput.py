"""Indexing throughput: is the whole pipeline nearly as fast as the embedder it feeds?

Embedding dominates a cold index, so the pipeline's chunks/s divided by the bare model's
chunks/s on the very same chunk texts says how much scanning, parsing, chunking and DuckDB
writes cost on top (goal: ratio >= 0.9). It also times the passes users wait for most often:
re-indexing an unchanged vault, and re-indexing after editing one note.

Prints figures, asserts nothing. Works on a temporary copy; the source vault is never touched.

    .venv/bin/python bench/index_throughput.py [--vault PATH | --notes N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_common import (
    VAULT_EXAMPLE,
    copy_vault,
    cpu_times,
    machine_note,
    memory_fields,
    quantile,
)
from synth_vault import make_vault

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.embedding import EMBED_BATCH
from kbtui.indexing.indexer import Indexer
from kbtui.indexing.texts import embed_text
from kbtui.models import IndexReport
from kbtui.store import Store

GOAL_RATIO = 0.9
APPENDED = (
    "\n\nAdded by the benchmark: the sync worker now retries a failed batch twice before it "
    "reports the conflict to the user, which keeps the queue short on a flaky connection.\n"
)


class TimedEmbedder:
    """Delegates to one FastEmbedder and adds up the time spent inside the model.

    The pipeline's wall time minus this is what the indexer costs on top of embedding.
    """

    def __init__(self, inner: FastEmbedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.seconds = 0.0
        self.texts = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        vectors = self.inner.embed(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        return vectors

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_query(texts)


def index_once(settings: Settings, embedder: TimedEmbedder) -> tuple[IndexReport, float]:
    """One pass as `kbtui index` runs it: open a new Store, run a new Indexer, close."""
    started = time.perf_counter()
    store = Store(settings.db_path)
    try:
        report = Indexer(settings, store, embedder).run()
    finally:
        store.close()
    return report, time.perf_counter() - started


def query(settings: Settings, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """A read straight from the index file: fine for a bench, not for kbtui code."""
    store = Store(settings.db_path, read_only=True)
    try:
        return [tuple(row) for row in store.con.execute(sql, params or []).fetchall()]
    finally:
        store.close()


def chunk_texts(settings: Settings) -> list[str]:
    """The indexed chunks, in the order and form the indexer embedded them."""
    rows = query(
        settings,
        "SELECT n.title, c.heading, c.content FROM chunks c JOIN notes n USING (entity_id) "
        "ORDER BY c.cid",
    )
    return [embed_text(str(t), str(h), str(c)) for t, h, c in rows]


def raw_embed_seconds(embedder: FastEmbedder, texts: list[str]) -> float:
    """The bare model on `texts`, in the indexer's groups of EMBED_BATCH (batch_size inside)."""
    started = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):
        embedder.embed(texts[i : i + EMBED_BATCH])
    return time.perf_counter() - started


def note_to_edit(settings: Settings) -> tuple[str, str, int] | None:
    """(path, entity_id, chunks) of the note with most chunks: an edit there is a real one."""
    rows = query(
        settings,
        "SELECT n.path, n.entity_id, count(*) FROM chunks c JOIN notes n USING (entity_id) "
        "GROUP BY n.path, n.entity_id ORDER BY 3 DESC, 1 LIMIT 1",
    )
    if not rows:
        return None
    path, entity_id, count = rows[0]
    return str(path), str(entity_id), int(count)


def rate(chunks: int, seconds: float) -> float:
    return chunks / seconds if seconds > 0 else float("nan")


def prepare_vault(args: argparse.Namespace, tmp: Path) -> tuple[Path, str]:
    """A vault in `tmp` to index: a copy of --vault (default vault_example) or a synthetic one."""
    target = tmp / "vault"
    if args.notes is not None:
        make_vault(target, args.notes, seed=args.seed)
        return target, f"synthetic ({args.notes} notes, seed {args.seed}), written to {target}"
    source = Path(args.vault).expanduser().resolve() if args.vault else VAULT_EXAMPLE
    if not source.is_dir():
        raise SystemExit(f"not a folder: {source}")
    copy_vault(source, target)
    return target, f"{source}, copied to {target}"


def show(label: str, text: str) -> None:
    print(f"{label:<18}{text}", flush=True)


def edit_one_note(settings: Settings, embedder: TimedEmbedder) -> None:
    """Append a paragraph to the note with most chunks, re-index, show what got embedded."""
    target = note_to_edit(settings)
    if target is None:
        show("5. one-note edit", "n/a: no note has chunks")
        return
    path, entity_id, before = target
    known = {str(h) for (h,) in query(settings, "SELECT content_hash FROM chunks")}
    with (settings.vault / path).open("a", encoding="utf-8") as note:
        note.write(APPENDED)
    edit, edit_s = index_once(settings, embedder)
    sql = "SELECT content_hash FROM chunks WHERE entity_id = ?"
    after = [str(h) for (h,) in query(settings, sql, [entity_id])]
    fresh = sum(1 for h in after if h not in known)
    show(
        "5. one-note edit",
        f"{path}: {edit_s:.3f} s, chunks embedded {edit.chunks_embedded} "
        f"(chunk texts not indexed before: {fresh}; the note had {before} chunks, now "
        f"{len(after)}; changed notes {len(edit.changed)})",
    )


def main() -> None:
    """Run every measurement once, on one vault copy, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--vault", help="vault to copy and index (default: vault_example/)")
    source.add_argument("--notes", type=int, help="index a synthetic vault of N notes instead")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic vault (0)")
    parser.add_argument("--repeat", type=int, default=5, help="no-change re-index runs (5)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")

    before = cpu_times()
    with tempfile.TemporaryDirectory(prefix="kbtui-bench-") as tmp:
        vault, described = prepare_vault(args, Path(tmp))
        settings = Settings.for_vault(vault)
        files = sum(1 for p in vault.rglob("*") if p.suffix.lower() in (".md", ".markdown"))
        show("vault", f"{described} ({files} markdown files)")

        fast = FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
        started = time.perf_counter()
        fast.load()
        fast.embed(["warm-up: the first run allocates ONNX buffers"])  # outside both timings
        show(
            "embedder",
            f"{fast.model_id}, batch {fast.batch_size}, threads "
            f"{settings.embed_threads or 'all cores'}, load + warm-up "
            f"{time.perf_counter() - started:.2f} s (not in the timings below)",
        )
        timed = TimedEmbedder(fast)

        # 1. Cold index: fresh DuckDB file, whole pipeline.
        cold, cold_s = index_once(settings, timed)
        chunks = cold.chunks_embedded
        rest_s = cold_s - timed.seconds
        show(
            "1. cold index",
            f"{chunks} chunks in {cold_s:.2f} s = {rate(chunks, cold_s):.1f} chunks/s "
            f"({len(cold.new)} notes, {len(cold.skipped)} skipped; inside the model "
            f"{timed.seconds:.2f} s, the rest {rest_s:.2f} s = {100 * rest_s / cold_s:.1f}%)",
        )

        # 2. The bare model on the same texts, same instance, after the cold index.
        texts = chunk_texts(settings)
        if len(texts) != chunks or timed.texts != chunks:
            show(
                "   NOTE",
                f"{len(texts)} chunks in the store, {timed.texts} texts embedded, "
                f"report says {chunks}: the two rates below are not on the same chunks",
            )
        raw_s = raw_embed_seconds(fast, texts)
        show(
            "2. raw embedder",
            f"{len(texts)} chunks in {raw_s:.2f} s = {rate(len(texts), raw_s):.1f} chunks/s",
        )

        # 3. Ratio.
        if chunks and texts:
            ratio = rate(chunks, cold_s) / rate(len(texts), raw_s)
            verdict = "met" if ratio >= GOAL_RATIO else "NOT met"
            # The model's share of the cold index is the ratio the pipeline would get if the
            # model ran as fast in both measurements: robust to load that changes between them.
            show(
                "3. ratio",
                f"{ratio:.3f} pipeline / raw (goal >= {GOAL_RATIO}: {verdict}); "
                f"model share of the cold index {timed.seconds / cold_s:.3f}",
            )
        else:
            show("3. ratio", "n/a: nothing was embedded")

        # 4. No-change re-index, a new Store and Indexer each time.
        runs = [index_once(settings, timed) for _ in range(args.repeat)]
        seconds = [s for _, s in runs]
        embedded = sum(r.chunks_embedded for r, _ in runs)
        touched = sum(
            len(r.new) + len(r.changed) + len(r.deleted) + len(r.renamed) for r, _ in runs
        )
        last = runs[-1][0]
        show(
            f"4. no change x{args.repeat}",
            f"median {statistics.median(seconds):.3f} s, p95 {quantile(seconds, 0.95):.3f} s; "
            f"chunks embedded {embedded} ({'ok' if embedded == 0 else 'UNEXPECTED, should be 0'}); "
            f"notes new/changed/deleted/renamed {touched}, unchanged {last.unchanged}, "
            f"skipped {len(last.skipped)}",
        )

        # 5. Append a paragraph to one note and re-index.
        edit_one_note(settings, timed)

    show("peak RSS", f"{memory_fields()['VmHWM']:.0f} MB")
    show("machine", machine_note(before))  # other work skews one-shot timings


if __name__ == "__main__":
    main()
