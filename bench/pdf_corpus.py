"""Generated text PDFs for the PDF benches (fpdf2, a dev dependency): a book of N pages of
varied English prose, and a page whose ground truth tests reading order, hyphenation and
ligatures. Real PDFs come from PyPI sdists (bench/pdf_extract.py --real)."""

from __future__ import annotations

import random
from pathlib import Path

from fpdf import FPDF

WORDS = (  # noqa: SIM905 - a paragraph reads better than 75 quoted words
    "battery warranty charger voltage firmware sensor display dial strap glass sapphire "
    "ceramic titanium bracelet buckle crown bezel movement quartz automatic calendar "
    "chronograph tachymeter altimeter barometer compass pressure humidity temperature "
    "bluetooth pairing notification vibration accelerometer gyroscope heart rate sleep "
    "tracking storage memory processor kernel scheduler interrupt register cache latency "
    "throughput bandwidth protocol packet encryption signature certificate license "
    "agreement liability refund replacement repair service centre customer invoice "
    "shipping delivery return policy exclusion damage water resistance depth pressure"
).split()
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def book(path: Path, pages: int, seed: int = 1) -> None:
    """`pages` pages of prose (~2,000 characters each, like a manual's), a heading on each."""
    rng = random.Random(seed)
    pdf = FPDF()
    pdf.set_title(f"Generated manual of {pages} pages")
    pdf.set_auto_page_break(False)
    for n in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 10, f"Section {n + 1}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        text = " ".join(sentence(rng) for _ in range(22))
        pdf.multi_cell(0, 5, text[:2000])
    pdf.output(str(path))


TRUTH_LEFT = [
    "The first column opens",
    "the argument about the",
    "battery replacement plan.",
]
TRUTH_RIGHT = [
    "The second column answers",
    "with the warranty terms:",
    "water damage is excluded.",
]
HYPHENATED = ("The information about the replace-", "ment of the charger is on page four.")
LIGATURE_LINE = "The office staff filed the final affidavit."  # ffi, fi, ffl with DejaVu


def truth_page(path: Path) -> str:
    """One page whose text is known: two columns side by side (reading order: all of the left
    one first), a word hyphenated across lines, and (when DejaVu Sans is installed) ligature
    glyphs. Returns the truth text."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for i, (left, right) in enumerate(zip(TRUTH_LEFT, TRUTH_RIGHT, strict=True)):
        pdf.text(10, 20 + 6 * i, left)
        pdf.text(110, 20 + 6 * i, right)
    pdf.text(10, 60, HYPHENATED[0])
    pdf.text(10, 66, HYPHENATED[1])
    lig = LIGATURE_LINE
    if DEJAVU.exists():
        pdf.add_font("DejaVu", fname=str(DEJAVU))
        pdf.set_font("DejaVu", size=11)
        lig = lig.replace("ffi", "\ufb03").replace("ffl", "\ufb04").replace("fi", "\ufb01")
    pdf.text(10, 80, lig)
    pdf.output(str(path))
    return " ".join([*TRUTH_LEFT, *TRUTH_RIGHT, "The information about the replacement",
                     HYPHENATED[1][5:], LIGATURE_LINE])  # fmt: skip
