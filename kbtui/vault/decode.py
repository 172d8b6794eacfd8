"""Turn a note's bytes into text, whatever editor or OS wrote it.

Order of trust: a byte-order mark, then strict UTF-8, then UTF-8 cut mid-character at the
end (a truncated write), then cp1252 (Windows editors), then latin-1 (never fails). Files
with NUL bytes and no BOM are binary and are rejected rather than indexed as garbage.
"""

from __future__ import annotations

import codecs

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class DecodeError(ValueError):
    """The file cannot be read as text; the message is the reason shown to the user."""


def decode_note(data: bytes) -> tuple[str, str | None]:
    """Return (text with LF line endings, warning or None)."""
    text, warning = _decode(data)
    if "\x00" in text:
        raise DecodeError("binary file (contains NUL bytes)")
    return text.replace("\r\n", "\n").replace("\r", "\n"), warning


def _decode(data: bytes) -> tuple[str, str | None]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding), None
            except UnicodeDecodeError as exc:
                raise DecodeError(
                    f"invalid {encoding} after byte-order mark: {exc.reason}"
                ) from exc
    if b"\x00" in data:
        raise DecodeError("binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and exc.end == len(data):
            return data[: exc.start].decode("utf-8"), "file ends mid-character (truncated UTF-8)"
    try:
        return data.decode("cp1252"), "not UTF-8; decoded as Windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "not UTF-8; decoded as Latin-1"
