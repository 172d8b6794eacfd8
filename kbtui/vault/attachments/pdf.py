"""Read a PDF's text page by page (pypdfium2, chosen by bench/pdf_extract.py: docs/pdfs.md).

PDFium gives each page's text in reading order with CRLF line ends; a word hyphenated at a
line end comes back as `dan\\x02gerous` (its soft-hyphen marker) or as `dan-` + line break.
Both are joined into one word so BM25 finds "dangerous"; typographic ligatures (U+FB00-FB06)
become their letters. A PDF that cannot be read raises PdfError with the reason a user sees;
nothing of it is indexed but its name.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

PDF_SUFFIX = ".pdf"
# PDFium is not thread-safe: one document call at a time in this process.
_PDFIUM = threading.Lock()
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
        "\u00ad": "",  # a soft hyphen shown mid-line
        "\ufffe": "\x02",  # PDFium's other soft-hyphen marker
    }
)
# a soft-hyphen marker, or a hyphen at a line end before a lower-case letter: one word
_SPLIT_WORD = re.compile(r"(\w)(?:\x02[ \t]*\n?|-[ \t]*\n[ \t]*)(?=[a-z\u00df-\u00ff])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BLANKS = re.compile(r"[ \t]+\n")
_MANY_LINES = re.compile(r"\n{3,}")
_FILE_NAMEISH = re.compile(r"(?i)\.(pdf|docx?|xlsx?|pptx?|tex|dvi|indd|ps)$|^untitled$")


_PAGE_HEADING = re.compile(r"^p\. (\d+)$")  # what kbtui.indexing.pdf_notes heads a page's chunks


def page_of(heading: str) -> int | None:
    """The 1-based page of a PDF's chunk, from its heading (`p. 3`)."""
    found = _PAGE_HEADING.match(heading)
    return int(found.group(1)) if found else None


def page_place(path: str, heading: str) -> dict[str, object]:
    """`page` (1-based) and `link` (`paper.pdf#page=3`) of a PDF chunk; {} for a note's."""
    page = page_of(heading) if is_pdf(path) else None
    return {} if page is None else {"page": page, "link": f"{path}#page={page}"}


class PdfError(ValueError):
    """The PDF cannot be indexed by its text; the message is the reason shown to the user."""


@dataclass(frozen=True)
class PdfText:
    title: str  # the document's metadata title, "" when it has none worth showing
    pages: tuple[str, ...]  # each page's cleaned text, page 1 first

    @property
    def has_text(self) -> bool:
        return any(p.strip() for p in self.pages)


def is_pdf(path: str) -> bool:
    return path.lower().endswith(PDF_SUFFIX)


def clean_page(text: str) -> str:
    """One page's text as BM25 and the model should see it (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_LIGATURES)
    text = _SPLIT_WORD.sub(r"\1", text)
    text = text.replace("\x02", "-")  # a marker left mid-line was a real hyphen
    text = _CONTROL.sub(" ", text)
    text = _BLANKS.sub("\n", text)
    return _MANY_LINES.sub("\n\n", text).strip()


def read_pdf(path: Path, max_bytes: int) -> PdfText:
    """`read_pdf_bytes` of the file at `path` (OSError when it cannot be read)."""
    size = path.stat().st_size
    if size > max_bytes:
        raise PdfError(f"too large ({size / 1e6:.1f} MB; max_pdf_mb is {max_bytes / 1e6:.0f})")
    return read_pdf_bytes(path.read_bytes(), max_bytes)


def read_pdf_bytes(data: bytes, max_bytes: int) -> PdfText:
    """Every page's text, or PdfError (encrypted, damaged, too large). All or nothing: a
    page that fails fails the document, so no entity holds half a PDF. The bytes, not the
    path: the text read is the text of the bytes the indexer hashed."""
    import pypdfium2 as pdfium  # ~10 ms to import; only a vault with PDFs pays it

    if len(data) > max_bytes:
        raise PdfError(f"too large ({len(data) / 1e6:.1f} MB; max_pdf_mb is {max_bytes / 1e6:.0f})")
    with _PDFIUM:
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise PdfError(_reason(str(exc))) from None
        try:
            pages = []
            for n in range(len(doc)):
                try:
                    page = doc[n]
                    textpage = page.get_textpage()
                    pages.append(clean_page(textpage.get_text_bounded()))
                    textpage.close()
                    page.close()
                except pdfium.PdfiumError as exc:
                    raise PdfError(f"damaged: page {n + 1} cannot be read ({exc})") from None
            if not pages:
                raise PdfError("damaged: no pages")
            title = str(doc.get_metadata_dict(skip_empty=True).get("Title", ""))
        finally:
            doc.close()
    title = " ".join(_CONTROL.sub(" ", title).replace("\x00", " ").split())
    if _FILE_NAMEISH.search(title) or not any(c.isalnum() for c in title):
        title = ""
    return PdfText(title=title, pages=tuple(pages))


def _reason(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered or "security" in lowered:
        return "encrypted: a password is needed to read it"
    if "format" in lowered:
        return "damaged: not a readable PDF (truncated or corrupt)"
    if "file" in lowered:
        return "cannot read the file"
    return f"cannot read: {message}"
