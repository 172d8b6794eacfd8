"""PDFs generated for tests (fpdf2, a dev dependency): no PDF file is committed.

`warranty_pages` is a small manual whose page 4 alone answers a question about batteries,
for the end-to-end searches with the real model."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

WARRANTY_PAGES = [
    "Limited warranty for the Kestrel smart watch. This document explains what the "
    "manufacturer covers during the first two years after purchase and how to make a claim.",
    "Registering your product. Keep the original receipt. Claims must include the serial "
    "number printed on the back of the case and a description of the fault.",
    "Water resistance. The case resists splashes and rain. Damage caused by diving, hot "
    "showers or saunas is not covered, and neither is a cracked display from a fall.",
    "Batteries. The rechargeable battery is covered for eighteen months. A battery that "
    "holds less than seventy percent of its original charge is replaced free of charge. "
    "Swollen or leaking cells must never be charged; send the watch to a service centre.",
    "Returns and refunds. Within thirty days an unused watch may be returned for a full "
    "refund. Shipping costs for returns are paid by the customer.",
]


def make_pdf(
    path: Path,
    pages: list[str],
    title: str | None = None,
    user_password: str | None = None,
    line_breaks: bool = False,
) -> Path:
    """A PDF with one page per text (Helvetica, wrapped). `line_breaks`: each `\\n` in a
    text starts a new line where it stands (to place a hyphen at a line's end)."""
    pdf = FPDF()
    if title is not None:
        pdf.set_title(title)
    if user_password is not None:
        pdf.set_encryption(owner_password="owner", user_password=user_password)
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        if line_breaks:
            for n, line in enumerate(text.split("\n")):
                pdf.text(15, 20 + 6 * n, line)
        elif text:
            pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def image_only_pdf(path: Path) -> Path:
    """A 'scan': pages with drawings and no text layer."""
    pdf = FPDF()
    for _ in range(2):
        pdf.add_page()
        pdf.set_fill_color(90, 90, 90)
        pdf.rect(20, 20, 150, 200, style="F")
    pdf.output(str(path))
    return path
