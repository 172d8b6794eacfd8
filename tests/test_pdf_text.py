"""Reading a PDF's text (kbtui.vault.attachments.pdf): page by page, hyphenation and
ligatures fixed, damaged files refused with a reason a person understands. PDFs are
generated (pdf_kit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtui.tokenize import term_counts
from kbtui.vault.attachments.pdf import PdfError, clean_page, page_place, read_pdf
from tests.pdf_kit import WARRANTY_PAGES, image_only_pdf, make_pdf

LIMIT = 100 * 1_000_000


def test_pages_come_back_in_order_with_the_metadata_title(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "w.pdf", WARRANTY_PAGES, title="Kestrel warranty")
    text = read_pdf(pdf, LIMIT)
    assert text.title == "Kestrel warranty"
    assert len(text.pages) == len(WARRANTY_PAGES)
    assert text.pages[3].startswith("Batteries. The rechargeable battery")
    assert "eighteen months" in text.pages[3] and "eighteen" not in text.pages[2]


def test_a_title_that_is_a_file_name_or_missing_is_no_title(tmp_path: Path) -> None:
    assert read_pdf(make_pdf(tmp_path / "a.pdf", ["x y z"]), LIMIT).title == ""
    named = make_pdf(tmp_path / "b.pdf", ["x y z"], title="Microsoft Word - b.docx")
    assert read_pdf(named, LIMIT).title == ""


def test_a_word_hyphenated_at_a_line_end_is_one_word_for_bm25(tmp_path: Path) -> None:
    pdf = make_pdf(
        tmp_path / "h.pdf",
        ["The replace-\nment of the battery and the Anti-\nLock brakes"],
        line_breaks=True,
    )
    page = read_pdf(pdf, LIMIT).pages[0]
    assert "replacement of the battery" in page
    assert "Anti-Lock" in page  # a capital after the break: a real compound, kept
    terms, _ = term_counts(page)
    (replacement,) = term_counts("replacement")[0]
    assert replacement in terms


def test_clean_page_joins_split_words_and_unfolds_ligatures() -> None:
    assert clean_page("infor-\r\nmation and dan\x02gerous") == "information and dangerous"
    assert (
        clean_page("the \ufb01nal a\ufb03davit, \ufb02at \ufb00") == "the final affidavit, flat ff"
    )
    assert clean_page("co\u00adoperate") == "cooperate"
    assert clean_page("well-known, mid-line hyphens stay") == "well-known, mid-line hyphens stay"
    assert clean_page("a\x00b\x0cc") == "a b c"
    assert clean_page("one\r\n\r\n\r\n\r\ntwo  \r\nthree") == "one\n\ntwo\nthree"


def test_an_encrypted_pdf_is_refused_as_encrypted(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "e.pdf", ["secret"], user_password="pw")
    with pytest.raises(PdfError, match=r"^encrypted: a password is needed"):
        read_pdf(pdf, LIMIT)


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_a_truncated_or_corrupt_pdf_is_refused_as_damaged(tmp_path: Path, cut: float) -> None:
    whole = make_pdf(tmp_path / "w.pdf", WARRANTY_PAGES).read_bytes()
    broken = tmp_path / "t.pdf"
    broken.write_bytes(whole[: int(len(whole) * cut)])
    with pytest.raises(PdfError, match=r"^damaged"):
        read_pdf(broken, LIMIT)
    junk = tmp_path / "j.pdf"
    junk.write_bytes(b"%PDF-1.4\nnot really\n")
    with pytest.raises(PdfError, match=r"^damaged"):
        read_pdf(junk, LIMIT)


def test_a_scan_has_pages_but_no_text(tmp_path: Path) -> None:
    text = read_pdf(image_only_pdf(tmp_path / "scan.pdf"), LIMIT)
    assert len(text.pages) == 2 and not text.has_text


def test_a_pdf_over_the_limit_is_not_read(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "w.pdf", WARRANTY_PAGES)
    with pytest.raises(PdfError, match=r"^too large"):
        read_pdf(pdf, 100)


def test_page_place_names_page_and_link_only_for_a_pdf() -> None:
    assert page_place("docs/w.pdf", "p. 4") == {"page": 4, "link": "docs/w.pdf#page=4"}
    assert page_place("docs/w.md", "p. 4") == {}
    assert page_place("docs/w.pdf", "") == {}
