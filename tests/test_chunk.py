import itertools

import pytest

from kbtui.vault.chunk import chunk_body, reassemble
from kbtui.vault.parse import parse_note

LONG = "\n\n".join(
    f"Paragraph {i}. " + " ".join(f"word{i}_{j}" for j in range(40)) for i in range(12)
)


def _roundtrip(body: str, sections: list[tuple[int, str]], size: int, overlap: int) -> None:
    chunks = chunk_body(body, sections, size, overlap)
    assert reassemble([(c.start, c.end, c.content) for c in chunks]) == body
    assert all(len(c.content) <= size for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))


@pytest.mark.parametrize(("size", "overlap"), [(500, 50), (200, 0), (100, 30), (1000, 150)])
def test_chunks_fit_the_size_and_reassemble_exactly(size: int, overlap: int) -> None:
    _roundtrip(LONG, [(0, "")], size, overlap)


def test_consecutive_chunks_overlap_by_about_the_overlap() -> None:
    chunks = chunk_body(LONG, [(0, "")], 500, 50)
    for a, b in itertools.pairwise(chunks):
        shared = a.end - b.start
        assert 0 < shared <= 50


def test_windows_end_on_boundaries_not_mid_word() -> None:
    chunks = chunk_body(LONG, [(0, "")], 500, 50)
    for c in chunks[:-1]:
        assert c.content[-1] in " \n.", repr(c.content[-10:])


def test_headings_split_chunks_and_small_sections_are_packed() -> None:
    body = "# A\n\nshort a\n\n## B\n\nshort b\n\n# C\n\n" + LONG
    note = parse_note("n.md", body)
    chunks = chunk_body(note.body, note.sections, 500, 50)
    assert chunks[0].heading == "A" and "short b" in chunks[0].content
    assert all(c.heading == "C" for c in chunks[1:])
    _roundtrip(note.body, list(note.sections), 500, 50)


def test_whitespace_only_body_has_no_chunks() -> None:
    assert chunk_body("", [(0, "")]) == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_invalid_parameters(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_body("text", [(0, "")], size, overlap)
