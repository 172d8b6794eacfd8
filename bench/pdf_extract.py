"""Which library reads a vault's PDFs: pages/s, peak RSS and text quality (docs/pdfs.md).

Each library runs in its own process over the same PDFs (so peak RSS is its own): real PDFs
from a folder (pypdf's sdist `resources/`, BSD-3: `pip download --no-deps --no-binary :all:
pypdf`), a generated book, and a generated page with known text for quality: reading order
of two columns, a word hyphenated across lines, ligature glyphs. Prints figures; asserts
nothing.

    python bench/pdf_extract.py --real /tmp/pypdf-7.1.1/resources [--book-pages 300]
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import cpu_times, machine_note  # bench/ is sys.path[0] when run by path
from pdf_corpus import book, truth_page

from kbtui.vault.attachments.pdf import clean_page

LIBS = ("pypdfium2", "pypdf", "pdfminer.six")


def pages_of(lib: str, path: Path) -> list[str]:
    """Every page's raw text as the library gives it (its default text extraction)."""
    if lib == "pypdfium2":
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(str(path))
        try:
            return [doc[n].get_textpage().get_text_bounded() for n in range(len(doc))]
        finally:
            doc.close()
    if lib == "pypdf":
        from pypdf import PdfReader

        return [p.extract_text() or "" for p in PdfReader(str(path)).pages]
    from pdfminer.high_level import extract_text

    return extract_text(str(path)).split("\f")[:-1] or [""]


def worker(lib: str, files: list[str]) -> None:
    import logging

    logging.disable(logging.CRITICAL)
    pages = failed = 0
    started = time.perf_counter()
    for f in files:
        try:
            pages += len(pages_of(lib, Path(f)))
        except Exception:
            failed += 1
    seconds = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"pages": pages, "failed": failed, "seconds": seconds, "rss": rss}))


def quality(lib: str, path: Path, truth: str) -> dict[str, object]:
    raw = " ".join(pages_of(lib, path))
    out: dict[str, object] = {}
    for name, text in (("raw", raw), ("cleaned", clean_page(raw))):
        words = re.findall(r"\w+", text.lower())
        want = re.findall(r"\w+", truth.lower())
        order = difflib.SequenceMatcher(None, want, words, autojunk=False).ratio()
        found = sum(w in set(words) for w in want) / len(want)
        out[name] = (round(order, 3), round(found, 3))
    flat = " ".join(clean_page(raw).split())
    out["columns in order"] = flat.find("replacement plan") < flat.find("second column")
    out["hyphen joined"] = "replacement" in re.findall(r"\w+", clean_page(raw))
    out["ligatures"] = all(w in flat for w in ("office", "staff", "affidavit", "final"))
    return out


def run(lib: str, files: list[Path]) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--worker", lib, *map(str, files)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", type=Path, help="a folder of real PDFs (searched recursively)")
    ap.add_argument("--book-pages", type=int, default=300)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.files)
        return
    before = cpu_times()
    with tempfile.TemporaryDirectory() as tmp:
        made = Path(tmp) / "book.pdf"
        book(made, args.book_pages)
        truth_pdf = Path(tmp) / "truth.pdf"
        truth = truth_page(truth_pdf)
        sets = {f"generated book ({args.book_pages} p.)": [made]}
        if args.real:
            sets[f"real: {args.real.name}"] = sorted(args.real.rglob("*.pdf"))
        print("| library | PDFs | pages | pages/s | peak RSS MB | failed | quality |")
        print("|---|---|---|---|---|---|---|")
        for lib in LIBS:
            q = quality(lib, truth_pdf, truth)
            for name, files in sets.items():
                r = run(lib, files)
                print(
                    f"| {lib} | {name} | {r['pages']} | {r['pages'] / r['seconds']:.1f} | "
                    f"{r['rss']:.0f} | {r['failed']} | {q} |"
                )
    print(machine_note(before))


if __name__ == "__main__":
    main()
