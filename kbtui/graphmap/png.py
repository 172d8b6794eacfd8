"""The map's SVG as a PNG: resvg (Rust, in the resvg-py wheel: no system library).

Text is set in the machine's monospace font (the SVG's widths assume one), with the Noto fonts
of the `manimgx-fonts` wheel (SIL Open Font License 1.1) loaded beside it: resvg falls back
to them for a character the monospace font lacks, so an emoji in a title (`🗂️ hub`) is drawn
(Noto Emoji, monochrome) instead of an empty box. A symbol none of them has is looked for in
the system's fonts (resvg loads those too), within SCAN seconds, and dropped before rendering
when none has it either: a machine without that wheel gets the words without the emoji, never
a box. Letters are kept whatever the fonts: a name without its letters would say nothing.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

FONT_PACKAGE = "manimgx_fonts"
# searched in this order for a symbol: the emoji font has nearly all of them
FIRST = ("NotoEmoji", "NotoSansSymbols")
TEXT = re.compile(r"(<text\b[^>]*>)([^<]*)(</text>)")
JOINERS = {0x200D, 0xFE0E, 0xFE0F, 0x20E3}  # zero width joiner, variation selectors, keycap
SCAN = 1.0  # seconds spent at most reading system fonts for symbols the bundled ones lack
LIKELY = ("emoji", "symbol", "dejavu", "mono")  # system fonts read first


def font_files() -> list[str]:
    """The bundled fonts, emoji first; none when the wheel is not installed."""
    try:
        import manimgx_fonts
    except ImportError:
        return []
    folder = Path(manimgx_fonts.__file__).parent
    files = sorted(folder.glob("*.ttf"), key=lambda p: (not p.name.startswith(FIRST), p.name))
    return [str(p) for p in files]


def system_fonts() -> list[str]:
    """Font files where resvg's font database looks on this platform, likely ones first."""
    home = Path.home()
    if sys.platform == "darwin":
        dirs = [Path("/System/Library/Fonts"), Path("/Library/Fonts"), home / "Library/Fonts"]
    elif sys.platform == "win32":
        dirs = [Path(os.environ.get("WINDIR", "C:/Windows")) / "Fonts"]
    else:
        dirs = [Path("/usr/share/fonts"), Path("/usr/local/share/fonts")]
        dirs += [home / ".local/share/fonts", home / ".fonts"]
    found = [p for d in dirs if d.is_dir() for p in d.rglob("*") if p.suffix.lower() in FONTS]
    return [str(p) for p in sorted(found, key=lambda p: (not p.name.lower().startswith(LIKELY), p))]


FONTS = {".ttf", ".otf", ".ttc", ".otc"}


@functools.cache
def _cmap(path: str) -> frozenset[int]:
    """The code points a font file (or every font of a collection) has; none if unreadable."""
    from fontTools.ttLib import TTCollection, TTFont

    try:
        if path.lower().endswith((".ttc", ".otc")):
            with TTCollection(path, lazy=True) as fonts:
                return frozenset(c for font in fonts for c in font.getBestCmap() or ())
        with TTFont(path, lazy=True) as font:
            return frozenset(font.getBestCmap() or ())
    except Exception:  # a broken or odd font file draws nothing: fontTools raises many kinds
        return frozenset()


def is_symbol(char: str) -> bool:
    """A character drawn from a symbol or emoji font, not a letter of some script."""
    code = ord(char)
    if code < 0x2000:
        return False
    return code in JOINERS or unicodedata.category(char) in ("So", "Sk", "Co")


def missing(chars: set[str], files: list[str], budget: float = 0.0) -> set[str]:
    """The symbols among `chars` that none of the fonts can draw; the system's fonts are read
    too while `budget` seconds last."""
    todo = {c for c in chars if is_symbol(c)}
    for path in files:
        if not todo:
            break
        todo -= {c for c in todo if ord(c) in _cmap(path)}
    if todo and budget > 0:
        end = time.monotonic() + budget
        for path in system_fonts():
            if not todo or time.monotonic() > end:
                break
            todo -= {c for c in todo if ord(c) in _cmap(path)}
    return todo


def _texts(svg: str) -> Iterator[str]:
    for match in TEXT.finditer(svg):
        yield match.group(2)


def drawable(svg: str, files: list[str], budget: float = 0.0) -> str:
    """The SVG with every symbol no font has taken out of its text (spaces tidied)."""
    drop = missing(set("".join(_texts(svg))), files, budget)
    if not drop:
        return svg

    def fix(match: re.Match[str]) -> str:
        kept = "".join(c for c in match.group(2) if c not in drop)
        return match.group(1) + " ".join(kept.split()) + match.group(3)

    return TEXT.sub(fix, svg)


def to_png(svg: str) -> bytes:
    """PNG bytes; ValueError when resvg cannot render the SVG."""
    import resvg_py

    files = font_files()
    symbols = [f for f in files if Path(f).name.startswith(FIRST)]  # the others: scripts
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=drawable(svg, symbols, SCAN), background="#ffffff", font_files=files
        )
    )
