"""A PDF in the vault as the indexer sees a note: one entity, its pages' text chunked page by
page (a chunk never spans two pages, so every hit has one page), embedded like a note's.

A PDF that cannot be read (encrypted, damaged, too large) or has no text (a scan) is still an
entity, findable by its file name: one name-only chunk, the reason in its `unreadable`
property (kbtui stats lists them). Nothing of a half-read PDF is ever written: the pages are
read first, the entity is written whole in the pass's next transaction.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from kbtui.models import Chunk, FileState, ParsedNote
from kbtui.vault.attachments.kinds import attachment_kind
from kbtui.vault.attachments.pdf import PdfError, PdfText, is_pdf, read_pdf_bytes
from kbtui.vault.chunk import chunk_body
from kbtui.vault.names import derive_type_and_name, page_path
from kbtui.vault.scan import read_note_bytes

PAGE_SEP = "\n\n"
_LARGE = "large-"  # the hash of a PDF over the limit: size and time, the file unread
NO_TEXT = "image-only: no text layer (a scan?); findable by its file name"


def over_limit_changed(path: str, file_hash: str, size: int, max_mb: int) -> bool:
    """True for an unchanged PDF that `max_pdf_mb` now puts on the other side of the limit:
    read it again (its text now, or only its name)."""
    if not is_pdf(path):
        return False
    return file_hash.startswith(_LARGE) != (size > max_mb * 1_000_000)


def pdf_bytes(vault: Path, state: FileState, max_mb: int) -> tuple[bytes | None, str]:
    """(the file's bytes, their hash); no bytes for a PDF over `max_mb` or an attachment,
    which are not read (the hash is their size and time). OSError when it cannot be read."""
    limit = max_mb * 1_000_000
    if attachment_kind(state.path):
        return None, f"file-{state.size}-{state.mtime_ns}"
    if state.size > limit:
        return None, f"{_LARGE}{state.size}-{state.mtime_ns}"
    data = read_note_bytes(vault / state.path, limit)
    return data, hashlib.blake2b(data, digest_size=16).hexdigest()


def pdf_note(state: FileState, data: bytes | None, max_mb: int) -> ParsedNote:
    """The PDF as a note: its pages as the body, a section `p. N` for each; an attachment
    as a note of its name alone."""
    # The name keeps the suffix: paper.pdf is note:paper_pdf, never paper.md's note:paper.
    entity_type, name = derive_type_and_name(f"{state.path}.pdf", {})
    text: PdfText | None = None
    kind = attachment_kind(state.path)
    if kind:
        problem = ""
    elif data is None:
        problem = f"too large ({state.size / 1e6:.1f} MB; max_pdf_mb is {max_mb})"
    else:
        try:
            text = read_pdf_bytes(data, max_mb * 1_000_000)
            problem = "" if text.has_text else NO_TEXT
        except PdfError as exc:
            problem = str(exc)
    pages = text.pages if text is not None and text.has_text else ()
    body, sections = "", []
    for n, page in enumerate(pages, 1):
        if body:
            body += PAGE_SEP
        sections.append((len(body), f"p. {n}"))
        body += page
    meta: dict[str, object] = {"pages": len(text.pages) if text is not None else 0}
    if kind:
        meta = {"attachment": kind}
    if problem:
        meta["unreadable"] = problem
    return ParsedNote(
        path=state.path,
        entity_id=f"{entity_type}:{name}",
        type=entity_type,
        name=name,
        title=(text.title if text is not None else "") or page_path(state.path)[-1],
        body=body,
        frontmatter=meta,
        aliases=(),
        tags=(),
        links=(),
        sections=tuple(sections),
        warnings=(f"PDF {problem}",) if problem else (),
        blocks=(),
    )


def pdf_chunks(note: ParsedNote, size: int, overlap: int) -> list[Chunk]:
    """Each page cut like a section of a note (kbtui.vault.chunk), headed `p. N`; a PDF
    without text has one name-only chunk (empty span: no body text)."""
    if not note.sections:
        return [Chunk(index=0, content=note.title, start=0, end=0, heading="")]
    chunks: list[Chunk] = []
    ends = [s for s, _ in note.sections[1:]] + [len(note.body) + len(PAGE_SEP)]
    for (start, heading), end in zip(note.sections, ends, strict=True):
        page = note.body[start : end - len(PAGE_SEP)]
        for c in chunk_body(page, [(0, heading)], size, overlap):
            chunks.append(Chunk(len(chunks), c.content, start + c.start, start + c.end, heading))
    return chunks
