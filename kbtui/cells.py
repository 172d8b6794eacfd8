"""Text whose width every terminal agrees on, for rows drawn against a border.

Rich (15) counts an emoji sequence as 2 cells: a text-style symbol made emoji by U+FE0F
(VS16: 🗂️ = U+1F5C2 U+FE0F), a skin-tone modifier, a ZWJ family. Terminals do not agree:
tmux 3.3a, xterm and other wcwidth-based terminals draw 🗂️ in 1 cell and 👍🏽 in 4, kitty
or WezTerm in 2. When Rich and the terminal disagree, every cell after the emoji moves and the
row's `│` lands one cell off the border. Without the sequence marks the symbols have one
width everywhere (🗂 alone: 1 cell; 👍: 2), so what is shown keeps the symbol and the layout.
Display only: ids, paths and names given back to tools are never changed.
"""

from __future__ import annotations

import re

_VARIATION = "\ufe0e\ufe0f"  # VS15, VS16: choose text or emoji presentation
_SKIN_TONES = "\U0001f3fb-\U0001f3ff"
_TAGS = "\U000e0020-\U000e007f"  # subdivision flags (🏴 + tag letters)
# Emoji after a zero width joiner (👨‍👩‍👧): the joined parts go, the first emoji stays. A ZWJ
# between letters of a script that needs it (Devanagari, Arabic) is left alone.
_JOINED_EMOJI = (
    "\u200d[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff][\ufe0f\U0001f3fb-\U0001f3ff]*"
)
_DISPUTED = re.compile(f"{_JOINED_EMOJI}|[{_VARIATION}{_SKIN_TONES}{_TAGS}]")


def cell_safe(text: str) -> str:
    """`text` without the emoji sequence marks whose width terminals disagree on."""
    if text.isascii():
        return text
    return _DISPUTED.sub("", text)
