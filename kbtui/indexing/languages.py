"""Which languages a vault's notes are written in: what `auto` chooses the embedding model by.

MiniLM (the English model) reads English only. A note counts by its main script, weighed in
units a reader would count: one per character of Chinese or Japanese (no spaces between
words), one per word of every other script. A note mostly in Han characters is Chinese (or
Japanese when kana are a tenth of them); a note in another script, or in Latin letters, is
named by py3langid (BSD-3-Clause, the langid.py model: offline, 4.6 MB, ~0.1 ms a note; its
model loads once, ~1.3 s, only when a vault is first indexed). A Latin-script note it is
unsure of (probability < MIN_PROBABILITY: short notes, lists of names, code words) is left
out of the count rather than guessed.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kbtui.vault.scan import MARKDOWN_SUFFIXES, scan_vault

log = logging.getLogger("kbtui.languages")

SAMPLE_NOTES = 400  # notes read, spread over the vault's paths: the share, not a census
SAMPLE_BYTES = 8192  # of each note's start
MIN_UNITS = 8  # fewer words (or CJK characters) than this: the note has no language to count
MIN_PROBABILITY = 0.5
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_WORDS = re.compile(r"[^\W\d_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NOISE = re.compile(r"```.*?```|`[^`\n]*`|https?://\S+|\]\([^)]*\)|^---\n.*?\n---\n", re.S)
NAMES = {
    "en": "English", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "de": "German",
    "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese", "nl": "Dutch",
    "ru": "Russian", "uk": "Ukrainian", "pl": "Polish", "cs": "Czech", "sv": "Swedish",
    "da": "Danish", "no": "Norwegian", "fi": "Finnish", "tr": "Turkish", "ar": "Arabic",
    "fa": "Persian", "he": "Hebrew", "hi": "Hindi", "th": "Thai", "vi": "Vietnamese",
    "id": "Indonesian", "el": "Greek", "hu": "Hungarian", "ro": "Romanian", "bg": "Bulgarian",
}  # fmt: skip


@dataclass(frozen=True)
class VaultLanguages:
    """How many sampled notes are in each language (notes without one left out)."""

    counts: dict[str, int]

    @property
    def counted(self) -> int:
        return sum(self.counts.values())

    def share_not_english(self) -> float:
        """The share of counted notes in a language other than English (0 for none)."""
        counted = self.counted
        return (counted - self.counts.get("en", 0)) / counted if counted else 0.0

    def main_other(self) -> str | None:
        """The most common language other than English, by name."""
        others = Counter({k: v for k, v in self.counts.items() if k != "en"})
        return language_name(others.most_common(1)[0][0]) if others else None


def language_name(code: str) -> str:
    return NAMES.get(code, code)


def note_language(text: str) -> str | None:
    """The language a note is mostly written in (a two-letter code), or None when it has too
    little text to tell or the identifier is unsure."""
    text = _NOISE.sub(" ", text)
    cjk = len(_HAN.findall(text)) + (kana := len(_KANA.findall(text)))
    words = _WORDS.findall(text)
    if cjk + len(words) < MIN_UNITS:
        return None
    if cjk >= len(words):
        return "ja" if kana * 10 >= cjk else "zh"
    identifier = _identifier()
    if identifier is None:  # py3langid missing: only Chinese and Japanese are told apart
        return None
    code, probability = identifier.classify(" ".join(words))
    return str(code) if probability >= MIN_PROBABILITY else None


def vault_languages(vault: Path, index_dir: Path | None = None) -> VaultLanguages:
    """The languages of up to SAMPLE_NOTES markdown notes, spread evenly over the vault."""
    files, _ = scan_vault(vault, index_dir, MARKDOWN_SUFFIXES)
    paths = sorted(files)
    step = max(1, len(paths) / SAMPLE_NOTES)
    picked = [paths[int(i * step)] for i in range(min(len(paths), SAMPLE_NOTES))]
    counts: Counter[str] = Counter()
    for rel in picked:
        try:  # a regular file (the scan checked); a character cut at the end is dropped
            with (vault / rel).open("rb") as f:
                text = f.read(SAMPLE_BYTES).decode("utf-8", "ignore")
        except OSError:
            continue
        language = note_language(text)
        if language is not None:
            counts[language] += 1
    return VaultLanguages(dict(counts))


@lru_cache(maxsize=1)
def _identifier() -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError as exc:  # a dependency: an install without it still opens vaults
        log.warning("cannot tell the languages of notes in Latin script: %s", exc)
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
