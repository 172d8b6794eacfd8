"""A note's bytes as text to edit, and the edited text back as bytes the same way.

Every writer goes through here so a note keeps what its editor gave it: the encoding (UTF-8
with or without a byte-order mark, UTF-16/32 with one, Windows-1252 or Latin-1 as
kbtui.vault.decode reads them), the byte-order mark, the line endings and the final newline.
The text keeps its own line endings (CRLF stays CRLF), so the lines an edit does not name
encode back to the very same bytes. New text is written with the note's dominant line ending.
"""

from __future__ import annotations

import codecs
import re
import time
from dataclasses import dataclass
from pathlib import Path

from kbtui.textdiff import content_hash
from kbtui.vault.edit.write import WriteError

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NAMES = {"cp1252": "Windows-1252", "latin-1": "Latin-1"}


class EncodingError(WriteError):
    """The note cannot be edited as text, or new text does not fit the note's encoding."""


@dataclass(frozen=True)
class NoteText:
    """One note as read: its raw bytes, its text (own line endings) and how it was encoded."""

    raw: bytes
    text: str
    encoding: str  # a Python codec name, without the BOM
    bom: bytes
    newline: str  # the dominant line ending: "\r\n" or "\n"

    @property
    def hash(self) -> str:
        return content_hash(self.raw)

    @property
    def encoding_name(self) -> str:
        """As a person says it: UTF-8, UTF-8 with BOM, UTF-16LE, Windows-1252 ..."""
        name = _NAMES.get(self.encoding, self.encoding.upper().replace("-LE", "LE"))
        name = name.replace("-BE", "BE")
        return f"{name} with BOM" if self.bom and self.encoding == "utf-8" else name

    def encode(self, text: str) -> bytes:
        """`text` as bytes of this note's encoding and BOM; refused if a character does not
        fit (a Windows-1252 note gets no emoji: it would no longer read back the same)."""
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = text[exc.start : exc.end]
            raise EncodingError(
                f"the note is {self.encoding_name}, which cannot hold {bad!r} "
                f"(U+{ord(bad[0]):04X}); nothing was written. Save the note as UTF-8 first "
                "or leave that character out"
            ) from None

    def lines_out(self, text: str) -> str:
        """New text given with "\\n" line ends, in this note's line endings."""
        plain = text.replace("\r\n", "\n")
        return plain.replace("\n", self.newline) if self.newline != "\n" else plain


def decode_for_edit(data: bytes) -> NoteText:
    """Read a note to edit it. Refuses what it could not write back byte for byte: binary
    files, text cut mid-character, bare CR line endings."""
    bom, encodings = b"", ["utf-8", "cp1252", "latin-1"]  # kbtui.vault.decode's order
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encodings = mark, [name]
            break
    if not bom and b"\x00" in data:
        raise EncodingError("a binary file (it holds NUL bytes) is not edited as a note")
    for encoding in encodings:
        try:
            text = data[len(bom) :].decode(encoding)
        except UnicodeDecodeError as exc:
            if bom:
                raise EncodingError(f"not valid {encoding} after its byte-order mark") from exc
            if exc.reason == "unexpected end of data" and exc.end == len(data):
                raise EncodingError(
                    "the note ends mid-character (a save in progress?); try again"
                ) from exc
            continue
        break
    else:  # latin-1 never fails; kept for the type checker
        raise EncodingError("the note's encoding is not known")
    if "\x00" in text:
        raise EncodingError("a binary file (it holds NUL characters) is not edited as a note")
    if re.search("\r(?!\n)", text):
        raise EncodingError("a note with bare CR line endings (old Mac) is not edited")
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
    return NoteText(data, text, encoding, bom, newline)


SETTLE_SECONDS = 0.25  # how long an empty note saved a moment ago is given to fill


def settled_bytes(full: Path) -> bytes:
    """The note's bytes; an empty file modified within the last second is read again for a
    moment: an editor that saves in place (truncate, then write) shows it empty in between,
    and an edit made on that would replace the whole note with its own lines."""
    data = full.read_bytes()
    deadline = time.monotonic() + SETTLE_SECONDS
    while not data and time.monotonic() < deadline:
        if time.time() - full.stat().st_mtime > 1.0:
            break  # empty for a while: an empty note
        time.sleep(0.005)
        data = full.read_bytes()
    return data
