import codecs

import pytest

from kbtui.vault.decode import DecodeError, decode_note

TEXT = "---\ntitle: Café\n---\nrésumé naïve — ok\n"


def test_plain_utf8() -> None:
    assert decode_note(TEXT.encode()) == (TEXT, None)


def test_utf8_bom_and_crlf_become_plain_lf() -> None:
    data = codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode()
    assert decode_note(data) == (TEXT, None)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_bom(encoding: str) -> None:
    data = TEXT.encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    assert decode_note(data)[0] == TEXT


def test_cp1252_is_decoded_with_a_warning() -> None:
    text, warning = decode_note("smart “quotes” café €5".encode("cp1252"))
    assert text == "smart “quotes” café €5"
    assert warning is not None and "Windows-1252" in warning


def test_utf8_cut_mid_character_keeps_everything_before_the_cut() -> None:
    data = "déjà vu 東京".encode()[:-1]
    text, warning = decode_note(data)
    assert text == "déjà vu 東"
    assert warning is not None and "truncated" in warning


def test_binary_is_rejected_with_a_reason() -> None:
    with pytest.raises(DecodeError, match="binary"):
        decode_note(bytes(range(256)) * 2)


def test_old_mac_line_endings() -> None:
    assert decode_note(b"a\rb\r")[0] == "a\nb\n"
