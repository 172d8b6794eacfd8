"""Indexing PDFs: the pass's chunks/s beside notes of the same text, and peak RSS of a pass
over one 1,000-page PDF (goals: within 10% of notes' chunks/s; <= 500 MB).

Each case runs in its own process (its peak RSS is its own) on a fresh vault with the real
model: `pdf` a generated book (bench/pdf_corpus.py) of --pages pages; `notes` the very text
PDFium extracts from that book, one markdown note a page (same chunks, same embedding work).
Prints figures; asserts nothing.

    python bench/pdf_index.py --pages 200          # chunks/s: PDF vs notes
    python bench/pdf_index.py --pages 1000 --only pdf   # the 1,000-page PDF's peak RSS
    python bench/pdf_index.py --pages 200 --repeat 5    # the ratio as a median of 5 pairs
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import cpu_times, machine_note  # bench/ is sys.path[0] when run by path
from pdf_corpus import book

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.vault.attachments.pdf import read_pdf


def child(kind: str, pages: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        made = Path(tmp) / "book.pdf"
        book(made, pages)
        started = time.perf_counter()
        text = read_pdf(made, 10**9)
        extract = time.perf_counter() - started
        if kind == "pdf":
            made.rename(vault / "book.pdf")
        else:
            for n, page in enumerate(text.pages, 1):
                (vault / f"page {n:04d}.md").write_text(page)
        embedder = FastEmbedder()
        embedder.load()
        settings = Settings.for_vault(vault)
        store = Store(settings.db_path)
        marks: dict[str, float] = {}

        def progress(phase: str, done: int, total: int) -> None:
            marks.setdefault(f"first {phase}", time.perf_counter() - began)

        began = time.perf_counter()
        report = Indexer(settings, store, embedder, progress=progress).run()
        seconds = time.perf_counter() - began
        chunks = store.stats()["chunks"]
        store.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "chunks": chunks,
                "embedded": report.chunks_embedded,
                "seconds": seconds,
                "extract_pages_s": pages / extract,
                "rss": rss,
                **marks,
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--only", choices=("pdf", "notes"))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--child", choices=("pdf", "notes"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.pages)
        return
    before = cpu_times()
    rates: dict[str, list[float]] = {}
    kinds = [args.only] if args.only else ["notes", "pdf"]
    for kind in kinds * args.repeat:  # alternated: the machine's load drifts
        cmd = [sys.executable, __file__, "--child", kind, "--pages", str(args.pages)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        rates.setdefault(kind, []).append(r["embedded"] / r["seconds"])
        print(
            f"{kind:5}  {args.pages} pages  {r['chunks']} chunks  pass {r['seconds']:.1f} s  "
            f"{rates[kind][-1]:.1f} chunks/s  peak RSS {r['rss']:.0f} MB  "
            f"(extraction alone {r['extract_pages_s']:.0f} pages/s; "
            + ", ".join(f"{k} at {v:.1f} s" for k, v in r.items() if k.startswith("first"))
            + ")"
        )
    if len(rates) == 2:
        pdf, notes = statistics.median(rates["pdf"]), statistics.median(rates["notes"])
        print(f"median chunks/s: PDF {pdf:.1f}, notes {notes:.1f}; PDF / notes {pdf / notes:.3f}")
        pairs = [p / n for p, n in zip(rates["pdf"], rates["notes"], strict=False)]
        if len(pairs) > 1:  # each PDF run against the notes run just before it
            q = statistics.quantiles(pairs, n=4) if len(pairs) > 2 else pairs
            print(
                f"PDF / notes per pair: median {statistics.median(pairs):.3f}, "
                f"quartiles {q[0]:.3f}-{q[-1]:.3f}, {len(pairs)} pairs: "
                + " ".join(f"{x:.2f}" for x in pairs)
            )
    print(machine_note(before))


if __name__ == "__main__":
    main()
